"""What a chapter's failed parts try next: the round, as one pure decision.

When a chapter's parts have all run and some failed, the next round is one of four steps,
decided by why they failed and by what the earlier rounds did (``RoundHistory``):

- **wait** and send the parts as they are again, with the same model: the server did not keep
  pace, and a smaller part would only double the requests to a server refusing them;
- **split** the parts into smaller ones, with the same model: what a filter refused is
  isolated in halves down to a single unit (a paragraph, or a title), and so is what did not
  fit the context window, in quarters; a refusal in words, a workflow the model could not
  finish or a loop, in halves while that gets something done (a model lost in a part of 40
  may need quarters, no more);
- **hand** the parts over as they are to the next model of the chain, once they are single
  units, splitting no longer gets anything done (twice at a smaller size for nothing), or
  the server's pace never came;
- **stop**: no model is left to try them; each is left, with its reason.

Parts are decided together in this order: those waiting on the server's pace first, then
those that splitting may help, then the rest go to the next model together. A failure every
part would meet (a refused key, the cap) never reaches a round: it stops the job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from math import ceil

from honyaku.domain.failures import FailureClass

MAX_SPLIT_ROUNDS = 16
"""Rounds in which one model splits a chapter's failed parts, at most: halving, a part of
65,536 units is down to single ones in 16 (a safety net: a part is never that long)."""
MAX_FRUITLESS_SPLITS = 2
"""Split rounds in a row after which as many units failed as before, for a model that got
lost, before its parts go to the next model."""
MAX_PACE_WAITS = 2
"""Rounds that wait for the server's pace before its parts go to the next model."""
PACE_WAIT_S = 30.0
"""How long the first round that waits for the server's pace waits; each next one twice
as long."""

SPLIT_IN = {FailureClass.CONTEXT: 4}
"""Pieces a failed part is split into by why it failed (else halves): a part too long for
the context window is split smaller than one that held a refused paragraph."""
ISOLATED = frozenset({FailureClass.FILTERED, FailureClass.CONTEXT})
"""Failures that a smaller part always gets past or pins down: split down to single units."""
LOST = frozenset({FailureClass.REFUSED, FailureClass.WORKFLOW, FailureClass.LOOP})
"""A model lost in the part: split while that gets something done."""


@dataclass(frozen=True, slots=True)
class Part:
    """Some of a chapter's paragraphs, and whether its title goes with them."""

    paragraph_ids: tuple[str, ...]
    shows_title: bool

    @property
    def units(self) -> int:
        """What a model translates in it: each paragraph, and the title."""
        return len(self.paragraph_ids) + self.shows_title

    @property
    def is_empty(self) -> bool:
        return not self.units


def split(part: Part, pieces: int = 2) -> tuple[Part, ...]:
    """``part`` cut into ``pieces`` nearly equal parts, in order, its title a unit like a
    paragraph (the first); a single unit cannot be split."""
    units: list[str | None] = [None] * part.shows_title + list(part.paragraph_ids)
    if len(units) < 2:
        return (part,)
    size = ceil(len(units) / min(pieces, len(units)))
    groups = [units[at : at + size] for at in range(0, len(units), size)]
    return tuple(
        Part(tuple(unit for unit in group if unit is not None), None in group) for group in groups
    )


@dataclass(frozen=True, slots=True)
class FailedPart:
    """A failed part of a chapter (by its key), and why it failed."""

    key: int
    part: Part
    failure: FailureClass


@dataclass(frozen=True, slots=True)
class RoundHistory:
    """What the earlier rounds of one chapter did."""

    model: int = 0
    """The place in the chain of the model trying the chapter's parts: 0 is the one chosen."""
    splits: int = 0
    """Rounds in which that model split parts."""
    fruitless: int = 0
    """Of those, the last ones in a row after which as many units that the model got lost
    in failed as before."""
    lost_at: int | None = None
    """Units the model got lost in when it last split parts."""
    waits: int = 0
    """Rounds in which that model waited for the server's pace."""

    def next_model(self) -> RoundHistory:
        return RoundHistory(model=self.model + 1)


class StopReason(StrEnum):
    NO_MODEL_LEFT = "no model is left to try them"


@dataclass(frozen=True, slots=True)
class Wait:
    """Send these parts as they are again, with the same model, after ``seconds``."""

    keys: tuple[int, ...]
    seconds: float
    history: RoundHistory


@dataclass(frozen=True, slots=True)
class Split:
    """Try these parts again as the smaller parts given, with the same model."""

    parts: Mapping[int, tuple[Part, ...]]
    history: RoundHistory


@dataclass(frozen=True, slots=True)
class HandOver:
    """The next model of the chain takes these parts as they are."""

    keys: tuple[int, ...]
    history: RoundHistory


@dataclass(frozen=True, slots=True)
class Stop:
    """Nothing more is tried: the failed parts are left, each with its own reason."""

    reason: StopReason


Round = Wait | Split | HandOver | Stop


def next_round(
    failed: Sequence[FailedPart],
    history: RoundHistory,
    *,
    models: int,
    pace_wait_s: float = PACE_WAIT_S,
) -> Round:
    """The next step for a chapter's ``failed`` parts, after ``history``, in a chain of
    ``models`` (the one chosen and its fallbacks); the first wait for the server's pace is
    ``pace_wait_s``."""
    if history.waits < MAX_PACE_WAITS and (
        pace := tuple(f.key for f in failed if f.failure is FailureClass.PACE)
    ):
        seconds = pace_wait_s * 2**history.waits
        return Wait(pace, seconds, replace(history, waits=history.waits + 1))
    if splitting := _split(failed, history):
        return splitting
    if history.model + 1 < models:
        return HandOver(tuple(f.key for f in failed), history.next_model())
    return Stop(StopReason.NO_MODEL_LEFT)


def _split(failed: Sequence[FailedPart], history: RoundHistory) -> Split | None:
    """The split round, where splitting may still get something done."""
    if history.splits >= MAX_SPLIT_ROUNDS:
        return None
    lost = sum(f.part.units for f in failed if f.failure in LOST)
    fruitless = 0
    if lost and history.lost_at is not None and lost >= history.lost_at:
        fruitless = history.fruitless + 1
    parts = {
        f.key: pieces
        for f in failed
        if (f.failure in ISOLATED or (f.failure in LOST and fruitless < MAX_FRUITLESS_SPLITS))
        and len(pieces := split(f.part, SPLIT_IN.get(f.failure, 2))) > 1
    }
    if not parts:
        return None
    done = replace(history, splits=history.splits + 1, fruitless=fruitless, lost_at=lost or None)
    return Split(parts, done)
