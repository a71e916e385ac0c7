"""What the library tells of its books, as every front end reads it: a book's summary, a
chapter's progress, a paragraph's versions, a paragraph found with its chapter."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from honyaku.domain.book import Paragraph, TranslationKind
from honyaku.domain.placeholders import PlacedMark


@dataclass(frozen=True, slots=True)
class BookSummary:
    id: str
    title: str
    author: str | None
    source_lang: str
    target_lang: str
    chapters: int
    work_paragraphs: int
    translated: int
    stale: int = 0
    """Of the translated, those a new edition changed since (``Paragraph.is_stale``)."""


@dataclass(frozen=True, slots=True)
class ChapterProgress:
    number: int
    id: str
    title: str
    translated_title: str | None
    paragraphs: int
    work_paragraphs: int
    translated: int
    stale: int = 0
    title_stale: bool = False
    """A new edition renamed the chapter since its title was translated."""
    previous_title: str | None = None
    """The title its translated title was made for, where it is stale (and asked for)."""


@dataclass(frozen=True, slots=True)
class Version:
    """One version of a paragraph's target text."""

    id: int
    text: str
    kind: TranslationKind
    model: str | None
    job_id: str | None
    created_at: datetime
    selected: bool
    marks: tuple[PlacedMark, ...] = field(default=(), compare=False)
    """Where the paragraph's inline marks land in ``text``."""


@dataclass(frozen=True, slots=True)
class LocatedParagraph:
    """A paragraph with the chapter it sits in, for the context tools."""

    chapter_id: str
    chapter_number: int
    paragraph: Paragraph
