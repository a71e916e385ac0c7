"""The pace of one model on one server, as a connection learns it: the bounds each reply is
held to, how long it should take, and each reply's timing folded in and kept for next time.

The rules are ``domain.pace``'s; this holds the pace of one open connection, and hands every
change to ``remember`` (the store, off the event loop), so the next job starts from it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from honyaku.domain.pace import Bounds, Pace, ReplyTiming
from honyaku.llm.timeouts import ReplyClock, Timeouts


class ServerPace:
    def __init__(
        self,
        timeouts: Timeouts,
        pace: Pace | None = None,
        remember: Callable[[Pace], None] | None = None,
    ) -> None:
        self.floor = Bounds(timeouts.first_byte_s, timeouts.idle_s)
        """The configured bounds: a pace lengthens them, never shortens them."""
        self.pace = pace
        self._remember = remember

    def clock(self, prompt_tokens: int) -> ReplyClock:
        """The clock of a reply to ``prompt_tokens``, under the bounds the pace sets."""
        bounds = self.pace.bounds(prompt_tokens, self.floor) if self.pace else self.floor
        return ReplyClock(bounds.first_byte_s, bounds.idle_s)

    def expected_s(self, prompt_tokens: int) -> float | None:
        """How long a reply to ``prompt_tokens`` should take; ``None`` before any was timed."""
        return self.pace.expected_s(prompt_tokens) if self.pace else None

    async def observe(self, timing: ReplyTiming) -> None:
        """Fold in a whole reply's timing, and keep the pace it gives."""
        pace = self.pace.observe(timing) if self.pace else Pace.first(timing)
        if pace is None or pace == self.pace:
            return
        self.pace = pace
        if self._remember is not None:
            await asyncio.to_thread(self._remember, pace)
