"""Keeping to a provider's rate limits: requests and tokens per minute, for the whole process.

A ``RateLimiter`` counts what was sent in the last minute (a sliding window) and makes the next
request wait until it fits under both limits. One limiter serves every chapter and every job of
the process that uses the same model profile (``shared_limiter``), so eight chapters at once
still send no more than the profile allows.

The server has the last word: a 429's ``Retry-After`` holds every request back until then, and
so do ``x-ratelimit-remaining-requests`` or ``-tokens`` at 0, until their ``x-ratelimit-reset-…``
time. A request's tokens are honyaku's estimate of its prompt (``domain.tokens``).

The clock and the sleep are injectable, so a test can run a real rate in no time.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from honyaku.domain.pricing import RateLimits
from honyaku.errors import RateLimitedError
from honyaku.llm.events import ChatProvider, StreamEvent
from honyaku.llm.messages import ChatRequest, request_tokens

WINDOW_S = 60.0
_NUMBER = r"(\d+(?:\.\d+)?)"
_DURATION = re.compile(rf"(?:{_NUMBER}h)?(?:{_NUMBER}m(?!s))?(?:{_NUMBER}s)?(?:(\d+)ms)?")


@dataclass
class RateLimiter:
    limits: RateLimits
    window_s: float = WINDOW_S
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    _sent: deque[tuple[float, int]] = field(default_factory=deque)
    _held_until: float = 0.0

    async def acquire(self, tokens: int) -> None:
        """Wait until a request of ``tokens`` fits, then count it as sent. Nothing awaits
        between the last check and the count, so concurrent callers never overshoot."""
        while (wait := self._wait_s(tokens)) > 0:
            await self.sleep(wait)
        self._sent.append((self.clock(), tokens))

    def hold(self, seconds: float) -> None:
        """Send nothing for ``seconds``: the server said so."""
        self._held_until = max(self._held_until, self.clock() + seconds)

    def observe(self, headers: Mapping[str, str]) -> None:
        """Read a response's ``x-ratelimit-*`` headers: none left means wait for the reset."""
        for kind in ("requests", "tokens"):
            remaining = headers.get(f"x-ratelimit-remaining-{kind}")
            reset = _seconds(headers.get(f"x-ratelimit-reset-{kind}", ""))
            if remaining is not None and remaining.strip() == "0" and reset:
                self.hold(reset)

    def _wait_s(self, tokens: int) -> float:
        now = self.clock()
        while self._sent and self._sent[0][0] <= now - self.window_s:
            self._sent.popleft()
        waits = [self._held_until - now]
        rpm, tpm = self.limits.requests_per_minute, self.limits.tokens_per_minute
        if rpm and len(self._sent) >= rpm:
            waits.append(self._sent[len(self._sent) - rpm][0] + self.window_s - now)
        if tpm and self._sent:
            waits.append(self._tokens_wait(now, min(tokens, tpm), tpm))
        return max(waits)

    def _tokens_wait(self, now: float, tokens: int, tpm: int) -> float:
        """Until enough of the window's tokens have aged out for ``tokens`` (≤ ``tpm``) more."""
        excess = sum(n for _, n in self._sent) + tokens - tpm
        for sent_at, n in self._sent:
            if excess <= 0:
                break
            excess -= n
            if excess <= 0:
                return sent_at + self.window_s - now
        return 0.0


def _seconds(text: str) -> float:
    """``6m0s``, ``1.5s``, ``20ms`` or plain seconds, as OpenAI writes reset times."""
    text = text.strip()
    if not text:
        return 0.0
    try:
        return float(text)
    except ValueError:
        pass
    match = _DURATION.fullmatch(text)
    if not match or not any(match.groups()):
        return 0.0
    hours, minutes, seconds, millis = (float(g) if g else 0.0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds + millis / 1000


_SHARED: dict[str, RateLimiter] = {}


def shared_limiter(key: str, limits: RateLimits) -> RateLimiter:
    """The process's one limiter for ``key`` (a model profile), made on first use."""
    limiter = _SHARED.get(key)
    if limiter is None or limiter.limits != limits or limiter.window_s != WINDOW_S:
        limiter = _SHARED[key] = RateLimiter(limits, WINDOW_S)
    return limiter


class RateLimitedProvider:
    """A provider whose every request waits for its limiter first; a 429 holds the limiter
    for the server's ``Retry-After`` before the error goes on to be retried."""

    def __init__(self, inner: ChatProvider, limiter: RateLimiter) -> None:
        self.inner = inner
        self.model = inner.model
        self.limiter = limiter

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        await self.limiter.acquire(request_tokens(request))
        try:
            async for event in self.inner.stream(request):
                yield event
        except RateLimitedError as exc:
            if exc.retry_after_s:
                self.limiter.hold(exc.retry_after_s)
            raise

    async def aclose(self) -> None:
        await self.inner.aclose()
