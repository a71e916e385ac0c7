"""Plain text books: one line is one paragraph, blank lines are empty paragraphs.

Chapters start at heading lines (see ``headings``), or at Aozora Bunko heading notes when the
file uses Aozora notation. The title is the Aozora header's, else the first line when it
stands alone like a title (short, no sentence end, followed by a blank line or a heading),
else the file name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from honyaku.domain.book import BookDraft
from honyaku.domain.languages import guess_language
from honyaku.domain.sources import SourceLocation
from honyaku.errors import BookFormatError
from honyaku.formats import aozora
from honyaku.formats.chapters import Heading, Line, assemble_chapters, pick_chapter_level
from honyaku.formats.encoding import decode_text
from honyaku.formats.headings import HeadingMatcher
from honyaku.formats.limits import BookBudget

MAX_TITLE_CHARS = 60

_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
# Web-novel ruby outside Aozora files: ｜base《reading》, or kanji followed by a kana reading.
# A bare 《…》 holding anything else is a bracket (Chinese book titles, spell names) and stays.
_MARKED_RUBY = re.compile(r"[｜|]([^｜|《\n]{1,40})《[^》\n]{1,40}》")
_KANA_RUBY = re.compile(
    r"([\u4e00-\u9fff\u3400-\u4dbf々〆ヵヶ]+)《[\u3041-\u309f\u30a0-\u30ff]{1,20}》"
)
# Every character str.splitlines() breaks at.
LINE_BREAKS = ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
TITLE_END_CHARS = ("。", "．", ".", "!", "！", "?", "？", "」", "』", "…", "、", ",", "，")


def read_text_book(
    raw: bytes,
    *,
    name: str,
    stem: str,
    chapter_pattern: str | None,
    encoding: str | None = None,
) -> BookDraft:
    """A book from the bytes of a text file; ``name`` is used in errors, ``stem`` as title.

    ``encoding`` (a codec name) is used instead of telling the encoding from the bytes.
    """
    text = decode_text(raw, name, encoding=encoding)
    lines = [_CONTROL.sub("", line) for line in _split_lines(text, name)]
    if aozora.is_aozora_text(text):
        book = _read_aozora(lines, stem, chapter_pattern, name)
    else:
        book = _read_plain(lines, stem, HeadingMatcher(chapter_pattern))
        book = replace(book, language=guess_language(text))
    if not book.chapters:
        raise BookFormatError(f"{name}: no text in the file, only headings or notes")
    return book


def _split_lines(text: str, name: str) -> list[str]:
    """The lines of the file, counted against the book caps before the list is made: a file
    of nothing but line breaks would otherwise become hundreds of millions of paragraphs."""
    budget = BookBudget(name)
    breaks = sum(text.count(brk) for brk in LINE_BREAKS) - text.count("\r\n")
    budget.add(paragraphs=breaks + 1, chars=len(text))
    lines = text.splitlines()
    budget.refuse_long_paragraph(max(map(len, lines), default=0))
    return lines


def _read_plain(lines: list[str], stem: str, matcher: HeadingMatcher) -> BookDraft:
    title_index = _title_line(lines, matcher)
    title = lines[title_index].strip() if title_index is not None else stem
    body = lines[title_index + 1 :] if title_index is not None else lines
    entries = [_plain_entry(line, matcher) for line in body]
    chapter_level = pick_chapter_level(e.level for e in entries if isinstance(e, Heading))
    chapters = assemble_chapters(entries, chapter_level=chapter_level, front_title=title)
    return BookDraft(title=title, chapters=tuple(chapters))


def _plain_entry(line: str, matcher: HeadingMatcher) -> Heading | str:
    level = matcher.level(line)
    if level:
        return Heading(line.strip(), level)
    if "《" in line:
        line = _KANA_RUBY.sub(r"\1", _MARKED_RUBY.sub(r"\1", line))
    return line.rstrip() if line.strip() else ""


def _title_line(lines: list[str], matcher: HeadingMatcher) -> int | None:
    index = next((i for i, line in enumerate(lines) if line.strip()), None)
    if index is None:
        return None
    candidate = lines[index].strip()
    if len(candidate) > MAX_TITLE_CHARS or candidate.endswith(TITLE_END_CHARS):
        return None
    if matcher.level(candidate):
        return None
    following = lines[index + 1] if index + 1 < len(lines) else ""
    return index if not following.strip() or matcher.level(following) else None


def _read_aozora(lines: list[str], stem: str, chapter_pattern: str | None, name: str) -> BookDraft:
    parts = aozora.split_aozora(lines)
    title = parts.title or stem
    # Heading notes are the author's own chapters; the built-in patterns only stand in for
    # them in a file that has none. The user's pattern always applies.
    has_notes = any("見出し］" in line for line in parts.body)
    matcher = HeadingMatcher(chapter_pattern, builtin=not has_notes)
    entries = list(_aozora_entries(parts.body, matcher, name, parts.first_body_line))
    chapter_level = pick_chapter_level(e.level for e in entries if isinstance(e, Heading))
    chapters = assemble_chapters(entries, chapter_level=chapter_level, front_title=title)
    return BookDraft(title=title, chapters=tuple(chapters), author=parts.author, language="ja")


def _aozora_entries(
    body: list[str], matcher: HeadingMatcher, name: str, first: int
) -> Iterator[Heading | Line | str]:
    """Headings and lines; a line with ruby or emphasis keeps them as marks, located by its
    line number in the file (there is no original to put them back in: a book made of
    them is generated, ``formats.epub_writer``)."""
    for number, line in enumerate(body, start=first + 1):
        heading = aozora.find_heading(line) if "見出し" in line else None
        if heading is not None:
            yield Heading(heading.title, heading.level)
            if heading.rest:
                yield heading.rest
            continue
        text, marks = aozora.marked_line(line)
        if not text.strip():
            if not line.strip():
                yield ""  # a blank line in the file; a line of notes alone is no line at all
            continue
        level = matcher.level(text)
        if level:
            yield Heading(text.strip(), level)
        elif marks:
            yield Line(text.rstrip(), SourceLocation(name, f"line {number}", marks))
        else:
            yield text.rstrip()
