"""Splitting a chapter's work paragraphs into chunks, and rendering a chunk for the model.

The rendered form is a contract (DESIGN.md): each work paragraph is one line
``[n] [ID: xxxxxxxx] text`` where ``n`` is the 1-based chapter position and the rest of the
line is exactly the paragraph text. Polish and proofreading add the current translation on
the next line (glossary extraction reads the source alone). Nothing else ever uses the
``[ID: `` marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from honyaku.domain.book import Chapter, Paragraph
from honyaku.domain.workflow import JobKind

MAX_CHUNK_PARAGRAPHS = 400
TRANSLATION_LINE_PREFIX = "    → "
REVISIONS = (JobKind.POLISH, JobKind.PROOFREADING)
"""The kinds that revise a translation, shown under each work line."""


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
    if chunk.shows_title:
        lines.append(f"chapter_id: {chunk.chapter.id}")
        lines.append(f"title: {chunk.chapter.title}")
        if kind in REVISIONS and chunk.chapter.translated_title:
            lines.append(f"{TRANSLATION_LINE_PREFIX}{chunk.chapter.translated_title}")
        lines.append("")
    for paragraph in chunk.paragraphs:
        lines.append(render_paragraph_line(paragraph))
        if kind in REVISIONS:
            lines.append(f"{TRANSLATION_LINE_PREFIX}{paragraph.translation or ''}")
    return "\n".join(lines)
