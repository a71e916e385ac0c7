"""Every test gets a fresh honyaku home; the fake model server is a real server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from honyaku.application import Honyaku
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.store import Database, JobStore, Library, Stores
from honyaku.testing import FakeGeminiServer, FakeLLMServer

FIXTURES = Path(__file__).parent / "fixtures"
BOOKS = FIXTURES / "books"
STREAMS = FIXTURES / "streams"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("HONYAKU_HOME", str(folder))
    monkeypatch.setenv("HONYAKU_RETRY_BASE_S", "0.01")
    for name in ("HONYAKU_MODEL", "HONYAKU_DATABASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def database(home: Path) -> Iterator[Database]:
    database = Database.open(home)
    yield database
    database.close()


@pytest.fixture
def stores(database: Database) -> Stores:
    return Stores.over(database)


@pytest.fixture
def library(stores: Stores) -> Library:
    return stores.library


@pytest.fixture
def jobs(stores: Stores) -> JobStore:
    return stores.jobs


@pytest.fixture
def honyaku(stores: Stores) -> Honyaku:
    """The application over the test's library, as every front end uses it."""
    return Honyaku(stores)


@pytest.fixture
def fake_model() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def gemini_server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as server:
        yield server


@pytest.fixture
def gemini(gemini_server: FakeGeminiServer) -> FakeGeminiServer:
    """One fake Gemini per module (starting one costs more than a job), as good as new."""
    fresh = FakeGeminiServer()
    for name in ("translator", "delta_chars", "call_ids", "stream_arguments", "api_key"):
        setattr(gemini_server, name, getattr(fresh, name))
    gemini_server.faults.clear()
    gemini_server.requests.clear()
    return gemini_server


def novel(chapters: int = 3, paragraphs: int = 12) -> BookDraft:
    """A small Japanese-looking book: every 5th paragraph is empty, as in real novels."""
    return BookDraft(
        "試験の物語",
        tuple(
            ChapterDraft(
                f"第{c}章　旅立ち{c}",
                tuple(
                    "" if i % 5 == 4 else f"第{c}章の{i}番目の段落。彼は歩いた。"
                    for i in range(paragraphs)
                ),
            )
            for c in range(1, chapters + 1)
        ),
        author="作者不詳",
    )


@pytest.fixture
def book_id(library: Library) -> str:
    return library.add_book(novel(), source_lang="ja", target_lang="zh-CN")
