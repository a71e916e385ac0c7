"""How long honyaku waits for a model server, and the clock that enforces it.

Three bounds, because a server can fail in three ways that look alike from outside:

- **first byte**: from sending a request to the reply's first content. A local server on a
  CPU reads a long prompt for minutes before its first token, so this one is generous;
- **idle**: between two chunks of a reply that has started. A server that stops mid-reply
  is stuck, and this one is short;
- **budget**: one request with all its retries (``RetryPolicy.budget_s``). A server that
  accepts connections and never answers is given up on after this long, not after every
  retry's first-byte bound in turn.

Only chunks that carry data count: a proxy's keep-alive comments are not a reply. Each bound
is a setting (``Timeouts.from_environment``), and the message on giving up names it. Where
honyaku has learned a server's pace, the first two are lengthened for its replies as that pace
says (``domain.pace``, ``llm.pace``), never shortened.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from honyaku.domain.pace import ReplyTiming
from honyaku.errors import ConfigError, CutStreamError, TransientProviderError

T = TypeVar("T")

FIRST_BYTE_TIMEOUT_S = 600.0
IDLE_TIMEOUT_S = 120.0
REQUEST_BUDGET_S = 1800.0
CONNECT_TIMEOUT_S = 10.0

FIRST_BYTE_VARIABLE = "HONYAKU_FIRST_BYTE_TIMEOUT_S"
IDLE_VARIABLE = "HONYAKU_IDLE_TIMEOUT_S"
BUDGET_VARIABLE = "HONYAKU_REQUEST_BUDGET_S"


@dataclass(frozen=True, slots=True)
class Timeouts:
    first_byte_s: float = FIRST_BYTE_TIMEOUT_S
    idle_s: float = IDLE_TIMEOUT_S
    budget_s: float = REQUEST_BUDGET_S

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> Timeouts:
        """The bounds, each from its ``HONYAKU_*`` variable where set, else the default."""
        return cls(
            first_byte_s=_seconds(environ, FIRST_BYTE_VARIABLE, FIRST_BYTE_TIMEOUT_S),
            idle_s=_seconds(environ, IDLE_VARIABLE, IDLE_TIMEOUT_S),
            budget_s=_seconds(environ, BUDGET_VARIABLE, REQUEST_BUDGET_S),
        )


def _seconds(environ: Mapping[str, str], name: str, default: float) -> float:
    setting = environ.get(name, "").strip()
    if not setting:
        return default
    try:
        seconds = float(setting)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise ConfigError(f"{name} must be a number of seconds above 0, not {setting!r}")
    return seconds


class ReplyClock:
    """The first-byte and idle bounds of one reply, started when its request is sent.

    The reply has begun when its first content arrives (``heard``), not its first chunk: a
    server that sends a role-only chunk and then writes a whole tool call in silence is still
    before its first byte of answer. The clock keeps the times a pace is learned from.
    """

    def __init__(self, first_byte_s: float, idle_s: float) -> None:
        self.first_byte_s = first_byte_s
        self.idle_s = idle_s
        self._now = asyncio.get_running_loop().time
        self.sent_at = self._now()
        self.heard_at: float | None = None
        """When the reply's first content came."""

    def heard(self) -> None:
        """The reply carried content: from now on the idle bound applies."""
        if self.heard_at is None:
            self.heard_at = self._now()

    async def wait(self, step: Awaitable[T]) -> T:
        """``step`` (sending the request, reading a chunk) under the bound that applies now."""
        if self.heard_at is None:
            deadline = self.sent_at + self.first_byte_s
        else:
            deadline = self._now() + self.idle_s
        try:
            async with asyncio.timeout_at(deadline):
                return await step
        except TimeoutError:
            raise self._timed_out() from None

    async def chunks_of(self, reply: AsyncIterator[T]) -> AsyncIterator[T]:
        """The chunks of ``reply``, each under its bound."""
        while True:
            try:
                chunk = await self.wait(anext(reply))
            except StopAsyncIteration:
                return
            yield chunk

    def timing(self, prompt_tokens: int, output_tokens: int) -> ReplyTiming:
        """The reply's timing, as it ends now."""
        now = self._now()
        heard = now if self.heard_at is None else self.heard_at
        return ReplyTiming(prompt_tokens, output_tokens, heard - self.sent_at, now - self.sent_at)

    def _timed_out(self) -> TransientProviderError:
        if self.heard_at is not None:
            return CutStreamError(
                f"the reply stalled: nothing for {self.idle_s:g} s (the idle bound; "
                f"set {IDLE_VARIABLE} to wait longer)"
            )
        return TransientProviderError(
            f"no reply from the model server within {self.first_byte_s:g} s (the first-byte "
            f"bound; a slow local server may need more: set {FIRST_BYTE_VARIABLE})"
        )
