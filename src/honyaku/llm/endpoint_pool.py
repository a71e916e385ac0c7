"""One model served at several endpoints (several GPU servers, several keys of one provider),
seen as one provider: each request goes to the endpoint ``domain.endpoints`` chooses, waiting
while every endpoint awake is full; a request an endpoint fails before its first byte goes at
once to another that is awake, unless a content filter refused it (its text would meet the
filter anywhere). What each failure means for its endpoint is
``EndpointHealth``'s rule; the retries after that stay with ``RetryingProvider``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from time import monotonic

from honyaku.domain.endpoints import EndpointHealth, choose_endpoint
from honyaku.errors import (
    AuthError,
    ContentFilteredError,
    ProviderError,
    RateLimitedError,
    TransientProviderError,
    UnreachableError,
)
from honyaku.llm.events import ChatProvider, StreamEvent, Waiting
from honyaku.llm.messages import ChatRequest

log = logging.getLogger("honyaku.llm")


class EndpointPool:
    def __init__(
        self,
        servers: Sequence[ChatProvider],
        names: Sequence[str],
        clock: Callable[[], float] = monotonic,
    ) -> None:
        """``names`` say where each server is, fit to print (no key, no query)."""
        self.model = servers[0].model
        self.servers = list(servers)
        self.names = list(names)
        self.health = [EndpointHealth() for _ in servers]
        self._clock = clock
        self._room_changed = asyncio.Event()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        tried: set[int] = set()
        while True:
            n = await self._take(tried)
            began = False
            try:
                async for event in self.servers[n].stream(request):
                    # Waiting says the request went, not that the reply began.
                    began = began or not isinstance(event, Waiting)
                    yield event
            except ProviderError as exc:
                self._settle(n, self._after(n, exc))
                tried.add(n)
                # A filter's refusal is the text's, not the endpoint's: it is not sent again.
                filtered = isinstance(exc, ContentFilteredError)
                if began or filtered or not self._another_awake(tried):
                    raise
                continue
            except BaseException:
                self._settle(n, self.health[n].released())
                raise
            self._settle(n, self.health[n].succeeded())
            return

    async def aclose(self) -> None:
        for server in self.servers:
            await server.aclose()

    async def _take(self, skip: set[int]) -> int:
        """The endpoint chosen for a request, counted in flight; waits while all are full."""
        while (n := choose_endpoint(self.health, self._clock(), skip=skip)) is None:
            self._room_changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._room_changed.wait(), self._next_wake_s())
        self.health[n] = self.health[n].chosen(self._clock())
        return n

    def _next_wake_s(self) -> float | None:
        now = self._clock()
        waking = [h.resting_until - now for h in self.health if h.resting(now)]
        return min(waking, default=None)

    def _another_awake(self, tried: set[int]) -> bool:
        now = self._clock()
        return any(not h.resting(now) for n, h in enumerate(self.health) if n not in tried)

    def _after(self, n: int, exc: ProviderError) -> EndpointHealth:
        health, now = self.health[n], self._clock()
        if isinstance(exc, RateLimitedError):
            after = health.rate_limited(now, exc.retry_after_s)
            log.info("model endpoint %s: rate limited, %d at once now", self.names[n], after.limit)
            return after
        if isinstance(exc, UnreachableError | AuthError) or _server_failed(exc):
            after = health.failed(now)
            rest_s = after.resting_until - now
            log.warning("model endpoint %s rests %.0f s: %s", self.names[n], rest_s, exc)
            return after
        return health.released()

    def _settle(self, n: int, health: EndpointHealth) -> None:
        self.health[n] = health
        self._room_changed.set()


def _server_failed(exc: ProviderError) -> bool:
    """A failure of the server rather than of the request (which would fail anywhere)."""
    return isinstance(exc, TransientProviderError) and (exc.status_code or 500) >= 500
