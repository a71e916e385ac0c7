"""The base of every wrapper around a provider: what it does not override, it passes through."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from honyaku.llm import ProviderWrapper
from honyaku.llm.events import ReasoningDelta, Response, StreamEvent, TextDelta, Usage, Waiting
from honyaku.llm.messages import AssistantMessage, ChatRequest, UserMessage

SCRIPT: tuple[StreamEvent, ...] = (
    Waiting(2.5),
    ReasoningDelta("考える"),
    TextDelta("訳"),
    Response(AssistantMessage("訳"), "stop", Usage(3, 1)),
)


class Scripted:
    """A provider that streams ``SCRIPT`` for any request, and counts how often it was closed."""

    model = "scripted"

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []
        self.closed = 0

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        for event in SCRIPT:
            yield event

    async def aclose(self) -> None:
        self.closed += 1


class Quoting(ProviderWrapper):
    """A wrapper that changes only the text it streams: each piece in brackets."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        async for event in self.inner.stream(request):
            yield TextDelta(f"「{event.text}」") if isinstance(event, TextDelta) else event


async def streamed(provider: ProviderWrapper, request: ChatRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream(request)]


@pytest.mark.anyio
async def test_a_wrapper_that_overrides_nothing_streams_what_its_provider_streams_and_closes_it():
    inner = Scripted()
    wrapper = ProviderWrapper(inner)
    request = ChatRequest((UserMessage("訳して"),))

    events = await streamed(wrapper, request)
    await wrapper.aclose()

    assert events == list(SCRIPT)
    assert inner.requests == [request]
    assert (wrapper.model, inner.closed) == ("scripted", 1)


@pytest.mark.anyio
async def test_a_wrapper_around_a_wrapper_keeps_the_model_and_closes_the_provider_inside_once():
    inner = Scripted()
    outer = ProviderWrapper(Quoting(inner))

    events = await streamed(outer, ChatRequest((UserMessage("hello"),)))
    await outer.aclose()

    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("「訳」")]
    assert (outer.model, inner.closed) == ("scripted", 1)
