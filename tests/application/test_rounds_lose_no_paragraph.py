"""Rounds cannot lose a paragraph: whatever fails, and however often, every paragraph of a
job's scope ends translated, or listed with its reason.

Over real HTTP to the fake servers: books of one to six chapters, random refusals by a
filter, random failures of whole conversations (the server's pace, a model that stops short,
a context window too small), a key the server refuses, several chapters at once, with and
without a fallback. Every job a test runs is held to the invariant as it ends
(``tests/support/accounting.py``); these scenarios make it work for it.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.errors import AuthError
from honyaku.jobs import JobEvent, JobFinished, JobOutcome, JobRequest
from honyaku.store import Library
from honyaku.testing import ContentFilter, FakeLLMServer, pseudo_translation
from honyaku.testing.context_limit import ContextLimit, Refusal
from honyaku.testing.fake_llm import Fault, FaultKind

KEY_VARIABLE = "HONYAKU_TEST_ROUNDS_KEY"
RIGHT_KEY = "sk-right-7d2e90c4b1a85f36"
FAILURES = (FaultKind.RATE_LIMIT, FaultKind.STOPS)
"""What a conversation's requests meet, at random, beside the filter and the window."""


@dataclass(frozen=True)
class Trouble:
    """What goes wrong in one job."""

    refused: frozenset[int]
    """Paragraphs (by their place in the book) whose word the filter refuses."""
    failing: float
    """The share of conversations that fail for the server's pace or a model stopping."""
    seed: int
    window: int | None
    """The model's context window, where it is small."""
    key_refused: bool
    fallback: bool
    concurrency: int
    chunk_chars: int

    def fault_of(self, body: dict) -> Fault | None:
        """A conversation's fate, the same for each of its requests: picked by its opening."""
        opening = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        digest = hashlib.sha256(f"{self.seed}:{opening}".encode()).digest()
        if digest[0] / 256 >= self.failing:
            return None
        return Fault(FAILURES[digest[1] % len(FAILURES)], 0.0)


@st.composite
def troubles(draw: st.DrawFn) -> tuple[list[int], Trouble]:
    chapters = draw(st.lists(st.integers(1, 12), min_size=1, max_size=6))
    total = sum(chapters)
    refused = draw(st.sets(st.integers(0, total - 1), max_size=5))
    trouble = Trouble(
        frozenset(refused),
        draw(st.sampled_from([0.0, 0.0, 0.15, 0.3])),
        draw(st.integers(0, 2**16)),
        draw(st.none() | st.integers(3_500, 6_000)),
        draw(st.integers(0, 9)) == 0,
        draw(st.booleans()),
        draw(st.integers(1, 8)),
        draw(st.sampled_from([150, 400, 1_200, 6_000])),
    )
    return chapters, trouble


def word(n: int) -> str:
    """The word that makes paragraph ``n`` one the filter refuses."""
    return f"禁句{n:03d}"


def a_book(library: Library, sizes: list[int], refused: frozenset[int]) -> str:
    chapters, n = [], 0
    for order, size in enumerate(sizes, 1):
        lines = []
        for _ in range(size):
            refusal = word(n) if n in refused else ""
            lines.append(f"第{order}章の{n}段。{refusal}下人は雨やみを待っていた。")
            n += 1
        chapters.append(ChapterDraft(f"第{order}話", tuple(lines)))
    return library.add_book(BookDraft("雨", tuple(chapters)), source_lang="ja", target_lang="zh-CN")


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[FakeLLMServer, FakeLLMServer]]:
    with FakeLLMServer() as model, FakeLLMServer() as fallback:
        yield model, fallback


def translate(
    honyaku: Honyaku, book_id: str, trouble: Trouble, model: FakeLLMServer, other: FakeLLMServer
) -> JobOutcome:
    fallbacks = (ModelChoice("fallback-model", other.url, protocol=ToolProtocol.NATIVE),)
    choice = ModelChoice(
        "fake-model",
        model.url,
        KEY_VARIABLE,
        protocol=ToolProtocol.NATIVE,
        fallbacks=fallbacks if trouble.fallback else (),
    )
    request = JobRequest(
        book_id=book_id,
        kind=JobKind.TRANSLATION,
        concurrency=trouble.concurrency,
        chunk_chars=trouble.chunk_chars,
        pace_wait_s=0.0,
    )

    async def events() -> list[JobEvent]:
        seen: list[JobEvent] = []
        try:
            async for event in honyaku.jobs.run(request, choice):
                seen.append(event)
        except AuthError:
            assert trouble.key_refused
        return seen

    finished = asyncio.run(events())[-1]
    assert isinstance(finished, JobFinished)
    return finished.outcome


@settings(
    max_examples=24,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(troubles())
def test_whatever_fails_every_paragraph_ends_translated_or_listed_with_its_reason(
    honyaku: Honyaku,
    library: Library,
    servers: tuple[FakeLLMServer, FakeLLMServer],
    monkeypatch: pytest.MonkeyPatch,
    world: tuple[list[int], Trouble],
):
    sizes, trouble = world
    model, other = servers
    # Given a book, a filter refusing some of its paragraphs, conversations that fail at
    # random, maybe a small window or a refused key, and maybe a fallback
    book_id = a_book(library, sizes, trouble.refused)
    words = {word(n) for n in trouble.refused}
    model.filter = ContentFilter(words=words)
    model.fault_of = trouble.fault_of
    model.context = ContextLimit(trouble.window, Refusal.OPENAI) if trouble.window else None
    model.api_key = RIGHT_KEY
    other.filter = ContentFilter(words=set(sorted(words)[:1]))
    monkeypatch.setenv(KEY_VARIABLE, "sk-wrong-0c81f4a2" if trouble.key_refused else RIGHT_KEY)

    # When it is translated
    outcome = translate(honyaku, book_id, trouble, model, other)

    # Then each paragraph is translated or listed with its reason (the invariant, checked as
    # the job ended); and those the filter did not refuse are translated, unless something
    # else went wrong with them
    chapters = library.whole_book(book_id).chapters
    paragraphs = [p for c in chapters for p in c.work_paragraphs]
    left = {item.id: item for item in outcome.left if item.position is not None}
    assert len(left) == outcome.paragraphs_total - outcome.paragraphs_done
    for n, paragraph in enumerate(paragraphs):
        if paragraph.id in left:
            assert left[paragraph.id].reason
        else:
            assert paragraph.translation == pseudo_translation(paragraph.text)
        if n in trouble.refused and not trouble.fallback:
            assert paragraph.id in left
    quiet = not (trouble.failing or trouble.window or trouble.key_refused or trouble.fallback)
    if quiet:
        # Only the filter: exactly the refused paragraphs are left, refused by the filter
        assert {paragraphs[n].id for n in trouble.refused} == set(left)
        assert all(item.failure and item.failure.kind.value == "filtered" for item in left.values())
