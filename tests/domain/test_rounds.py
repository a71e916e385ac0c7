"""The round as one pure decision: what a chapter's failed parts try next, by why they failed
and what the earlier rounds did; and, over random failures and mixed part sizes, that the
rounds always end, with exactly what no model could do left."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from honyaku.domain.failures import FailureClass
from honyaku.domain.rounds import (
    MAX_FRUITLESS_SPLITS,
    MAX_PACE_WAITS,
    FailedPart,
    HandOver,
    Part,
    RoundHistory,
    Split,
    Stop,
    StopReason,
    Wait,
    next_round,
    split,
)

TITLE = "title"


def part(n: int, *, title: bool = False) -> Part:
    return Part(tuple(f"p{i:07d}" for i in range(n)), title)


def test_a_title_is_a_unit_like_a_paragraph_and_the_first_of_its_part():
    # Given a part of a title and three paragraphs
    whole = part(3, title=True)

    # When it is split in halves, and the first half again
    first, second = split(whole)
    title, paragraph = split(first)

    # Then the title went with one paragraph, then alone
    assert (first.units, second.units) == (2, 2)
    assert title == Part((), True)
    assert paragraph.paragraph_ids == ("p0000000",)
    assert split(title) == (title,)


def test_a_part_too_long_for_the_window_is_split_in_quarters_others_in_halves():
    failed = [
        FailedPart(1, part(8), FailureClass.CONTEXT),
        FailedPart(2, part(8), FailureClass.FILTERED),
    ]

    step = next_round(failed, RoundHistory(), models=1)

    assert isinstance(step, Split)
    assert [p.units for p in step.parts[1]] == [2, 2, 2, 2]
    assert [p.units for p in step.parts[2]] == [4, 4]


def test_a_part_the_server_could_not_keep_pace_with_waits_and_keeps_its_size():
    # Given a chapter with a part refused for the server's pace and one the filter refused
    failed = [
        FailedPart(1, part(10), FailureClass.PACE),
        FailedPart(2, part(10), FailureClass.FILTERED),
    ]

    # When the next round is decided, twice
    first = next_round(failed, RoundHistory(), models=2, pace_wait_s=30)
    assert isinstance(first, Wait)
    second = next_round(failed, first.history, models=2, pace_wait_s=30)

    # Then the paced part waits, longer the second time, as it is; the other waits its turn
    assert first.keys == (1,)
    assert isinstance(second, Wait)
    assert (first.seconds, second.seconds) == (30, 60)
    # And after two waits the paced part is no longer waited for: the other is split first
    third = next_round(failed, second.history, models=2)
    assert second.history.waits == MAX_PACE_WAITS
    assert isinstance(third, Split)
    assert list(third.parts) == [2]


def test_single_units_go_to_the_next_model_then_stop_when_none_is_left():
    failed = [
        FailedPart(1, part(1), FailureClass.FILTERED),
        FailedPart(2, Part((), True), FailureClass.FILTERED),
    ]

    handed = next_round(failed, RoundHistory(), models=2)
    assert isinstance(handed, HandOver)
    assert handed.keys == (1, 2)
    assert handed.history == RoundHistory(model=1)

    assert next_round(failed, handed.history, models=2) == Stop(StopReason.NO_MODEL_LEFT)


def test_a_model_lost_in_its_part_is_split_while_that_gets_something_done():
    lost = [FailedPart(1, part(16), FailureClass.WORKFLOW)]

    history = RoundHistory()
    shapes = []
    for _ in range(MAX_FRUITLESS_SPLITS + 1):
        step = next_round(lost, history, models=1)
        if not isinstance(step, Split):
            break
        shapes.append(len(step.parts[1]))
        history = step.history
        lost = [FailedPart(1, part(16), FailureClass.WORKFLOW)]  # nothing got done

    # Halves, halves again, then given up on: two splits in a row saved nothing
    assert shapes == [2, 2]
    assert step == Stop(StopReason.NO_MODEL_LEFT)


def test_a_fallback_that_could_not_start_hands_its_parts_on():
    failed = [FailedPart(1, part(4), FailureClass.FALLBACK)]

    step = next_round(failed, RoundHistory(model=1), models=3)

    assert step == HandOver((1,), RoundHistory(model=2))


# -- a chapter's rounds over random failures ---------------------------------------------


@dataclass
class Chapter:
    """A chapter's parts as a world the decision acts on: each unit refused by some models'
    filters, each part refused for the server's pace its first few times, and a model that
    gets lost in parts over some size."""

    refused: dict[str, set[int]]
    """Each unit, and the models whose filter refuses it."""
    paced: int
    """Requests the server refuses for its pace before it keeps up."""
    lost_over: int | None
    """Units over which the first model gets lost (answers without finishing)."""
    paced_at_first: int
    done: set[str] = field(default_factory=set)
    requests: int = 0

    def run(self, parts: dict[int, Part], model: int) -> list[FailedPart]:
        failed = []
        for key, piece in parts.items():
            self.requests += 1
            units = [TITLE] * piece.shows_title + list(piece.paragraph_ids)
            if self.paced > 0:
                self.paced -= 1
                failed.append(FailedPart(key, piece, FailureClass.PACE))
            elif any(model in self.refused[unit] for unit in units):
                failed.append(FailedPart(key, piece, FailureClass.FILTERED))
            elif model == 0 and self.lost_over is not None and len(units) > self.lost_over:
                failed.append(FailedPart(key, piece, FailureClass.WORKFLOW))
            else:
                self.done.update(units)
        return failed


@st.composite
def chapters(draw: st.DrawFn) -> tuple[Chapter, list[Part], int]:
    models = draw(st.integers(1, 3))
    size = draw(st.integers(1, 60))
    ids = [f"p{i:07d}" for i in range(size)]
    refused = {unit: set() for unit in [TITLE, *ids]}
    for unit in draw(st.lists(st.sampled_from([TITLE, *ids]), max_size=5)):
        refused[unit] |= set(draw(st.lists(st.integers(0, models - 1), min_size=1)))
    cuts = sorted(draw(st.sets(st.integers(1, max(size - 1, 1)), max_size=5)))
    bounds = [0, *[c for c in cuts if c < size], size]
    parts = [Part(tuple(ids[a:b]), a == 0) for a, b in itertools.pairwise(bounds) if b > a]
    lost_over = draw(st.none() | st.integers(1, 20))
    paced = draw(st.integers(0, 3))
    return Chapter(refused, paced, lost_over, paced), parts, models


@settings(max_examples=300, deadline=None)
@given(chapters())
def test_the_rounds_always_end_with_exactly_what_no_model_could_do_left(world):
    chapter, parts, models = world
    history = RoundHistory()
    failed = chapter.run(dict(enumerate(parts)), 0)
    rounds = 0
    while failed:
        step = next_round(failed, history, models=models, pace_wait_s=0)
        if isinstance(step, Stop):
            break
        rounds += 1
        assert rounds < 100, "the rounds never end"
        by_key = {f.key: f for f in failed}
        if isinstance(step, Split):
            for key, pieces in step.parts.items():
                assert by_key[key].failure is not FailureClass.PACE  # pace is never split
                assert [u for p in pieces for u in p.paragraph_ids] == list(
                    by_key[key].part.paragraph_ids
                )
                assert sum(p.shows_title for p in pieces) == by_key[key].part.shows_title
            plan = {
                (key, n): piece
                for key, pieces in step.parts.items()
                for n, piece in enumerate(pieces)
            }
            kept = [f for f in failed if f.key not in step.parts]
        else:
            plan = {(key, 0): by_key[key].part for key in step.keys}
            kept = [f for f in failed if f.key not in step.keys]
        history = step.history
        numbered = dict(enumerate(plan.values(), start=max(by_key) + 1))
        failed = kept + chapter.run(numbered, history.model)
    # Then every unit is done or left; what is left is what the last model's filter refused,
    # what the server never kept pace for or what the first model got lost in (when no other
    # model was there); and with a server that kept pace and a model never lost, exactly what
    # every model's filter refused
    left = {
        unit: f.failure
        for f in failed
        for unit in [TITLE] * f.part.shows_title + list(f.part.paragraph_ids)
    }
    assert set(left) | chapter.done == set(chapter.refused)
    assert not set(left) & chapter.done
    refused_by_all = {u for u, by in chapter.refused.items() if by >= set(range(models))}
    assert refused_by_all <= set(left)
    for unit, failure in left.items():
        refused_by_last = history.model in chapter.refused[unit]
        assert refused_by_last or failure in (FailureClass.PACE, FailureClass.WORKFLOW)
    if chapter.lost_over is None and chapter.paced_at_first <= MAX_PACE_WAITS:
        assert set(left) == refused_by_all
