"""Translation jobs against the fake Anthropic server, over real HTTP, in both tool protocols.

Anthropic's own API: thinking blocks go back with their signatures or the fake refuses the
turn, every request marks the prompt cache's breakpoints and reads what the one before wrote,
and whatever the network or the classifiers do, every paragraph ends up with its own text or
its reason.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest

from honyaku.domain import JobKind
from honyaku.domain.pricing import Prices
from honyaku.jobs import JobEvent, JobOutcome, JobRequest
from honyaku.llm.anthropic import AnthropicProvider
from honyaku.llm.degeneration import DegenerationGuard
from honyaku.llm.events import ChatProvider
from honyaku.llm.xml import XmlToolProtocol
from honyaku.store import Library, Stores
from honyaku.testing import DRAFT_MARK, Fault, FaultKind
from honyaku.testing.fake_anthropic import FakeAnthropicServer

from .conftest import (
    assert_one_version_each,
    assert_translated_in_place,
    engine,
    retries,
    run_to_end,
    with_retries,
)

pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.protocols("native", "xml")]

SONNET = Prices(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
"""Claude Sonnet's prices per million tokens, as genai-prices lists them."""


@pytest.fixture(scope="module")
def anthropic_server() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as server:
        yield server


@pytest.fixture
def claude(anthropic_server: FakeAnthropicServer) -> FakeAnthropicServer:
    """One fake Anthropic per module, as good as new, caching prefixes of any length."""
    fresh = FakeAnthropicServer()
    for name in ("translator", "delta_chars", "redacts", "filter", "requests_left"):
        setattr(anthropic_server, name, getattr(fresh, name))
    anthropic_server.cache = type(fresh.cache)(min_cacheable_tokens=1)
    for kept in (anthropic_server.faults, anthropic_server.requests, anthropic_server.bills):
        kept.clear()
    return anthropic_server


def run(
    library: Library,
    server: FakeAnthropicServer,
    book_id: str,
    protocol: str,
    *,
    thinking_tokens: int | None = None,
    max_tokens: int | None = None,
    read_timeout_s: float = 30,
    **request: object,
) -> tuple[JobOutcome, list[JobEvent]]:
    provider: ChatProvider = DegenerationGuard(
        AnthropicProvider(
            model="claude-fake-4",
            api_key="test-key",
            base_url=server.url,
            read_timeout_s=read_timeout_s,
            thinking_tokens=thinking_tokens,
            max_tokens=max_tokens,
        )
    )
    if protocol == "xml":
        provider = XmlToolProtocol(provider, language="zh-CN")
    job = run_to_end(
        engine(Stores.over(library.database)),
        JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, **request),
        with_retries(provider, protocol),
        prices=SONNET,
    )
    return asyncio.run(job)


def test_a_thinking_model_translates_every_paragraph_and_no_draft_lands(
    library, claude, book_id, protocol
):
    claude.translator.calls_per_reply = 2
    claude.translator.heeds_invitations = False
    claude.redacts = True

    outcome, _ = run(library, claude, book_id, protocol, thinking_tokens=2048, concurrency=1)

    assert outcome.ok
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)
    book = library.whole_book(book_id)
    assert all(DRAFT_MARK not in (p.translation or "") for c in book.chapters for p in c.paragraphs)
    replies = [m for body in claude.requests for m in body["messages"] if m["role"] == "assistant"]
    assert replies
    # Each reply went back as it came, its thinking first with its signature (the fake
    # refuses the turn otherwise), also where the XML protocol rewrote the calls into text.
    assert all(reply["content"][0]["type"] == "thinking" for reply in replies)
    assert outcome.job.cost.reasoning_tokens > 0


def test_each_request_after_the_first_reads_the_prefix_the_one_before_wrote(
    library, claude, book_id, protocol
):
    claude.translator.calls_per_reply = 1
    claude.translator.heeds_invitations = False

    outcome, _ = run(library, claude, book_id, protocol, concurrency=1)

    assert outcome.ok
    bills = claude.bills
    assert len(bills) > 3
    assert bills[0].cache_read_input_tokens == 0
    for before, after in itertools.pairwise(bills):
        # Everything the earlier request sent is read back; only what is new is written.
        assert after.cache_read_input_tokens == before.prompt_tokens
        assert after.cache_creation_input_tokens > 0
    cost = outcome.job.cost
    assert cost.cached_tokens == sum(b.cache_read_input_tokens for b in bills)
    assert cost.cache_write_tokens == sum(b.cache_creation_input_tokens for b in bills)
    assert cost.input_tokens == sum(b.prompt_tokens for b in bills)
    uncached = sum(b.input_tokens for b in bills)
    expected = (
        uncached * 3.0
        + cost.cached_tokens * 0.3
        + cost.cache_write_tokens * 3.75
        + cost.output_tokens * 15.0
    ) / 1_000_000
    assert cost.price(SONNET) == pytest.approx(expected)
    # Without breakpoints the same tokens would all be billed as input.
    assert cost.price(SONNET) < (cost.input_tokens * 3.0 + cost.output_tokens * 15.0) / 1e6


def test_an_overload_a_rate_limit_a_cut_stream_and_an_error_event_are_each_retried(
    library, claude, book_id, protocol
):
    overloaded, limited = Fault(FaultKind.OVERLOADED, 0.05), Fault(FaultKind.RATE_LIMIT, 0.07)
    claude.faults.extend([overloaded, limited, Fault(FaultKind.CUT_STREAM)])
    claude.faults.append(Fault(FaultKind.STREAM_ERROR))

    outcome, events = run(library, claude, book_id, protocol, concurrency=1)

    assert outcome.ok
    assert outcome.job.cost.retries == 4
    waits = [round(retry.delay_s, 2) for retry in retries(events)]
    # The 529 and the 429 waited as long as their retry-after said.
    assert waits[:2] == [0.05, 0.07]
    reasons = [retry.reason for retry in retries(events)]
    assert "529" in reasons[0]
    assert "overloaded_error" in reasons[3]
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)


@pytest.mark.protocols("native")
def test_a_reply_cut_at_max_tokens_is_retried_smaller_and_the_chapter_ends_translated(
    library, claude, book_id, protocol
):
    outcome, _ = run(library, claude, book_id, protocol, max_tokens=220)

    assert outcome.ok
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)
    assert any(bill.output_tokens == 220 for bill in claude.bills)
