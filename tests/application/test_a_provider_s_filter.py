"""A provider whose filter refuses one paragraph of a part of 40: the book still finishes.

The fake servers filter as Azure OpenAI, Gemini and Claude's classifiers do: a request holding
the word 血 is refused, at its prompt or midway through its reply. The part that holds it fails
with the filter's reason on its first request, neither retried as it was nor nudged as a model that
stopped early; rounds split it until the refused paragraph stands alone, and a fallback model,
where the run names one, translates that paragraph.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from honyaku.agent.loop import Nudged
from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.domain.failures import FailureClass
from honyaku.domain.pricing import Prices
from honyaku.errors import AuthError, SpendingCapReached
from honyaku.jobs import ChunkEvent, JobEvent, JobFinished, JobRequest, RoundStarted
from honyaku.store import Library
from honyaku.testing import (
    Blocked,
    ContentFilter,
    FakeAnthropicServer,
    FakeGeminiServer,
    FakeLLMServer,
    pseudo_translation,
)
from honyaku.testing.fake_anthropic import MODEL_NAME as ANTHROPIC_MODEL

WORD = "血"
PARAGRAPHS = 40
REFUSED_AT = 27
WAYS = [
    ("openai", ToolProtocol.NATIVE, Blocked.REPLY),
    ("openai", ToolProtocol.NATIVE, Blocked.PROMPT),
    ("openai", ToolProtocol.XML, Blocked.REPLY),
    ("gemini", ToolProtocol.NATIVE, Blocked.REPLY),
    ("gemini", ToolProtocol.NATIVE, Blocked.PROMPT),
    ("gemini", ToolProtocol.XML, Blocked.PROMPT),
    ("anthropic", ToolProtocol.NATIVE, Blocked.REPLY),
    ("anthropic", ToolProtocol.XML, Blocked.PROMPT),
]
IDS = [f"{api}-{protocol.value}-{blocked.value}" for api, protocol, blocked in WAYS]
REASONS = {
    "openai": "refused by the provider's filter (content_filter: violence)",
    "gemini": "refused by the provider's filter (SAFETY: HARM_CATEGORY_DANGEROUS_CONTENT)",
    "anthropic": "refused by the provider's filter (refusal: cyber)",
}
MODELS = {"anthropic": ANTHROPIC_MODEL}
"""The model each fake serves by name, where it knows only some (Anthropic's Models API)."""


def forty_paragraphs(library: Library) -> str:
    """One chapter of 40 paragraphs, planned as one part; its 27th is one a filter refuses."""
    lines = [f"第{n}段。下人は羅生門の下で雨やみを待っていた。" for n in range(1, PARAGRAPHS + 1)]
    lines[REFUSED_AT - 1] = "老婆は血を流して倒れた。"
    draft = BookDraft("羅生門", (ChapterDraft("一", tuple(lines)),))
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")


@pytest.fixture
def book_id(library: Library) -> str:
    return forty_paragraphs(library)


@contextmanager
def filtering(
    api: str, blocked: Blocked
) -> Iterator[FakeLLMServer | FakeGeminiServer | FakeAnthropicServer]:
    """The fake server of ``api`` (a provider kind's name), refusing any request with WORD."""
    rule = ContentFilter(words={WORD}, blocked=blocked)
    fakes = {"gemini": FakeGeminiServer, "anthropic": FakeAnthropicServer}
    server = fakes.get(api, FakeLLMServer)(filter=rule)
    with server:
        yield server


def run(
    honyaku: Honyaku, book_id: str, model: ModelChoice, max_cost: float | None = None
) -> list[JobEvent]:
    request = JobRequest(
        book_id=book_id, kind=JobKind.TRANSLATION, chunk_chars=6000, max_cost=max_cost
    )

    async def events() -> list[JobEvent]:
        return [event async for event in honyaku.jobs.run(request, model)]

    return asyncio.run(events())


@pytest.mark.backends("sqlite")  # the database plays no part in how a filter is told
@pytest.mark.parametrize(("api", "protocol", "blocked"), WAYS, ids=IDS)
def test_one_refused_paragraph_of_forty_is_left_with_the_filter_as_its_reason(
    honyaku: Honyaku, library: Library, book_id: str, api, protocol, blocked
):
    # Given a provider whose filter refuses any request holding one paragraph of the part
    with filtering(api, blocked) as server:
        # When the part is translated
        name = MODELS.get(api, "fake-model")
        model = ModelChoice(name, server.url, protocol=protocol, provider=api)
        events = run(honyaku, book_id, model)

    # Then 39 paragraphs and the title are translated, in one run, and one is left, with why
    finished = events[-1]
    assert isinstance(finished, JobFinished)
    [left] = finished.outcome.left
    assert (left.position, left.reason) == (REFUSED_AT, REASONS[api])
    [chapter] = library.whole_book(book_id).chapters
    done = [p for p in chapter.work_paragraphs if p.translation == pseudo_translation(p.text)]
    assert len(done) == PARAGRAPHS - 1
    assert chapter.translated_title == pseudo_translation("一")
    # Each refusal ended its conversation at once: no reminder, no same request sent again
    assert not [e for e in events if isinstance(e, ChunkEvent) and isinstance(e.event, Nudged)]
    rounds = [e for e in events if isinstance(e, RoundStarted)]
    assert server.filtered == len(rounds) + 1
    assert all(
        failure.failure.kind is FailureClass.FILTERED for failure in finished.outcome.failures
    )


@pytest.mark.parametrize("api", ["openai", "gemini"])
def test_a_fallback_model_translates_the_paragraph_the_first_ones_filter_refused(
    honyaku: Honyaku, library: Library, book_id: str, api: str
):
    # Given a filtering provider, and a fallback model on another server
    with filtering(api, Blocked.REPLY) as server, FakeLLMServer() as other:
        fallback = ModelChoice("fallback-model", other.url)
        model = ModelChoice("fake-model", server.url, provider=api, fallbacks=(fallback,))

        # When the book is translated
        events = run(honyaku, book_id, model)

    # Then all 40 are translated; the refused one alone went to the fallback, as its version says
    finished = events[-1]
    assert isinstance(finished, JobFinished)
    assert finished.outcome.ok
    assert not finished.outcome.left
    [chapter] = library.whole_book(book_id).chapters
    assert all(p.translation == pseudo_translation(p.text) for p in chapter.work_paragraphs)
    writers = {
        position: [v.model for v in library.versions(book_id, p.id)]
        for position, p in enumerate(chapter.work_paragraphs, 1)
    }
    assert writers.pop(REFUSED_AT) == ["fallback-model"]
    assert set(map(tuple, writers.values())) == {("fake-model",)}
    assert len(other.requests) <= 3


def test_a_refused_key_stops_the_job_at_once_and_nothing_is_tried_again(
    honyaku: Honyaku, book_id: str, monkeypatch: pytest.MonkeyPatch
):
    # Given a server that refuses the key, and a fallback model that would take it
    monkeypatch.setenv("HONYAKU_TEST_API_KEY", "sk-wrong-4f1c9e2ab7d35e60")
    with FakeLLMServer(api_key="sk-right-0b6a5d1f3c2e9874") as server, FakeLLMServer() as other:
        fallback = ModelChoice("fallback-model", other.url)
        model = ModelChoice("fake-model", server.url, "HONYAKU_TEST_API_KEY", fallbacks=(fallback,))

        # When the book is translated
        with pytest.raises(AuthError):
            run(honyaku, book_id, model)

    # Then its one request was refused, and no round nor fallback came after it
    assert len(server.requests) == 1
    assert other.requests == []


def test_the_spending_cap_holds_across_rounds_and_fallbacks(
    honyaku: Honyaku, library: Library, book_id: str
):
    prices = Prices(input=2.0, output=8.0, cached_input=0.5)
    rule = ContentFilter(words={WORD})

    def spent(*servers: FakeLLMServer) -> float:
        return sum(
            prices.cost(
                b.prompt.tokens - b.prompt.cached_tokens, b.prompt.cached_tokens, b.output_tokens
            )
            for s in servers
            for b in s.bills
        )

    def translated_with(cap: float | None, book: str) -> tuple[float, list[JobEvent]]:
        with FakeLLMServer(filter=rule) as server, FakeLLMServer() as other:
            fallback = ModelChoice("fallback-model", other.url, prices=prices)
            model = ModelChoice("fake-model", server.url, prices=prices, fallbacks=(fallback,))
            try:
                events = run(honyaku, book, model, max_cost=cap)
            except SpendingCapReached:
                events = []
            return spent(server, other), events

    # Given what the book costs with its rounds and its fallback
    whole, events = translated_with(None, book_id)
    assert [e for e in events if isinstance(e, RoundStarted)]

    # When a copy is translated with a cap a little below that
    copy = forty_paragraphs(library)
    cap = whole * 0.9
    capped, _ = translated_with(cap, copy)

    # Then every model together spent no more than the cap
    assert 0 < capped <= cap
