"""The one base of every provider that wraps another (retries, rate limits, the XML protocol…).

A wrapper is itself a ``ChatProvider``: it answers to the model of the provider it wraps,
streams what that provider streams, and closes it when closed. A subclass overrides only what
it changes, usually ``stream``, and calls ``self.inner`` for the rest.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from honyaku.llm.events import ChatProvider, StreamEvent
from honyaku.llm.messages import ChatRequest


class ProviderWrapper:
    """A ``ChatProvider`` around ``inner``: the same model, the same stream, closed with it."""

    def __init__(self, inner: ChatProvider) -> None:
        self.inner = inner
        self.model = inner.model

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        return self.inner.stream(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
