"""Cutting a reply that repeats itself over and over, before it burns the output budget.

Models at low temperature sometimes fall into a loop: the same sentence, the same few
characters, written again and again until the output limit, thousands of tokens paid for
nothing. ``DegenerationGuard`` wraps a provider and watches everything a reply streams (its
text, its reasoning, and its native calls' arguments as ``ArgumentsDelta``); when the last
stretch of it is one span repeated many times, it stops reading (the connection is closed)
and raises ``DegenerateReplyError``, a transient failure: ``RetryingProvider`` announces a
``Retry`` with the reason, which the job's action log records, and asks again at once.

It sits under the XML protocol, so calls written as text are watched as they stream too.

``RepetitionDetector`` finds a loop cheaply: every ``CHECK_EVERY_CHARS`` characters it looks
where the last ``PROBE_CHARS`` characters occurred before; that distance is the candidate
period, and the stretch is a loop if it repeats with that period for at least
``MIN_LOOP_CHARS`` characters and ``MIN_REPEATS`` times. Legitimate repetition in a book
(a scream of あああ, a row of ――) is far shorter.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from honyaku.errors import DegenerateReplyError
from honyaku.llm.events import (
    ArgumentsDelta,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    closed_after,
)
from honyaku.llm.messages import ChatRequest
from honyaku.llm.wrapper import ProviderWrapper

MIN_LOOP_CHARS = 1000
MIN_REPEATS = 10
MAX_PERIOD_CHARS = 1000
PROBE_CHARS = 32
CHECK_EVERY_CHARS = 200
WATCHED_CHARS = MAX_PERIOD_CHARS * MIN_REPEATS
"""The last stretch of a reply kept to look for a loop in: the longest period, repeated."""
SHOWN_SPAN_CHARS = 40


@dataclass(frozen=True, slots=True)
class Loop:
    span: str
    """The repeated span."""
    length: int
    """Characters of the stretch that repeats it."""
    seen: int
    """Characters of the reply read when the loop was found."""

    def describe(self) -> str:
        span = self.span if len(self.span) <= SHOWN_SPAN_CHARS else self.span[:SHOWN_SPAN_CHARS]
        times = self.length // len(self.span)
        return (
            f"the reply repeated {span!r} {times} times over; it was cut after "
            f"{self.seen} characters and asked again"
        )


class RepetitionDetector:
    """Fed a reply's text as it streams; says when its last stretch is one span repeated."""

    def __init__(self) -> None:
        self._watched = ""
        self._seen = 0
        self._unchecked = 0

    def feed(self, text: str) -> Loop | None:
        self._watched = (self._watched + text)[-WATCHED_CHARS:]
        self._seen += len(text)
        self._unchecked += len(text)
        if self._unchecked < CHECK_EVERY_CHARS:
            return None
        self._unchecked = 0
        return self._loop()

    def _loop(self) -> Loop | None:
        watched = self._watched
        if len(watched) < MIN_LOOP_CHARS:
            return None
        probe_at = len(watched) - PROBE_CHARS
        before = watched.rfind(watched[probe_at:], 0, len(watched) - 1)
        if before < 0:
            return None
        period = probe_at - before
        stretch = max(MIN_LOOP_CHARS, period * MIN_REPEATS)
        if period > MAX_PERIOD_CHARS or stretch > len(watched):
            return None
        if watched[-stretch:-period] != watched[-stretch + period :]:
            return None
        return Loop(watched[-period:], stretch, self._seen)


class DegenerationGuard(ProviderWrapper):
    """A ``ChatProvider`` that cuts ``inner``'s looping replies (see the module docstring)."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        detector = RepetitionDetector()
        async with closed_after(self.inner.stream(request)) as events:
            async for event in events:
                if isinstance(event, TextDelta | ReasoningDelta | ArgumentsDelta) and (
                    loop := detector.feed(event.text)
                ):
                    raise DegenerateReplyError(loop.describe())
                yield event
