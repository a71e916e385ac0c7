"""Splitting a chapter's work paragraphs into chunks, and rendering a chunk for the model.

The rendered form is a contract that outside checks rely on: each work paragraph is one line
``[n] [ID: xxxxxxxx] text`` where ``n`` is the 1-based chapter position and the rest of the
line is exactly the paragraph text. Polish, proofreading and rating add the current
translation on the next line (glossary extraction reads the source alone), and polish and
proofreading a judge's note on it, where a rating job left one (``JUDGE_LINE_PREFIX``). A
translation's paragraph whose translation is stale (a new edition changed its source) adds,
as context, the text that translation was made for and the translation
(``STALE_LINE_PREFIX``); a renamed chapter's title likewise. Nothing else ever uses the
``[ID: `` marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from honyaku.domain.book import Chapter, Paragraph
from honyaku.domain.workflow import JobKind

MAX_CHUNK_PARAGRAPHS = 400
TRANSLATION_LINE_PREFIX = "    → "
STALE_LINE_PREFIX = "    ↺ "
JUDGE_LINE_PREFIX = "    ! judge: "
REVISIONS = (JobKind.POLISH, JobKind.PROOFREADING)
"""The kinds that revise a translation."""
WITH_TRANSLATION = (*REVISIONS, JobKind.RATING)
"""The kinds that read the current translation, shown under each work line."""


@dataclass(frozen=True, slots=True)
class Chunk:
    chapter: Chapter
    number: int
    """1-based position of the chunk among this run's chunks of the chapter."""
    paragraphs: tuple[Paragraph, ...]
    shows_title: bool
    """The chapter's first chunk carries the title to translate."""

    @property
    def paragraph_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.paragraphs)


def split_into_chunks(
    chapter: Chapter,
    work: Sequence[Paragraph],
    *,
    max_chars: int,
    max_paragraphs: int = MAX_CHUNK_PARAGRAPHS,
    with_title: bool = True,
) -> list[Chunk]:
    """Group ``work`` (in chapter order) into chunks of at most ``max_chars`` source characters.

    A paragraph longer than ``max_chars`` gets a chunk of its own; it is never cut.
    """
    groups: list[list[Paragraph]] = []
    size = 0
    for paragraph in work:
        full = groups and (
            size + len(paragraph.text) > max_chars or len(groups[-1]) >= max_paragraphs
        )
        if not groups or full:
            groups.append([])
            size = 0
        groups[-1].append(paragraph)
        size += len(paragraph.text)
    if not groups and with_title:
        groups.append([])
    return [
        Chunk(chapter, number, tuple(group), shows_title=with_title and number == 1)
        for number, group in enumerate(groups, start=1)
    ]


def render_paragraph_line(paragraph: Paragraph) -> str:
    return f"[{paragraph.index + 1}] [ID: {paragraph.id}] {paragraph.text}"


def render_chunk(chunk: Chunk, kind: JobKind) -> str:
    """The chunk as the model reads it: an optional title block, then one line per paragraph."""
    lines: list[str] = []
    chapter = chunk.chapter
    if chunk.shows_title:
        lines.append(f"chapter_id: {chapter.id}")
        lines.append(f"title: {chapter.title}")
        if kind in REVISIONS and chapter.translated_title:
            lines.append(f"{TRANSLATION_LINE_PREFIX}{chapter.translated_title}")
        elif kind is JobKind.TRANSLATION and chapter.previous_title is not None:
            lines += _previous(chapter.previous_title, chapter.translated_title)
        lines.append("")
    for paragraph in chunk.paragraphs:
        lines.append(render_paragraph_line(paragraph))
        if kind in WITH_TRANSLATION:
            lines.append(f"{TRANSLATION_LINE_PREFIX}{paragraph.translation or ''}")
        if kind in REVISIONS and paragraph.judged:
            lines.append(f"{JUDGE_LINE_PREFIX}{paragraph.judged}")
        elif kind is JobKind.TRANSLATION and paragraph.previous_source is not None:
            lines += _previous(paragraph.previous_source, paragraph.translation)
    return "\n".join(lines)


def shows_previous(chunk: Chunk) -> bool:
    """Whether a translation chunk shows earlier translations to revise (stale ones)."""
    title = chunk.shows_title and chunk.chapter.previous_title is not None
    return title or any(p.is_stale for p in chunk.paragraphs)


def shows_judged(chunk: Chunk, kind: JobKind) -> bool:
    """Whether a revision's chunk shows a judge's notes on its translations."""
    return kind in REVISIONS and any(p.judged for p in chunk.paragraphs)


def _previous(source: str, translation: str | None) -> list[str]:
    return [
        f"{STALE_LINE_PREFIX}was: {source}",
        f"{STALE_LINE_PREFIX}translated: {translation or ''}",
    ]


def describe_failed_parts(failed: Sequence[tuple[int, str]], left: int = 0) -> str | None:
    """A job's outcome in a person's words, from the chapter and reason of each part of its
    text that failed, and the count of those left undone: ``"2 parts of the text failed; the
    first, in chapter 3: …"``; ``None`` when none were."""
    if failed:
        chapter, reason = failed[0]
        return (
            f"{_parts(len(failed))} of the text failed; the first, in chapter {chapter}: {reason}"
        )
    if left:
        return f"{_parts(left)} of the text not done"
    return None


def _parts(count: int) -> str:
    return "1 part" if count == 1 else f"{count} parts"
