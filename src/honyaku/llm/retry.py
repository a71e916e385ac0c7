"""Retrying a provider's transient failures with bounded exponential backoff.

One implementation for every provider: a failed attempt is announced with a ``Retry`` event so
that whoever shows the stream can discard the attempt's partial text, then the request is sent
again. A cut reply is never returned, so its tool calls never run.

Retries stop at ``max_attempts`` or when the request's time budget is spent, whichever comes
first: no retry starts that would begin after the budget. A server that cannot be reached
(``UnreachableError``) gets one quick retry, for a server that is just restarting, and no
backoff: waiting longer would not make it listen.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from time import monotonic, time

from honyaku.errors import (
    ProviderError,
    RetriesSpentError,
    TransientProviderError,
    UnreachableError,
)
from honyaku.llm.events import ChatProvider, Retry, StreamEvent
from honyaku.llm.messages import ChatRequest
from honyaku.llm.timeouts import BUDGET_VARIABLE, REQUEST_BUDGET_S
from honyaku.llm.wrapper import ProviderWrapper

MAX_ATTEMPTS = 6
RETRY_BASE_S = 1.0
MAX_RETRY_DELAY_S = 120.0
UNREACHABLE_ATTEMPTS = 2


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = MAX_ATTEMPTS
    base_s: float = RETRY_BASE_S
    max_delay_s: float = MAX_RETRY_DELAY_S
    budget_s: float = REQUEST_BUDGET_S
    """The most time one request may take with all its retries."""

    def delay_s(self, attempt: int, retry_after_s: float | None = None) -> float:
        """1, 2, 4 … seconds after attempts 1, 2, 3 …; the server's Retry-After wins."""
        if retry_after_s is not None:
            return min(retry_after_s, self.max_delay_s)
        return min(self.base_s * 2 ** (attempt - 1), self.max_delay_s)


class RetryingProvider(ProviderWrapper):
    def __init__(
        self,
        inner: ChatProvider,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(inner)
        self.policy = policy or RetryPolicy()
        self._sleep = sleep

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        attempt, started = 1, monotonic()
        while True:
            try:
                async for event in self.inner.stream(request):
                    yield event
                return
            except UnreachableError as exc:
                if attempt >= UNREACHABLE_ATTEMPTS:
                    raise
                delay, reason = self.policy.base_s, str(exc)
            except TransientProviderError as exc:
                if attempt >= self.policy.max_attempts:
                    raise RetriesSpentError(
                        f"gave up after {attempt} attempts: {exc}", status_code=exc.status_code
                    ) from exc
                delay, reason = self.policy.delay_s(attempt, exc.retry_after_s), str(exc)
                self._give_up_past_budget(exc, attempt, monotonic() - started + delay)
            yield Retry(attempt, delay, reason)
            await self._sleep(delay)
            attempt += 1

    def _give_up_past_budget(self, exc: ProviderError, attempt: int, next_start_s: float) -> None:
        if next_start_s > self.policy.budget_s:
            raise RetriesSpentError(
                f"gave up after {attempt} attempts: the next would start past the "
                f"{self.policy.budget_s:g} s this request may take (set {BUDGET_VARIABLE} "
                f"to allow more): {exc}",
                status_code=exc.status_code,
            ) from exc


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """The server's ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``."""
    if value := headers.get("retry-after-ms"):
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time())
    except (TypeError, ValueError):
        return None
