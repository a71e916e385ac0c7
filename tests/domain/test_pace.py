"""A model's pace, learned from timed replies, and the bounds it sets."""

from __future__ import annotations

import pytest

from honyaku.domain.pace import PACE_MARGIN, Bounds, Pace, ReplyTiming

DEFAULTS = Bounds(first_byte_s=600.0, idle_s=120.0)


def test_a_streamed_reply_tells_reading_from_writing():
    # 4,000 prompt tokens read in 20 s, then 200 tokens written in 10 s.
    pace = Pace.first(ReplyTiming(4000, 200, first_content_s=20.0, total_s=30.0))

    assert pace is not None
    assert pace.prompt_tokens_per_s == pytest.approx(200)
    assert pace.output_tokens_per_s == pytest.approx(20)
    assert pace.expected_s(8000) == pytest.approx(40 + 10)


def test_a_reply_held_back_until_whole_is_split_at_the_usual_ratio_then_at_the_learned_one():
    # A grammar-forced call: nothing until the 200 tokens were written, 90 s in all.
    burst = ReplyTiming(4000, 200, first_content_s=90.0, total_s=90.0)
    assert burst.in_one_burst

    pace = Pace.first(burst)
    assert pace is not None
    # Reading 4,000 tokens takes as long as writing 400: a third of the time is writing.
    assert pace.writing_s() == pytest.approx(30)
    assert pace.expected_s(4000) == pytest.approx(90)

    streamed = Pace.first(ReplyTiming(4000, 200, first_content_s=10.0, total_s=20.0))
    assert streamed is not None
    learned = streamed.observe(burst)
    # The learned reading rate (400 a second) takes 10 s of the burst: 80 s were writing.
    assert learned.output_tokens_per_s == pytest.approx((20 + 200 / 80) / 2)
    assert learned.replies == 2


def test_an_unknown_pace_leaves_the_configured_bounds_and_a_fast_one_never_shortens_them():
    fast = Pace.first(ReplyTiming(2000, 300, first_content_s=0.4, total_s=3.0))
    assert fast is not None

    assert fast.bounds(2000, DEFAULTS) == DEFAULTS


def test_a_slow_server_is_given_its_expected_time_several_times_over_and_no_more():
    slow = Pace.first(ReplyTiming(4000, 400, first_content_s=200.0, total_s=200.0))
    assert slow is not None

    bounds = slow.bounds(8000, DEFAULTS)

    assert bounds.first_byte_s == pytest.approx(PACE_MARGIN * slow.expected_s(8000))
    assert bounds.idle_s == pytest.approx(PACE_MARGIN * slow.writing_s())
    assert bounds.first_byte_s > DEFAULTS.first_byte_s
    assert bounds.idle_s > DEFAULTS.idle_s


def test_the_longest_reply_seen_is_what_a_reply_is_expected_to_write():
    pace = Pace.first(ReplyTiming(1000, 100, first_content_s=1.0, total_s=6.0))
    assert pace is not None

    longer = pace.observe(ReplyTiming(1000, 500, first_content_s=1.0, total_s=26.0))
    shorter = longer.observe(ReplyTiming(1000, 50, first_content_s=1.0, total_s=3.5))

    assert longer.longest_reply_tokens == shorter.longest_reply_tokens == 500


@pytest.mark.parametrize(
    "timing",
    [
        ReplyTiming(0, 100, first_content_s=1.0, total_s=2.0),
        ReplyTiming(1000, 0, first_content_s=1.0, total_s=2.0),
        ReplyTiming(1000, 100, first_content_s=0.0, total_s=0.0),
    ],
    ids=["no prompt", "no reply", "no time"],
)
def test_a_reply_with_nothing_to_time_teaches_nothing(timing: ReplyTiming):
    known = Pace(500.0, 20.0, 100)

    assert Pace.first(timing) is None
    assert known.observe(timing) == known
