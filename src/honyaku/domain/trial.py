"""The rules of a trial of models on a book: its sample, the judge's blind order, and the
figures that compare the models.

A trial's judge reads every model's version of a paragraph together, names hidden, in an
order shuffled per paragraph: the same every time for the trial's seed, so a comparison can
be read again and checked.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from honyaku.domain.book import Book
from honyaku.errors import UserError

SAMPLE_CHARS = 3000
"""A trial's default sample: the first chapters until they hold this many characters."""

LOW_SCORE = 2
"""A judge's score this low or lower is a paragraph the translator must read again."""


def sample_chapters(chapter_chars: Sequence[int], limit: int = SAMPLE_CHARS) -> list[int]:
    """The numbers (from 1) of the first chapters until they hold ``limit`` characters,
    given each chapter's characters in order; at least the first chapter that has any."""
    chosen: list[int] = []
    total = 0
    for number, chars in enumerate(chapter_chars, start=1):
        if total >= limit:
            break
        if chars or not chosen:
            chosen.append(number)
        total += chars
    return chosen


def align_reference(sample: Book, reference: Sequence[str]) -> dict[str, str]:
    """The reference's paragraphs (blank ones left out) by the id of the sample's work
    paragraph each translates, in order; refused unless there is one for each."""
    if any("\x00" in text for text in reference):
        raise UserError("text cannot hold the NUL character (U+0000)")
    texts = [text.strip() for text in reference if text.strip()]
    work = [p.id for chapter in sample.chapters for p in chapter.work_paragraphs]
    if len(texts) != len(work):
        raise UserError(
            "the reference has {given} paragraphs and the sample {wanted}: give one a line, "
            "in order, for each paragraph of the sample",
            given=len(texts),
            wanted=len(work),
        )
    return dict(zip(work, texts, strict=True))


def blind_order(seed: int, paragraph_id: str, count: int) -> list[int]:
    """The order in which the judge reads the ``count`` versions of one paragraph."""
    return random.Random(f"{seed}:{paragraph_id}").sample(range(count), count)


def chrf_plus_plus(translations: Sequence[str], references: Sequence[str]) -> float | None:
    """chrF++ (0–100) of ``translations`` against their ``references``, pair by pair;
    ``None`` with no pair to score."""
    if not translations:
        return None
    # Imported here: sacrebleu brings numpy, half a second on every command's start otherwise.
    from sacrebleu.metrics import CHRF

    return CHRF(word_order=2).corpus_score(list(translations), [list(references)]).score


@dataclass(frozen=True, slots=True)
class Scores:
    """A judge's scores of one model's versions."""

    scores: tuple[int, ...] = ()

    @property
    def mean(self) -> float | None:
        return sum(self.scores) / len(self.scores) if self.scores else None

    @property
    def low_share(self) -> float | None:
        """The share of versions scored ``LOW_SCORE`` or lower."""
        if not self.scores:
            return None
        return sum(score <= LOW_SCORE for score in self.scores) / len(self.scores)


@dataclass(frozen=True, slots=True)
class TrialTokens:
    uncached: int = 0
    cached: int = 0
    output: int = 0


@dataclass(frozen=True, slots=True)
class ModelResult:
    """One model's figures in a trial."""

    model: str
    """The saved profile's name."""
    status: str
    paragraphs: int
    """Work paragraphs in the sample."""
    paragraphs_done: int
    parts: int
    parts_failed: dict[str, int] = field(default_factory=dict)
    """By failure class."""
    rejected_calls: dict[str, int] = field(default_factory=dict)
    """By error code."""
    retries: int = 0
    requests: int = 0
    tokens: TrialTokens = TrialTokens()
    billed: float | None = None
    """At the profile's prices; ``None`` where it has none."""
    wall_s: float | None = None
    judged: Scores = Scores()
    chrf: float | None = None
    """chrF++ against the translator's reference, where the sample has one."""

    @property
    def requests_per_part(self) -> float | None:
        return self.requests / self.parts if self.parts else None

    def figures(self) -> dict[str, Any]:
        """Its figures as plain data, as ``honyaku trial --json`` and the API give them."""
        return {
            "model": self.model,
            "status": self.status,
            "paragraphs": self.paragraphs,
            "paragraphs_done": self.paragraphs_done,
            "parts": self.parts,
            "parts_failed": self.parts_failed,
            "rejected_calls": self.rejected_calls,
            "retries": self.retries,
            "requests": self.requests,
            "requests_per_part": self.requests_per_part,
            "tokens": asdict(self.tokens),
            "billed": self.billed,
            "wall_s": self.wall_s,
            "judged": len(self.judged.scores),
            "mean_score": self.judged.mean,
            "low_share": self.judged.low_share,
            "chrf": self.chrf,
        }
