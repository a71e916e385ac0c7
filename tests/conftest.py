"""Every test gets a fresh honyaku home and database; the fake model server is a real server
on 127.0.0.1.

The store and application tests run on both databases: the embedded SQLite file, and
PostgreSQL in a throwaway cluster the tests start themselves (``tests/support/postgres.py``);
so do the job tests of what a job writes, claims and resumes, and the scenarios that show the
workbench whole, each saying so with ``pytest.mark.backends("sqlite", "postgresql")``. The
engine's other scenarios, the assistant and the workbench reach the database only through the
application, so they run on SQLite. On PostgreSQL, a scenario that also runs in both tool
protocols runs with native calls only: the protocol never reaches the store. A module whose
subject the database does not touch says so with ``pytest.mark.backends("sqlite")``.

A job's scenarios run with native tool calls, and in the XML protocol too where they say so
with ``pytest.mark.protocols(*PROTOCOLS)``: the job engine's core, questions, careful models, a
book that always finishes, and the assistant; the XML protocol's own tests are in tests/llm.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import PasswordDeleteError
from playwright.sync_api import Browser, expect, sync_playwright
from sqlalchemy import MetaData, select

from honyaku.application import Honyaku, ModelChoice
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.jobs import JobEvent, JobFinished, JobRequest, JobService
from honyaku.store import Database, JobStore, Library, Stores
from honyaku.store.database import DATABASE_FILE
from honyaku.store.schema import Base
from honyaku.testing import FakeGeminiServer, FakeLLMServer

from .support.accounting import assert_every_paragraph_accounted_for

if TYPE_CHECKING:
    from .support.postgres import Cluster

FIXTURES = Path(__file__).parent / "fixtures"
BOOKS = FIXTURES / "books"
STREAMS = FIXTURES / "streams"
BACKENDS = ("sqlite", "postgresql")
PROTOCOLS = ("native", "xml")
"""A scenario that says ``pytest.mark.protocols(*PROTOCOLS)`` runs in both; others natively."""
ON_BOTH_BACKENDS = ("store", "application")
"""The test folders whose scenarios run on SQLite and on PostgreSQL."""
CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, which Playwright drives (never ``playwright install``)."""
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
BROWSER_WAIT_MS = 30_000
"""How long a page may take to show what a test expects: CI machines are slow and shared."""
ON_POSTGRESQL = ("queue",)
"""The test folders of what only a shared database has (the job queue)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "backends(*names): the databases a test runs on (sqlite, postgresql)"
    )
    config.addinivalue_line(
        "markers", "protocols(*names): the tool protocols a job test runs in (native, xml)"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    backends = _backends(metafunc)
    if "protocol" in metafunc.fixturenames and not _parametrized(metafunc, "protocol"):
        protocols = _protocols(metafunc)
        pairs = [(b, p) for b in backends for p in protocols if b == "sqlite" or p == "native"]
        metafunc.parametrize(("backend", "protocol"), pairs, indirect=True)
    elif backends != ("sqlite",):
        metafunc.parametrize("backend", backends, indirect=True)


def _protocols(metafunc: pytest.Metafunc) -> tuple[str, ...]:
    marker = metafunc.definition.get_closest_marker("protocols")
    return marker.args if marker else ("native",)


def _backends(metafunc: pytest.Metafunc) -> tuple[str, ...]:
    if marker := metafunc.definition.get_closest_marker("backends"):
        return marker.args
    folder = metafunc.definition.path.parent.name
    if folder in ON_POSTGRESQL:
        return ("postgresql",)
    return BACKENDS if folder in ON_BOTH_BACKENDS else ("sqlite",)


def _parametrized(metafunc: pytest.Metafunc, name: str) -> bool:
    return any(name in marker.args[0] for marker in metafunc.definition.iter_markers("parametrize"))


@pytest.fixture(scope="module")
def backend(request: pytest.FixtureRequest) -> str:
    """The database the test runs on: ``sqlite`` unless its folder runs on both."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def protocol(request: pytest.FixtureRequest) -> str:
    """The tool protocol a job or chat scenario speaks: native calls, or XML in the text."""
    return request.param


@pytest.fixture(scope="session")
def postgresql_cluster() -> Iterator[Cluster]:
    """A throwaway PostgreSQL cluster, started the first time a test needs it."""
    from .support.postgres import throwaway_cluster

    with throwaway_cluster() as cluster:
        yield cluster


@pytest.fixture(autouse=True)
def home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """The test's honyaku home, its SQLite file already migrated (``migrated_sqlite``); on
    PostgreSQL, its own fresh database instead, in ``HONYAKU_DATABASE_URL`` for whatever the
    test opens and the processes it starts."""
    folder = tmp_path / "home"
    monkeypatch.setenv("HONYAKU_HOME", str(folder))
    monkeypatch.setenv("HONYAKU_RETRY_BASE_S", "0.01")
    for name in ("HONYAKU_MODEL", "HONYAKU_DATABASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    if backend == "sqlite":
        folder.mkdir()
        shutil.copyfile(request.getfixturevalue("migrated_sqlite"), folder / DATABASE_FILE)
        yield folder
        return
    cluster: Cluster = request.getfixturevalue("postgresql_cluster")
    with cluster.database() as url:
        monkeypatch.setenv("HONYAKU_DATABASE_URL", url)
        yield folder


@pytest.fixture(autouse=True)
def key_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own key store, for this process and the processes it starts: no keyring (as
    on CI; a test never touches the developer's own), so keys go to the key file in a config
    folder of the test's own, whose path this is."""
    folder = tmp_path / "config"
    monkeypatch.setenv("HONYAKU_CONFIG_DIR", str(folder))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    keyring.set_keyring(fail.Keyring())
    return folder / "keys.json"


@pytest.fixture(autouse=True)
def every_job_accounts_for_its_paragraphs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every job a test runs in this process ends with each work paragraph and chapter title
    of its scope done, or listed with its reason, and says so as the database has it
    (``support.accounting``): checked as its ``JobFinished`` passes, whoever runs it."""
    run = JobService.run

    async def accounted(
        service: JobService, request: JobRequest, choice: ModelChoice
    ) -> AsyncIterator[JobEvent]:
        async for event in run(service, request, choice):
            if isinstance(event, JobFinished):
                # Off the loop, as the engine reads the database: the loop is watched too.
                await asyncio.to_thread(
                    assert_every_paragraph_accounted_for, service.stores, event.outcome
                )
            yield event

    monkeypatch.setattr(JobService, "run", accounted)


class MemoryKeyring(KeyringBackend):
    """An operating system's keyring, as ``keyring``'s API sees one, kept in memory."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


@pytest.fixture
def memory_keyring() -> MemoryKeyring:
    """A usable keyring for this process, through ``keyring``'s own API."""
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    return backend


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium for a module's browser tests, closed at its end: Playwright's sync API keeps
    an event loop running while it is open, where no other test could ``asyncio.run``, nor
    another module start a browser of its own."""
    expect.set_options(timeout=BROWSER_WAIT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        yield launched
        launched.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def empty_database_url(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A database of the test's kind with nothing in it yet, not even tables."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    cluster: Cluster = request.getfixturevalue("postgresql_cluster")
    with cluster.database(migrated=False) as url:
        yield url


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file migrated once for the whole run: a test's database is a copy of it,
    made in a millisecond where running every migration takes a fifth of a second."""
    folder = tmp_path_factory.mktemp("migrated")
    Database.open(folder).close()
    return folder / DATABASE_FILE


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


def every_row(database: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, to compare the database before and after."""
    with database.engine.connect() as connection:
        return {
            table.name: [
                tuple(row)
                for row in connection.execute(select(table).order_by(*table.primary_key.columns))
            ]
            for table in Base.metadata.sorted_tables
        }


def every_value(database: Database) -> str:
    """The text of every value in every table the database holds, those honyaku does not
    declare too (the job queue's, Alembic's): to search it all for what must not be there."""
    tables = MetaData()
    tables.reflect(database.engine)
    with database.engine.connect() as connection:
        return "\n".join(
            repr(tuple(row))
            for table in tables.sorted_tables
            for row in connection.execute(select(table))
        )


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
