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
from rich.console import Console

from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.cli.progress import print_summary
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.domain.pricing import Prices
from honyaku.errors import AuthError, FallbackUnavailableError
from honyaku.jobs import JobEvent, JobFinished, JobOutcome, JobRequest, RoundStarted
from honyaku.store import Library
from honyaku.testing import Blocked, ContentFilter, FakeLLMServer, pseudo_translation
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
    max_examples=16,
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


# -- a short story a filter refuses in places ----------------------------------------------

STORY = (
    (
        "第一話　秋の夜",
        13,
        {4: "蟋蟀が一匹、縁側の下で鳴いている。", 9: "太刀を抜いた侍が庭に立っていた。"},
    ),
    ("第二話　梯子", 10, {3: "梯子を掛けて、男は屋根に登った。"}),
    ("第三話　朝", 16, {7: "蟋蟀はもう鳴かなかった。", 12: "太刀は蔵にしまわれた。"}),
)
"""Three short episodes, 39 paragraphs: a few paragraphs, and one title, hold words a filter
may refuse."""


def a_short_story(library: Library) -> str:
    chapters = []
    for title, size, special in STORY:
        lines = tuple(
            special.get(n, f"{title[:3]}の{n + 1}。秋の虫が鳴いていた。") for n in range(size)
        )
        chapters.append(ChapterDraft(title, lines))
    draft = BookDraft("虫の声", tuple(chapters))
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")


def refused_by(words: set[str], library: Library, book_id: str) -> set[str]:
    """The paragraphs and titles (by id) holding one of ``words``."""
    chapters = library.whole_book(book_id).chapters
    found = {c.id for c in chapters if any(w in c.title for w in words)}
    return found | {
        p.id for c in chapters for p in c.work_paragraphs if any(w in p.text for w in words)
    }


@pytest.mark.backends("sqlite")
def test_runs_in_a_row_name_exactly_what_the_filter_refused_and_translate_the_rest(
    honyaku: Honyaku, library: Library
):
    # bench/rounds.py runs the same twenty times in a row.
    word_sets = ({"梯子", "太刀"}, {"蟋蟀", "梯子", "太刀"})
    with FakeLLMServer() as server:
        for run in range(6):
            # Given the story, and a filter refusing some of its words (a title's among them)
            words = word_sets[run % 2]
            server.filter = ContentFilter(words=words)
            book_id = a_short_story(library)
            choice = ModelChoice("fake-model", server.url, protocol=ToolProtocol.NATIVE)
            request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, concurrency=1 + run % 6)

            # When it is translated with no fallback, at 1 to 6 chapters at once
            async def events(
                request: JobRequest = request, choice: ModelChoice = choice
            ) -> list[JobEvent]:
                return [event async for event in honyaku.jobs.run(request, choice)]

            finished = asyncio.run(events())[-1]

            # Then exactly what the filter refused is left, with its reason; all else is done
            assert isinstance(finished, JobFinished)
            left = finished.outcome.left
            assert {item.id for item in left} == refused_by(words, library, book_id), run
            assert {item.reason.split(" (")[0] for item in left} == {
                "refused by the provider's filter"
            }
            for chapter in library.whole_book(book_id).chapters:
                if chapter.id not in {item.id for item in left}:
                    assert chapter.translated_title == pseudo_translation(chapter.title)


@pytest.mark.backends("sqlite")
def test_a_refused_shared_conversation_gives_the_innocent_chapters_back_whole(
    honyaku: Honyaku, library: Library
):
    # Given the story's three short episodes, and a filter refusing a word of the second
    book_id = a_short_story(library)
    with FakeLLMServer(filter=ContentFilter(words={"梯子"})) as server:
        choice = ModelChoice("fake-model", server.url, protocol=ToolProtocol.NATIVE)
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, concurrency=1)

        # When it is translated
        async def events() -> list[JobEvent]:
            return [event async for event in honyaku.jobs.run(request, choice)]

        seen = asyncio.run(events())
        openings = [
            next(m["content"] for m in body["messages"] if m["role"] == "user")
            for body in server.requests
            if [m["role"] for m in body["messages"]] == ["system", "user"]
        ]

    # Then the three shared one conversation, refused; then the first and third episodes
    # each finished in its first conversation alone, whole, and no round touched them
    first, second, third = library.whole_book(book_id).chapters
    assert all(c.id in openings[0] for c in (first, second, third))
    alone = openings[1:]
    for innocent in (first, third):
        mine = [o for o in alone if innocent.id in o]
        assert len(mine) == 1
        assert all(p.id in mine[0] for p in innocent.work_paragraphs)
        assert all(p.translation for p in innocent.work_paragraphs)
    rounds = {e.chapter for e in seen if isinstance(e, RoundStarted)}
    assert rounds == {2}
    finished = seen[-1]
    assert isinstance(finished, JobFinished)
    assert {f.where.chapter for f in finished.outcome.failures} == {2}


@pytest.mark.backends("sqlite")
def test_a_fallback_with_other_prices_is_billed_at_its_own_and_learned_apart(
    honyaku: Honyaku, library: Library, jobs
):
    # Given the story, a filter refusing two of its paragraphs' prompts on the first model's
    # server (a refused prompt is not billed), and a fallback at other prices
    primary, fallback = Prices(2.0, 8.0, 0.5), Prices(0.3, 1.2, 0.1)
    book_id = a_short_story(library)
    refusing = ContentFilter(words={"太刀"}, blocked=Blocked.PROMPT)
    with FakeLLMServer(filter=refusing) as server, FakeLLMServer() as other:
        choice = ModelChoice(
            "fake-model",
            server.url,
            protocol=ToolProtocol.NATIVE,
            prices=primary,
            fallbacks=(
                ModelChoice(
                    "fallback-model", other.url, protocol=ToolProtocol.NATIVE, prices=fallback
                ),
            ),
        )
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION)

        # When it is translated
        async def events() -> list[JobEvent]:
            return [event async for event in honyaku.jobs.run(request, choice)]

        finished = asyncio.run(events())[-1]
        billed = {
            name: billed_at(s, p)
            for name, s, p in (("fake-model", server, primary), ("fallback-model", other, fallback))
        }
        answered = {"fake-model": len(server.bills), "fallback-model": len(other.bills)}

    # Then every paragraph is done, the fallback having taken the two refused ones
    assert isinstance(finished, JobFinished)
    outcome = finished.outcome
    assert outcome.ok
    assert not outcome.left
    # And the job's bill is each model's at its own prices, which the summary shows apart
    assert outcome.spent == pytest.approx(sum(billed.values()))
    for model, bill in billed.items():
        assert outcome.spent_by(model) == pytest.approx(bill)
    shown = Console(record=True, width=200)
    print_summary(shown, outcome)
    lines = shown.export_text()
    assert all(f"{model}" in lines for model in billed)
    # And each model learns from its own replies only
    for model, count in answered.items():
        assert jobs.model_record(model, JobKind.TRANSLATION).requests == count


def billed_at(server: FakeLLMServer, prices: Prices) -> float:
    return sum(
        prices.cost(
            b.prompt.tokens - b.prompt.cached_tokens, b.prompt.cached_tokens, b.output_tokens
        )
        for b in server.bills
    )


@pytest.mark.backends("sqlite")
def test_a_fallback_whose_key_is_refused_stops_the_job_before_its_first_request(
    honyaku: Honyaku, library: Library, monkeypatch: pytest.MonkeyPatch
):
    # Given a fallback whose server refuses the key the environment holds for it
    monkeypatch.setenv("HONYAKU_TEST_FALLBACK_KEY", "sk-wrong-5b0e7d2c9a41f386")
    book_id = a_short_story(library)
    with FakeLLMServer() as server, FakeLLMServer(api_key="sk-right-0d9c8b7a6f5e4d3c") as other:
        fallback = ModelChoice(
            "fallback-model", other.url, "HONYAKU_TEST_FALLBACK_KEY", protocol=ToolProtocol.NATIVE
        )
        choice = ModelChoice(
            "fake-model", server.url, protocol=ToolProtocol.NATIVE, fallbacks=(fallback,)
        )
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION)

        # When the job starts
        async def events() -> list[JobEvent]:
            return [event async for event in honyaku.jobs.run(request, choice)]

        with pytest.raises(FallbackUnavailableError) as refused:
            asyncio.run(events())

        # Then nothing was sent to the model chosen, and the one line names the fallback
        assert server.requests == []
    line = str(refused.value)
    assert "\n" not in line
    assert line.startswith("the fallback model fallback-model: ")
    assert "refused the API key" in line


@pytest.mark.backends("sqlite")
def test_a_fallback_that_fails_on_its_first_request_fails_only_what_it_was_given(
    honyaku: Honyaku, library: Library
):
    # Given a filter refusing one word of the story, and a fallback whose server wants a key
    # it was never given (nothing to check before the job begins)
    book_id = a_short_story(library)
    with (
        FakeLLMServer(filter=ContentFilter(words={"梯子"})) as server,
        FakeLLMServer(api_key="sk-right-4e3d2c1b0a9f8e7d") as other,
    ):
        fallback = ModelChoice("fallback-model", other.url, protocol=ToolProtocol.NATIVE)
        choice = ModelChoice(
            "fake-model", server.url, protocol=ToolProtocol.NATIVE, fallbacks=(fallback,)
        )
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION)

        # When the story is translated
        async def events() -> list[JobEvent]:
            return [event async for event in honyaku.jobs.run(request, choice)]

        finished = asyncio.run(events())[-1]

    # Then the job ran to its end: what the filter refused is left, the fallback named as why
    assert isinstance(finished, JobFinished)
    left = finished.outcome.left
    assert {item.id for item in left} == refused_by({"梯子"}, library, book_id)
    for item in left:
        assert item.reason.startswith("the fallback model could not start: fallback-model (")
        assert "API key" in item.reason
    assert finished.outcome.paragraphs_done == finished.outcome.paragraphs_total - 1
