"""Turning a stream of headings and paragraphs into chapters, with the rules all formats share.

- a chapter keeps its empty paragraphs, but not leading or trailing ones;
- a chapter with no text at all is dropped (a table-of-contents line, a title page);
- a first paragraph that repeats the chapter title is the title, not a paragraph;
- a part heading (above the chapter level: 大見出し over 中見出し, 第一部 over 第一章) is not a
  chapter of its own: its title leads the title of the first chapter inside it, and any
  text under it opens that chapter;
- text before the first heading is a front chapter named after the book.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from honyaku.domain.book import ChapterDraft

PART_LEVEL = 1
CHAPTER_LEVEL = 2
SECTION_LEVEL = 3


@dataclass(frozen=True, slots=True)
class Heading:
    title: str
    level: int


def finish_chapter(title: str, paragraphs: Sequence[str]) -> ChapterDraft | None:
    """The chapter, or ``None`` when it holds no text."""
    body = list(paragraphs)
    while body and not body[0].strip():
        body.pop(0)
    if body and same_title(body[0], title):
        body.pop(0)
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    if not body:
        return None
    return ChapterDraft(title=title, paragraphs=tuple(p if p.strip() else "" for p in body))


def same_title(text: str, title: str) -> bool:
    """Whether ``text`` repeats ``title``, ignoring width, case and spacing."""
    return bool(title) and _comparable(text) == _comparable(title)


def _comparable(text: str) -> str:
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
    entries: Iterable[Heading | str], *, chapter_level: int, front_title: str
) -> list[ChapterDraft]:
    """Chapters from headings and paragraph lines, in order."""
    builder = _Builder(front_title)
    for entry in entries:
        if isinstance(entry, str):
            builder.paragraphs.append(entry)
        elif entry.level > chapter_level:
            builder.paragraphs.append(entry.title)
        elif entry.level == chapter_level:
            builder.open_chapter(entry.title)
        else:
            builder.open_part(entry.title)
    builder.close()
    return builder.chapters


class _Builder:
    def __init__(self, front_title: str) -> None:
        self.chapters: list[ChapterDraft] = []
        self.title = front_title
        self.paragraphs: list[str] = []
        self.in_part = False

    def open_chapter(self, title: str) -> None:
        if self.in_part:
            self.title, self.in_part = join_titles(self.title, title), False
            return  # the part's own text, if any, opens this chapter
        self.close()
        self.title = title

    def open_part(self, title: str) -> None:
        if self.in_part and not any(p.strip() for p in self.paragraphs):
            self.title = join_titles(self.title, title)
            return
        self.close()
        self.title, self.in_part = title, True

    def close(self) -> None:
        chapter = finish_chapter(self.title, self.paragraphs)
        if chapter is not None:
            self.chapters.append(chapter)
        self.paragraphs = []
        self.in_part = False
