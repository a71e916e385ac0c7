"""Checking an ``add_translation_batch`` call before anything is written.

A batch is accepted whole or rejected whole. The rejection names every offending paragraph id,
so the model can fix all of its mistakes in one more call; a paragraph whose placeholders do
not match its line's (``placeholders``) is one of them. What an accepted batch writes is read
by ``read_batch``: each text clean, its marks beside it.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from honyaku.domain.book import Paragraph
from honyaku.domain.placeholders import (
    MARKUP_MISMATCH,
    MarkedText,
    MarkupMismatch,
    PlacedMark,
    read_marked,
    stripped,
    without_hints,
    without_placeholders,
)

MAX_BATCH_ITEMS = 400

INDEX_HINT = (
    "Items are keyed by paragraph_id, not index: copy the 8-character id from the "
    '[ID: …] marker of each line, e.g. {"paragraph_id": "1a2b3c4d", ...}. '
    "The [n] number is for reading only."
)


class BatchItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    paragraph_id: str = Field(description='The 8 characters after "ID:", never [n].')
    translated_text: str = Field(description="One line.")
    original_text_prefix: str = Field(
        default="", description="The source's first characters, as an anchor."
    )

    @model_validator(mode="before")
    @classmethod
    def _refuse_index(cls, data: Any) -> Any:
        if isinstance(data, dict) and "paragraph_id" not in data and "index" in data:
            raise PydanticCustomError("INDEX_NOT_ALLOWED", INDEX_HINT)
        return data


@dataclass(frozen=True, slots=True)
class BatchProblem:
    code: str
    message: str
    paragraph_id: str | None = None


def validate_batch(
    items: Sequence[BatchItem],
    assigned: Mapping[str, Paragraph],
    *,
    in_book: Container[str] = frozenset(),
    markup: Mapping[str, MarkedText] | None = None,
) -> list[BatchProblem]:
    """Every reason to reject the batch; an empty list means it may be written. ``in_book``
    holds the unassigned ids the batch names that are paragraphs of the book: only an id that
    is not may be a typo worth a hint. ``markup``: the work lines whose placeholders each text
    must keep, by paragraph id."""
    if not items:
        return [BatchProblem("EMPTY_BATCH", "The batch is empty: send at least one paragraph.")]
    if len(items) > MAX_BATCH_ITEMS:
        return [
            BatchProblem(
                "BATCH_TOO_LARGE",
                f"The batch has {len(items)} items; send at most {MAX_BATCH_ITEMS} per call "
                "and the rest in another call.",
            )
        ]
    counts = Counter(item.paragraph_id for item in items)
    problems = [
        BatchProblem(
            "DUPLICATE_PARAGRAPH_ID", f"Paragraph {pid} appears {n} times in the batch.", pid
        )
        for pid, n in counts.items()
        if n > 1
    ]
    for item in items:
        paragraph = assigned.get(item.paragraph_id)
        if paragraph is None:
            hint = None if item.paragraph_id in in_book else near_id(item, assigned)
            problems.append(_not_assigned(item.paragraph_id, hint))
        else:
            line = markup.get(item.paragraph_id) if markup else None
            problems.extend(_item_problems(item, paragraph, line))
    return problems


def _not_assigned(pid: str, hint: str | None) -> BatchProblem:
    message = (
        f"段落 {pid} 不在当前任务分配范围内 (paragraph {pid} is not assigned to this "
        "task; submit only ids shown as [ID: …] in this chunk)."
    )
    if hint:
        message = message.removesuffix(".") + f"; did you mean {hint}?"
    return BatchProblem("PARAGRAPH_NOT_ASSIGNED", message, pid)


MAX_HINT_EDITS = 2


def near_id(item: BatchItem, assigned: Mapping[str, Paragraph]) -> str | None:
    """The one assigned id within two character edits of the item's id whose source starts
    with the item's ``original_text_prefix``: what a model that miscopied an id meant. ``None``
    when there is no such id, or more than one."""
    near = [
        pid
        for pid, paragraph in assigned.items()
        if edit_distance(item.paragraph_id, pid) <= MAX_HINT_EDITS
        and prefix_matches(item.original_text_prefix, paragraph.text)
    ]
    return near[0] if len(near) == 1 else None


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions (ids are 8 characters)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _item_problems(
    item: BatchItem, paragraph: Paragraph, line: MarkedText | None = None
) -> list[BatchProblem]:
    pid = item.paragraph_id
    problems = []
    text = item.translated_text.strip()
    if not text:
        problems.append(
            BatchProblem("BLANK_TEXT", f"Paragraph {pid}: translated_text is blank.", pid)
        )
    elif "\n" in text:
        problems.append(
            BatchProblem(
                "LINE_BREAK_IN_TEXT",
                f"Paragraph {pid}: translated_text holds a line break; each item is one "
                "paragraph on one line.",
                pid,
            )
        )
    elif line is not None:
        read = read_marked(text, line, paragraph.text)
        if isinstance(read, MarkupMismatch):
            problems.append(BatchProblem(MARKUP_MISMATCH, read.message(pid, line), pid))
        elif not read.text:
            problems.append(
                BatchProblem(
                    "BLANK_TEXT", f"Paragraph {pid}: no text beside its placeholders.", pid
                )
            )
    prefix = item.original_text_prefix
    if line is not None:
        prefix = without_hints(prefix, line, paragraph.text)
    if prefix and not prefix_matches(prefix, paragraph.text):
        problems.append(
            BatchProblem(
                "PREFIX_MISMATCH",
                f"Paragraph {pid}: original_text_prefix {item.original_text_prefix!r} does not "
                f"start its text, which begins {paragraph.text[:20]!r}. Check the id.",
                pid,
            )
        )
    return problems


_ELLIPSES = ("……", "…", "...")


def prefix_matches(prefix: str, text: str) -> bool:
    """Whether ``prefix`` starts ``text``, ignoring width, spacing, a trailing ellipsis and
    the placeholders and reading hints of a work line it was copied from."""
    wanted = _normalized(without_placeholders(prefix))
    for ellipsis in _ELLIPSES:
        wanted = wanted.removesuffix(ellipsis)
    return _normalized(text).startswith(wanted)


def _normalized(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


@dataclass(frozen=True, slots=True)
class BatchTexts:
    """What an accepted batch writes: each paragraph's clean text, its marks, and the
    paragraphs whose markup was dropped."""

    texts: dict[str, str]
    marks: dict[str, tuple[PlacedMark, ...]]
    lost: frozenset[str] = frozenset()
    """Paragraphs whose text did not keep its line's placeholders, kept without markup."""


def read_batch(
    items: Sequence[BatchItem],
    assigned: Mapping[str, Paragraph],
    markup: Mapping[str, MarkedText],
) -> BatchTexts:
    """The texts of a batch that passed ``validate_batch``, read against their ``markup``
    lines. A text whose placeholders do not match (a batch checked without its markup, as on
    a paragraph's last attempt) is kept without them, and named in ``lost``."""
    texts: dict[str, str] = {}
    marks: dict[str, tuple[PlacedMark, ...]] = {}
    lost: set[str] = set()
    for item in items:
        pid, text = item.paragraph_id, item.translated_text.strip()
        line = markup.get(pid)
        if line is None:
            texts[pid] = text
            continue
        source = assigned[pid].text
        read = read_marked(text, line, source)
        if isinstance(read, MarkupMismatch):
            texts[pid] = stripped(text, line, source) or text
            if line:  # a line without markup loses none: what was invented goes
                lost.add(pid)
            continue
        texts[pid] = read.text
        marks[pid] = read.marks
    return BatchTexts(texts, marks, frozenset(lost))
