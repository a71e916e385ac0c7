"""A slow but working server is waited for as its pace says; a dead one is still given up on,
within the bound that pace sets. Over real sockets, with every bound scaled down: the
configured first-byte and idle bounds here are half a second and less.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from honyaku.domain.pace import PACE_MARGIN, Pace, ReplyTiming
from honyaku.errors import TransientProviderError
from honyaku.llm.events import Response, StreamEvent, Waiting
from honyaku.llm.messages import ChatRequest, UserMessage, request_tokens
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.pace import ServerPace
from honyaku.llm.timeouts import Timeouts
from honyaku.llm.tool_support import PROBE_TOOL
from honyaku.testing import FakeLLMServer, Silence, SilentServer

SCALED = Timeouts(first_byte_s=0.5, idle_s=0.3)
SILENCE_S = 1.5
"""Longer than both scaled bounds: a server writing a whole call before it sends any."""
SLACK_S = 1.0
REQUEST = ChatRequest(
    (UserMessage(f"Call the {PROBE_TOOL.name} tool with ready set to true."),), (PROBE_TOOL,)
)
"""A request the fake model answers with one whole tool call."""


def learned_pace(reply_s: float) -> Pace:
    """The pace of a server whose earlier reply to ``REQUEST`` came whole after ``reply_s``."""
    tokens = request_tokens(REQUEST)
    pace = Pace.first(ReplyTiming(tokens, 40, first_content_s=reply_s, total_s=reply_s))
    assert pace is not None
    return pace


def provider(url: str, pace: Pace | None = None) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(
        model="fake-translator", base_url=url, pace=ServerPace(SCALED, pace)
    )


async def events_of(model: OpenAICompatibleProvider) -> list[StreamEvent]:
    try:
        return [event async for event in model.stream(REQUEST)]
    finally:
        await model.aclose()


@pytest.fixture
def writer() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.mark.anyio
@pytest.mark.parametrize("where", ["before any chunk", "after the role chunk"])
async def test_a_server_silent_while_it_writes_is_waited_for_when_its_pace_says_so(
    writer: FakeLLMServer, where: str
):
    if where == "before any chunk":
        writer.latency_s = SILENCE_S  # headers, then nothing until the call is whole
    else:
        writer.silent_writing_s = SILENCE_S
    model = provider(writer.url, learned_pace(SILENCE_S))

    events = await events_of(model)

    replies = [e for e in events if isinstance(e, Response)]
    assert len(replies) == 1
    assert replies[0].message.tool_calls
    assert isinstance(events[0], Waiting)
    assert events[0].expected_s == pytest.approx(SILENCE_S)


@pytest.mark.anyio
async def test_without_a_pace_the_same_server_is_given_up_on_at_the_configured_bound(
    writer: FakeLLMServer,
):
    writer.silent_writing_s = SILENCE_S
    started = time.monotonic()

    with pytest.raises(TransientProviderError, match=r"within 0\.5 s"):
        await events_of(provider(writer.url))

    assert time.monotonic() - started < SCALED.first_byte_s + SLACK_S


@pytest.mark.anyio
async def test_a_reply_teaches_its_pace_and_a_slower_next_one_is_waited_for(
    writer: FakeLLMServer,
):
    configured = Timeouts(first_byte_s=1.0, idle_s=0.3)
    model = OpenAICompatibleProvider(
        model="fake-translator", base_url=writer.url, pace=ServerPace(configured)
    )
    writer.latency_s = 0.5  # within the configured bound: nothing is known yet
    try:
        first = [e async for e in model.stream(REQUEST)]
        learned = model.pace.pace
        assert learned is not None
        assert learned.expected_s(request_tokens(REQUEST)) >= 0.5

        writer.latency_s = 1.2  # past the configured bound, within three times the learned
        second = [e async for e in model.stream(REQUEST)]
    finally:
        await model.aclose()

    assert isinstance(first[0], Waiting)
    assert first[0].expected_s is None
    timing = next(e.timing for e in second if isinstance(e, Response))
    assert timing is not None
    assert timing.first_content_s >= 1.2


@pytest.mark.anyio
@pytest.mark.parametrize("silence", [Silence.NEVER_ANSWERS, Silence.HEADERS_ONLY])
async def test_a_dead_server_is_given_up_on_within_the_bound_its_pace_sets(silence: Silence):
    pace = learned_pace(SILENCE_S)
    bound_s = pace.bounds(request_tokens(REQUEST), ServerPace(SCALED).floor).first_byte_s
    assert bound_s == pytest.approx(PACE_MARGIN * SILENCE_S)

    with SilentServer(silence) as dead:
        started = time.monotonic()
        with pytest.raises(TransientProviderError, match=re.escape(f"within {bound_s:g} s")):
            await events_of(provider(dead.url, pace))
        waited_s = time.monotonic() - started

    assert bound_s <= waited_s < bound_s + SLACK_S
