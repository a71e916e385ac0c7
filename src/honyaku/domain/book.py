"""Books as honyaku sees them: drafts read from files, and stored books with their ids."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from pydantic import BaseModel, Field

from honyaku.domain.placeholders import (
    LostMarkup,
    MarkedText,
    MarkupMismatch,
    PlacedMark,
    ReadText,
    RubyChoice,
    holds_placeholders,
    read_marked,
)
from honyaku.domain.sources import InlineMark, OriginalFile, SourceLocation
from honyaku.errors import UserError


def paragraph_text(raw: str) -> str:
    """A paragraph as honyaku stores it: indentation is layout, not text, and a paragraph is
    always one line."""
    return " ".join(raw.splitlines()).strip()


def stored_location(raw: str, source: SourceLocation) -> SourceLocation:
    """``source`` with its marks moved as ``paragraph_text`` moves the text of ``raw``: an
    indent taken off, a line break joined (each the one character it was)."""
    lead = len(raw) - len(raw.lstrip())
    length = len(paragraph_text(raw))
    if not source.marks or (not lead and length == len(raw)):
        return source
    marks = tuple(
        replace(
            mark,
            start=min(max(mark.start - lead, 0), length),
            end=min(max(mark.end - lead, 0), length),
        )
        for mark in source.marks
    )
    return replace(source, marks=marks)


def manual_version_text(text: str) -> str:
    """A version a person (or the assistant for them) writes, as it is stored.

    A paragraph is one line, so a line break is refused rather than joined away: two lines
    may have been meant as two paragraphs, and only the person can say. Keeping it is no
    option: a chunk shows each work paragraph on one line, and polish and proofreading show
    its translation on the next (DESIGN's chunk text contract), which a break would split.
    """
    cleaned = text.strip()
    if not cleaned:
        raise UserError("a version cannot be empty")
    if len(cleaned.splitlines()) > 1:
        raise UserError(
            "a version is one paragraph on one line: remove the line break (a paragraph of the "
            "book cannot become two)"
        )
    return cleaned


def manual_version(text: str, line: MarkedText, paragraph: Paragraph) -> tuple[ReadText, bool]:
    """A version a person writes of ``paragraph`` (whose work line is ``line``): its clean
    text and marks, and whether it drops the paragraph's markup.

    The rules of ``manual_version_text`` hold, and the placeholders written are checked as a
    model's are: a mismatch is refused with what is missing, extra or broken. A version
    written without any placeholder, where the paragraph has some, is the person's choice:
    kept without the markup (and flagged, so that nothing is dropped unseen).
    """
    cleaned = manual_version_text(text)
    if line and not holds_placeholders(cleaned, line, paragraph.text):
        return ReadText(cleaned), True
    read = read_marked(cleaned, line, paragraph.text)
    if isinstance(read, MarkupMismatch):
        raise UserError(read.message(paragraph.id, line))
    if not read.text:
        raise UserError("a version cannot be empty")
    return read, False


@dataclass(frozen=True, slots=True)
class ChapterDraft:
    """A chapter read from a file; empty strings are kept as empty paragraphs.

    ``sources``, when the format knows them, holds one location per paragraph (``None`` for
    a paragraph that has none) and ``title_source`` the heading the title was read from.
    They describe where the text came from, not what it is, so they take no part in equality.
    """

    title: str
    paragraphs: tuple[str, ...]
    sources: tuple[SourceLocation | None, ...] = field(default=(), compare=False)
    title_source: SourceLocation | None = field(default=None, compare=False)

    def source_of(self, index: int) -> SourceLocation | None:
        return self.sources[index] if index < len(self.sources) else None


@dataclass(frozen=True, slots=True)
class BookDraft:
    """A book read from a file, before it has ids; ``original`` is that file, when kept."""

    title: str
    chapters: tuple[ChapterDraft, ...]
    author: str | None = None
    language: str | None = None
    original: OriginalFile | None = field(default=None, compare=False, repr=False)


class TranslationKind(StrEnum):
    TRANSLATION = "translation"
    POLISH = "polish"
    PROOFREADING = "proofreading"
    MANUAL = "manual"
    MEMORY = "memory"
    """Written from the translation memory: an earlier translation of the very same source."""


CHUNK_CHARS = 6000
QUESTION_WAIT_HOURS = 24.0


class BookSettings(BaseModel):
    """Per-book settings, stored with the book."""

    chunk_chars: int = Field(default=CHUNK_CHARS, ge=200, le=200_000)
    skip_ask_user: bool = False
    """The model may not ask the translator questions while working on this book."""
    approve_tools: list[str] = Field(default_factory=list)
    """Tools whose every call the translator approves before it runs."""
    always_allow: list[str] = Field(default_factory=list)
    """Tools that would need approval but are always allowed."""
    auto_accept_terms: bool = False
    """Glossary terms a model proposes are accepted at once, not left for the translator."""
    max_cost: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    """What one run of a job may spend at the model's prices, unless the run says otherwise."""
    question_wait_hours: float = Field(default=QUESTION_WAIT_HOURS, gt=0, le=24 * 365)
    """How long a queued job's question waits for a person; then the model is told nobody
    answered, and goes on."""
    model: str | None = Field(default=None, max_length=200)
    """The saved model this book's jobs run with where none is named (a trial's choice)."""
    fallbacks: list[str] = Field(default_factory=list, max_length=10)
    """The saved models that take over its parts that fail, with ``model``."""
    ruby: RubyChoice = RubyChoice.HINTS
    """What becomes of the source's ruby in a translation: the model reads its readings as
    hints only, keeps it on the translated words, or never sees it."""
    lost_markup: LostMarkup = LostMarkup.KEEP_TEXT
    """What becomes of a paragraph whose inline markup its models could not keep, once its
    rounds are spent: its translation kept without the markup (flagged), or the paragraph
    left to the translator."""
    write_from_memory: bool = False
    """Before a translation job, paragraphs whose very source the series' memory holds are
    written from it (versions by "memory"), and the job does the rest."""


@dataclass(frozen=True, slots=True)
class Paragraph:
    id: str
    index: int
    """Position in the chapter, empty paragraphs counted."""
    text: str
    translation: str | None = None
    previous_source: str | None = None
    """The text ``translation`` was made for, when a new edition has changed the paragraph
    since: the translation is stale, kept to revise rather than thrown away."""
    judged: str | None = None
    """A judge's note on ``translation`` (its score, problems and comment), for a polish or
    proofreading to fix."""
    left_on_purpose: bool = False
    """The translator keeps its source as it is (a copyright line, a word play): no job
    translates it, and it is not among what needs them."""
    marks: tuple[InlineMark, ...] = field(default=(), compare=False, repr=False)
    """The source's inline markup, as offsets into ``text`` (``domain.sources``)."""
    translation_marks: tuple[PlacedMark, ...] = field(default=(), compare=False, repr=False)
    """Where those marks land in ``translation`` (``domain.placeholders``)."""

    @property
    def is_empty(self) -> bool:
        return not self.text.strip()

    @property
    def is_stale(self) -> bool:
        return self.previous_source is not None


@dataclass(frozen=True, slots=True)
class Chapter:
    id: str
    order: int
    title: str
    translated_title: str | None
    paragraphs: tuple[Paragraph, ...] = ()
    previous_title: str | None = None
    """The title ``translated_title`` was made for, when a new edition has renamed the
    chapter since."""

    @property
    def work_paragraphs(self) -> tuple[Paragraph, ...]:
        return tuple(p for p in self.paragraphs if not p.is_empty)


@dataclass(frozen=True, slots=True)
class Book:
    id: str
    title: str
    author: str | None
    source_lang: str
    target_lang: str
    settings: BookSettings = field(default_factory=BookSettings)
    chapters: tuple[Chapter, ...] = ()
    translated_title: str | None = None
