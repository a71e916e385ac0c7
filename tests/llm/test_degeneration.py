"""Cutting looping replies: a repeated span is found soon after the loop starts, whatever its
length; real prose, long screams and rows of dashes are not loops."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from honyaku.errors import DegenerateReplyError
from honyaku.formats import read_book
from honyaku.llm.degeneration import MIN_LOOP_CHARS, DegenerationGuard, RepetitionDetector
from honyaku.llm.events import ArgumentsDelta, Response, StreamEvent, TextDelta, Usage
from honyaku.llm.messages import AssistantMessage, ChatRequest

RASHOMON = Path(__file__).parents[2] / "src" / "honyaku" / "samples" / "rashomon.html"


def stream_into(detector: RepetitionDetector, text: str, piece: int = 7):
    for start in range(0, len(text), piece):
        if loop := detector.feed(text[start : start + piece]):
            return loop
    return None


def test_a_real_book_streamed_whole_is_no_loop():
    book = read_book(RASHOMON)
    text = "\n".join(p for c in book.chapters for p in c.paragraphs)

    assert stream_into(RepetitionDetector(), text * 2) is None  # the book twice is no loop


def test_a_long_scream_and_a_row_of_dashes_are_no_loop():
    text = "「あ" + "あ" * 300 + "！」" + "――" * 100 + "彼は倒れた。"

    assert stream_into(RepetitionDetector(), text) is None


@pytest.mark.parametrize("span", ["哈", "同じことを言った。", "長い文が続く。" * 60])
def test_a_loop_is_found_soon_after_it_starts_whatever_its_period(span):
    prose = "下人は、老婆をつき放すと、いきなり、太刀の鞘を払った。"
    loop = stream_into(RepetitionDetector(), prose + span * 10_000)

    assert loop is not None
    assert len(loop.span) == len(span) or len(span) % len(loop.span) == 0
    assert loop.seen <= len(prose) + max(MIN_LOOP_CHARS, len(span) * 10) + 400


class Looping:
    """A provider that streams a loop forever, and notes whether it was closed."""

    model = "looping"

    def __init__(self, delta: type[TextDelta | ArgumentsDelta]) -> None:
        self.delta = delta
        self.sent = 0
        self.closed = False

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        try:
            while self.sent < 1_000_000:
                self.sent += 1
                yield self.delta('{"translated_text": "ずっと同じ"')
            yield Response(AssistantMessage(), "stop", Usage(0, 0))
        finally:
            self.closed = True

    async def aclose(self) -> None:
        pass


@pytest.mark.anyio
@pytest.mark.parametrize("delta", [TextDelta, ArgumentsDelta])
async def test_the_guard_stops_reading_and_raises_a_transient_error(delta):
    inner = Looping(delta)
    guard = DegenerationGuard(inner)

    with pytest.raises(DegenerateReplyError, match="repeated") as raised:
        async for _ in guard.stream(ChatRequest(())):
            pass

    assert raised.value.retry_after_s == 0.0
    assert inner.closed
    assert inner.sent < 200
