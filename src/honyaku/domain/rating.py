"""Checking a ``rate_paragraphs`` call before anything is written.

A rating job's model (the judge) reads each paragraph's source and its selected translation and
scores it: an integer from 1 (wrong or missing) to 5 (nothing to change), the kinds of problem
it found, and a short comment. Like a batch, a call is taken whole or refused whole, naming
every item that is wrong.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from honyaku.domain.batch import MAX_BATCH_ITEMS, BatchProblem
from honyaku.domain.book import Paragraph

LOWEST, HIGHEST = 1, 5
MAX_COMMENT_CHARS = 300
Issue = Literal[
    "omission",
    "addition",
    "mistranslation",
    "terminology",
    "name",
    "pronoun",
    "style",
    "untranslated",
    "wrong_script",
]
ISSUES: tuple[str, ...] = get_args(Issue)


class RatingItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    paragraph_id: str = Field(description='The 8 characters after "ID:", never [n].')
    score: int = Field(ge=LOWEST, le=HIGHEST, description="5 nothing to change … 1 wrong.")
    issues: list[Issue] = Field(default_factory=list, description="What is wrong, if anything.")
    comment: str = Field(
        default="", max_length=MAX_COMMENT_CHARS, description="Short; what to fix."
    )

    @field_validator("comment")
    @classmethod
    def _one_line(cls, comment: str) -> str:
        return " ".join(comment.split())


def validate_ratings(
    items: Sequence[RatingItem], assigned: Mapping[str, Paragraph]
) -> list[BatchProblem]:
    """Every reason to refuse the call; an empty list means it may be written."""
    if not items:
        return [BatchProblem("EMPTY_BATCH", "The call rates nothing: rate at least one paragraph.")]
    if len(items) > MAX_BATCH_ITEMS:
        return [
            BatchProblem(
                "BATCH_TOO_LARGE",
                f"The call has {len(items)} ratings; send at most {MAX_BATCH_ITEMS} per call.",
            )
        ]
    counts = Counter(item.paragraph_id for item in items)
    problems = [
        BatchProblem("DUPLICATE_PARAGRAPH_ID", f"Paragraph {pid} is rated {n} times.", pid)
        for pid, n in counts.items()
        if n > 1
    ]
    problems += [
        BatchProblem(
            "PARAGRAPH_NOT_ASSIGNED",
            f"Paragraph {item.paragraph_id} is not assigned to this task; rate only the ids "
            "shown as [ID: …] in this chunk.",
            item.paragraph_id,
        )
        for item in items
        if item.paragraph_id not in assigned
    ]
    return problems


def judge_note(score: int, issues: Sequence[str], comment: str) -> str | None:
    """What a revision is told of a rating: ``"2/5 pronoun, style: 她 should be 他"``; nothing
    for a version with nothing to change."""
    if score >= HIGHEST and not issues and not comment:
        return None
    found = f" {', '.join(issues)}" if issues else ""
    said = f": {comment}" if comment else ""
    return f"{score}/{HIGHEST}{found}{said}"
