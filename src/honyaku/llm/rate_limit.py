"""Keeping to a provider's rate limits: requests and tokens per minute, for the whole process
or for every process on a shared database.

A ``RateLimiter`` counts what was sent in the last minute (``PERIOD_S``, a period that slides
with the clock) and makes the next request wait until it fits under both limits. One limiter
serves every chapter and every job of the process that uses the same model profile
(``shared_limiter``), so eight chapters at once still send no more than the profile allows.
Its log of the minute's sends is kept in this process (``ProcessLog``) or, on a shared
database, in the database (``SharedLog``): workers on several machines then send no more
together than the profile allows.

The server has the last word: a 429's ``Retry-After`` holds every request back until then, and
so do ``x-ratelimit-remaining-requests`` or ``-tokens`` at 0, until their ``x-ratelimit-reset-…``
time, and Anthropic's ``anthropic-ratelimit-…-remaining`` (of requests, tokens, input or
output tokens) at 0, until their ``-reset`` (an RFC 3339 time). A request's tokens are
honyaku's estimate of its prompt (``domain.tokens``).

The clock and the sleep are injectable, so a test can run a real rate in no time.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Protocol

from honyaku.domain.pricing import RateLimits
from honyaku.errors import RateLimitedError
from honyaku.llm.events import ChatProvider, StreamEvent
from honyaku.llm.messages import ChatRequest, request_tokens
from honyaku.llm.wrapper import ProviderWrapper

PERIOD_S = 60.0
"""The period a limit counts over: requests and tokens per minute."""
_NUMBER = r"(\d+(?:\.\d+)?)"
_DURATION = re.compile(rf"(?:{_NUMBER}h)?(?:{_NUMBER}m(?!s))?(?:{_NUMBER}s)?(?:(\d+)ms)?")


Decide = Callable[[Sequence[tuple[float, int]], float], float]
"""Given the period's sends (time, tokens) and the time held until, the seconds to wait."""


class SendLog(Protocol):
    """Where a limiter keeps the sends of its last period: in this process, or shared
    (``SharedLog``)."""

    async def admit(self, now: float, tokens: int, period_s: float, decide: Decide) -> float:
        """Count a send of ``tokens`` at ``now`` if ``decide`` lets it go; else the wait."""
        ...

    def hold(self, until: float) -> None: ...


@dataclass
class ProcessLog:
    """The log in this process's memory: every chapter and job here shares it."""

    _sent: deque[tuple[float, int]] = field(default_factory=deque)
    _held_until: float = 0.0

    async def admit(self, now: float, tokens: int, period_s: float, decide: Decide) -> float:
        # Nothing awaits between the check and the count: concurrent callers never overshoot.
        while self._sent and self._sent[0][0] <= now - period_s:
            self._sent.popleft()
        wait = decide(self._sent, self._held_until)
        if wait <= 0:
            self._sent.append((now, tokens))
        return wait

    def hold(self, until: float) -> None:
        self._held_until = max(self._held_until, until)


class SharedRateLog(Protocol):
    """Every limit's log, by key, kept where every process can count in it (the database's
    ``store.RateLog``); blocking."""

    def admit(
        self, key: str, now: float, period_s: float, tokens: int, decide: Decide
    ) -> float: ...

    def hold(self, key: str, until: float) -> None: ...


class SharedLog:
    """The log of ``key`` kept in a ``SharedRateLog``, for every process on it: each send
    is counted there under the key's lock. Times are the wall clock's, the same on every
    machine (give or take NTP)."""

    def __init__(self, rate_log: SharedRateLog, key: str) -> None:
        self.rate_log, self.key = rate_log, key
        self._holds: set[asyncio.Task[None]] = set()

    async def admit(self, now: float, tokens: int, period_s: float, decide: Decide) -> float:
        return await asyncio.to_thread(self.rate_log.admit, self.key, now, period_s, tokens, decide)

    def hold(self, until: float) -> None:
        # Told from inside a reply's stream: written in the background, the stream goes on.
        task = asyncio.get_running_loop().create_task(
            asyncio.to_thread(self.rate_log.hold, self.key, until)
        )
        self._holds.add(task)
        task.add_done_callback(self._holds.discard)


@dataclass
class RateLimiter:
    limits: RateLimits
    period_s: float = PERIOD_S
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    log: SendLog = field(default_factory=ProcessLog)

    async def acquire(self, tokens: int) -> None:
        """Wait until a request of ``tokens`` fits, then count it as sent."""
        while True:
            now = self.clock()
            wait = await self.log.admit(
                now, tokens, self.period_s, partial(self._wait_s, now, tokens)
            )
            if wait <= 0:
                return
            await self.sleep(wait)

    def hold(self, seconds: float) -> None:
        """Send nothing for ``seconds``: the server said so."""
        self.log.hold(self.clock() + seconds)

    def observe(self, headers: Mapping[str, str]) -> None:
        """Read a response's ``x-ratelimit-*`` (OpenAI's) or ``anthropic-ratelimit-*``
        headers: none left means wait for the reset."""
        for kind in ("requests", "tokens"):
            remaining = headers.get(f"x-ratelimit-remaining-{kind}")
            reset = _seconds(headers.get(f"x-ratelimit-reset-{kind}", ""))
            if remaining is not None and remaining.strip() == "0" and reset:
                self.hold(reset)
        for kind in ANTHROPIC_LIMITS:
            remaining = headers.get(f"anthropic-ratelimit-{kind}-remaining")
            reset = _seconds_until(headers.get(f"anthropic-ratelimit-{kind}-reset", ""))
            if remaining is not None and remaining.strip() == "0" and reset:
                self.hold(reset)

    def _wait_s(
        self, now: float, tokens: int, sent: Sequence[tuple[float, int]], held_until: float
    ) -> float:
        sent = [s for s in sent if s[0] > now - self.period_s]
        waits = [held_until - now]
        rpm, tpm = self.limits.requests_per_minute, self.limits.tokens_per_minute
        if rpm and len(sent) >= rpm:
            waits.append(sent[len(sent) - rpm][0] + self.period_s - now)
        if tpm and sent:
            waits.append(self._tokens_wait(sent, now, min(tokens, tpm), tpm))
        return max(waits)

    def _tokens_wait(
        self, sent: Sequence[tuple[float, int]], now: float, tokens: int, tpm: int
    ) -> float:
        """Until enough of the period's tokens have aged out for ``tokens`` (≤ ``tpm``) more."""
        excess = sum(n for _, n in sent) + tokens - tpm
        for sent_at, n in sent:
            if excess <= 0:
                break
            excess -= n
            if excess <= 0:
                return sent_at + self.period_s - now
        return 0.0


ANTHROPIC_LIMITS = ("requests", "tokens", "input-tokens", "output-tokens")


def _seconds_until(moment: str) -> float:
    """Seconds from now until an RFC 3339 time (``2026-01-12T05:59:14Z``); 0 if unreadable."""
    try:
        until = datetime.fromisoformat(moment.strip().replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    if until.tzinfo is None:
        return 0.0
    return max(0.0, (until - datetime.now(UTC)).total_seconds())


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


_SHARED: dict[tuple[str, bool], RateLimiter] = {}


def shared_limiter(
    key: str, limits: RateLimits, rate_log: SharedRateLog | None = None
) -> RateLimiter:
    """The process's one limiter for ``key`` (a model profile), made on first use; its sends
    kept in ``rate_log`` for every process on it, where given."""
    shared = rate_log is not None
    limiter = _SHARED.get((key, shared))
    if limiter is None or limiter.limits != limits or limiter.period_s != PERIOD_S:
        if rate_log is None:
            limiter = RateLimiter(limits, PERIOD_S)
        else:
            limiter = RateLimiter(limits, PERIOD_S, clock=time.time, log=SharedLog(rate_log, key))
        _SHARED[(key, shared)] = limiter
    return limiter


class RateLimitedProvider(ProviderWrapper):
    """A provider whose every request waits for its limiter first; a 429 holds the limiter
    for the server's ``Retry-After`` before the error goes on to be retried."""

    def __init__(self, inner: ChatProvider, limiter: RateLimiter) -> None:
        super().__init__(inner)
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
