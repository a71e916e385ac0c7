"""Turning a stream of headings and paragraphs into chapters, with the rules all formats share.

- a chapter keeps its empty paragraphs, but not leading or trailing ones;
- a chapter with no text at all is dropped (a table-of-contents line, a title page);
- a first paragraph that repeats the chapter title is the title, not a paragraph;
- a part heading (above the chapter level: 大見出し over 中見出し, 第一部 over 第一章) is not a
  chapter of its own: its title leads the title of the first chapter inside it, and any
  text under it opens that chapter;
- text before the first heading is a front chapter named after the book.

Where a paragraph came from (its ``SourceLocation``) travels with it through these rules, and
a heading that becomes a chapter's title leaves its location as the chapter's title source.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from honyaku.domain.book import ChapterDraft
from honyaku.domain.sources import SourceLocation

PART_LEVEL = 1
CHAPTER_LEVEL = 2
SECTION_LEVEL = 3


@dataclass(frozen=True, slots=True)
class Heading:
    title: str
    level: int
    source: SourceLocation | None = None


@dataclass(frozen=True, slots=True)
class Line:
    """A paragraph line with the place it came from."""

    text: str
    source: SourceLocation | None = None


def finish_chapter(
    title: str,
    paragraphs: Sequence[str],
    sources: Sequence[SourceLocation | None] = (),
    *,
    title_source: SourceLocation | None = None,
) -> ChapterDraft | None:
    """The chapter, or ``None`` when it holds no text.

    ``sources``, if given, has one entry per paragraph; ``title_source`` is where the title
    was read, when known already (else a first paragraph that repeats the title gives it).
    """
    located = bool(sources)
    body = list(zip(paragraphs, sources if located else [None] * len(paragraphs), strict=True))
    while body and not body[0][0].strip():
        body.pop(0)
    if body and same_title(body[0][0], title):
        repeated = body.pop(0)[1]
        title_source = title_source or repeated
    while body and not body[0][0].strip():
        body.pop(0)
    while body and not body[-1][0].strip():
        body.pop()
    if not body:
        return None
    return ChapterDraft(
        title=title,
        paragraphs=tuple(p if p.strip() else "" for p, _ in body),
        sources=tuple(source for _, source in body) if located else (),
        title_source=title_source,
    )


def same_title(text: str, title: str) -> bool:
    """Whether ``text`` repeats ``title``, ignoring width, case and spacing."""
    return bool(title) and title_key(text) == title_key(title)


def title_key(text: str) -> str:
    """What ``same_title`` compares: ``text`` without width, case or spacing."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).casefold()


def join_titles(part: str, chapter: str) -> str:
    """A part's title leading a chapter's.

    ``古事記　中の卷`` and ``一、神武天皇`` give ``古事記　中の卷　一、神武天皇``;
    ``Part One`` and ``Chapter 1`` give ``Part One: Chapter 1``.
    """
    wide = any(unicodedata.east_asian_width(c) in ("W", "F") for c in part + chapter)
    return f"{part}\u3000{chapter}" if wide else f"{part}: {chapter}"


def pick_chapter_level(levels: Iterable[int]) -> int:
    """The heading level that makes chapters: 中見出し/第N章 when there are any, else parts,
    else sections (小見出し) in a book that has nothing bigger."""
    present = set(levels)
    return next(
        (level for level in (CHAPTER_LEVEL, PART_LEVEL, SECTION_LEVEL) if level in present),
        CHAPTER_LEVEL,
    )


def assemble_chapters(
    entries: Iterable[Heading | Line | str], *, chapter_level: int, front_title: str
) -> list[ChapterDraft]:
    """Chapters from headings and paragraph lines, in order."""
    builder = _Builder(front_title)
    for entry in entries:
        if isinstance(entry, str):
            builder.add(entry, None)
        elif isinstance(entry, Line):
            builder.add(entry.text, entry.source)
        elif entry.level > chapter_level:
            builder.add(entry.title, entry.source)
        elif entry.level == chapter_level:
            builder.open_chapter(entry.title, entry.source)
        else:
            builder.open_part(entry.title, entry.source)
    builder.close()
    return builder.chapters


class _Builder:
    def __init__(self, front_title: str) -> None:
        self.chapters: list[ChapterDraft] = []
        self.title = front_title
        self.title_source: SourceLocation | None = None
        self.paragraphs: list[str] = []
        self.sources: list[SourceLocation | None] = []
        self.in_part = False

    def add(self, text: str, source: SourceLocation | None) -> None:
        self.paragraphs.append(text)
        self.sources.append(source)

    def open_chapter(self, title: str, source: SourceLocation | None) -> None:
        if self.in_part:
            # A joined title is no one heading's: neither keeps its place.
            self.title, self.in_part, self.title_source = (
                join_titles(self.title, title),
                False,
                None,
            )
            return  # the part's own text, if any, opens this chapter
        self.close()
        self.title, self.title_source = title, source

    def open_part(self, title: str, source: SourceLocation | None) -> None:
        if self.in_part and not any(p.strip() for p in self.paragraphs):
            self.title, self.title_source = join_titles(self.title, title), None
            return
        self.close()
        self.title, self.title_source, self.in_part = title, source, True

    def close(self) -> None:
        located = any(source is not None for source in self.sources)
        chapter = finish_chapter(
            self.title,
            self.paragraphs,
            self.sources if located else (),
            title_source=self.title_source,
        )
        if chapter is not None:
            self.chapters.append(chapter)
        self.paragraphs, self.sources, self.title_source = [], [], None
        self.in_part = False
