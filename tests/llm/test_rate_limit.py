"""The rate limiter on a clock of its own: requests and tokens per minute, and the server's
word (Retry-After, x-ratelimit-*) holding every request back."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.domain.pricing import RateLimits
from honyaku.llm.rate_limit import RateLimiter


class Clock:
    """Time that passes only when someone sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


class Limiter(RateLimiter):
    """A limiter on its own clock that notes when it let each request through."""

    def __init__(self, limits: RateLimits, clock: Clock) -> None:
        super().__init__(limits, clock=clock, sleep=clock.sleep)
        self.granted: list[float] = []

    async def acquire(self, tokens: int) -> None:
        await super().acquire(tokens)
        self.granted.append(self.clock())


def limiter(limits: RateLimits) -> tuple[Limiter, Clock]:
    clock = Clock()
    return Limiter(limits, clock), clock


def in_any_minute(times: list[float]) -> int:
    return max(sum(1 for t in times if start <= t < start + 60) for start in times)


def test_sixty_rpm_from_eight_callers_at_once_never_puts_61_in_a_minute():
    # Given a 60 RPM limiter and eight chapters asking at once, 25 requests each
    rate, _ = limiter(RateLimits(requests_per_minute=60))

    async def chapter() -> None:
        for _ in range(25):
            await rate.acquire(100)

    async def everyone() -> None:
        await asyncio.gather(*(chapter() for _ in range(8)))

    # When they all run
    asyncio.run(everyone())

    # Then 200 requests went out, never more than 60 in a minute, in just over three minutes
    assert len(rate.granted) == 200
    assert in_any_minute(rate.granted) == 60
    assert rate.granted[-1] == pytest.approx(180)


def test_tokens_per_minute_hold_a_request_until_the_minute_has_room():
    rate, clock = limiter(RateLimits(tokens_per_minute=1000))

    async def three() -> None:
        await rate.acquire(600)
        clock.now = 10
        await rate.acquire(300)
        await rate.acquire(300)

    asyncio.run(three())

    assert rate.granted == [0, 10, 60]


def test_retry_after_and_ratelimit_headers_hold_every_request():
    rate, _ = limiter(RateLimits(requests_per_minute=1000))

    async def scenario() -> None:
        rate.hold(2.5)
        await rate.acquire(1)
        rate.observe({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s"})
        await rate.acquire(1)
        rate.observe({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "20ms"})
        await rate.acquire(1)
        rate.observe({"x-ratelimit-remaining-tokens": "5", "x-ratelimit-reset-tokens": "1s"})
        await rate.acquire(1)

    asyncio.run(scenario())

    assert rate.granted == pytest.approx([2.5, 362.5, 362.52, 362.52])
