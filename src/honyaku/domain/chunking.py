"""Splitting a chapter's work paragraphs into chunks, and rendering a chunk for the model.

The rendered form is a contract that outside checks rely on: each work paragraph is one line
``[n] [ID: xxxxxxxx] text`` where ``n`` is the 1-based chapter position and the rest of the
line is exactly the paragraph text, with its inline marks as placeholders where the job
writes text (``placeholders``: translation, polish, proofreading; a rating or a glossary
extraction reads clean text). Polish, proofreading and rating add the current
translation on the next line (glossary extraction reads the source alone), and polish and
proofreading a judge's note on it, where a rating job left one (``JUDGE_LINE_PREFIX``). A
translation's paragraph whose translation is stale (a new edition changed its source) adds,
as context, the text that translation was made for and the translation
(``STALE_LINE_PREFIX``); a renamed chapter's title likewise. Nothing else ever uses the
``[ID: `` marker.

Consecutive chapters shorter than a chunk share one conversation with each other and the first
chunk of the chapter after them (``conversations``): the chunk of the first carries the others
(``Chunk.joined``), each rendered after its own ``chapter_id`` line, so that every title goes
under its chapter's id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from honyaku.domain.book import Chapter, Paragraph
from honyaku.domain.placeholders import MarkedText, RubyChoice, marked_translation, shown_line
from honyaku.domain.workflow import JobKind

MAX_CHUNK_PARAGRAPHS = 400
MAX_JOINED_CHAPTERS = 8
"""Short chapters in one conversation at most: each brings a title and a chapter_id to keep
apart."""
TINY_SHARE = 0.1
"""Chapters this small a share of a chunk (a title page, a one-line preface) go with the next
chapter's first chunk even past the chunk's size: a conversation of their own would cost a
whole round of requests for a line or two."""
TRANSLATION_LINE_PREFIX = "    → "
STALE_LINE_PREFIX = "    ↺ "
JUDGE_LINE_PREFIX = "    ! judge: "
REVISIONS = (JobKind.POLISH, JobKind.PROOFREADING)
"""The kinds that revise a translation."""
WITH_TRANSLATION = (*REVISIONS, JobKind.RATING)
"""The kinds that read the current translation, shown under each work line."""
WITH_PLACEHOLDERS = (JobKind.TRANSLATION, *REVISIONS)
"""The kinds whose model writes text, and so reads and returns the inline marks."""


@dataclass(frozen=True, slots=True)
class Chunk:
    chapter: Chapter
    number: int
    """1-based position of the chunk among this run's chunks of the chapter."""
    paragraphs: tuple[Paragraph, ...]
    shows_title: bool
    """The chapter's first chunk carries the title to translate."""
    joined: tuple[Chunk, ...] = ()
    """The chapters after this one that share its conversation: short ones, whole, and
    perhaps the first chunk of the one after them."""

    @property
    def paragraph_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.paragraphs)

    @property
    def sections(self) -> tuple[Chunk, ...]:
        """The chunk, then the chapters joined to it."""
        return (self, *self.joined)

    @property
    def all_paragraphs(self) -> tuple[Paragraph, ...]:
        """The work paragraphs of every section, in order."""
        return tuple(p for section in self.sections for p in section.paragraphs)

    @property
    def titles(self) -> tuple[Chapter, ...]:
        """The chapters whose title the chunk carries."""
        return tuple(section.chapter for section in self.sections if section.shows_title)


@dataclass(frozen=True, slots=True)
class Opening:
    """A chapter's first chunk waiting to run, as conversations are shared."""

    number: int
    chars: int
    whole: bool
    """The chunk is all the chapter has to do: the next chapter may follow it."""


def conversations(chapters: Sequence[Opening | int], max_chars: int) -> list[list[int]]:
    """Chapters in order (each its first chunk waiting to run, or only its number where that
    chunk cannot be shared) grouped by the conversation they share: consecutive chapters
    whose work is one short chunk, up to ``max_chars`` and ``MAX_JOINED_CHAPTERS``, then the
    first chunk of the next; a group of a few lines (``TINY_SHARE``) with the next chapter's
    first chunk whatever its size."""
    groups: list[list[int]] = []
    size: int | None = None
    """The characters of the last group, while another chapter may follow it."""
    for chapter in chapters:
        if isinstance(chapter, int):
            groups.append([chapter])
            size = None
            continue
        fits = size is not None and (
            size + chapter.chars <= max_chars or size <= TINY_SHARE * max_chars
        )
        if fits and groups[-1][-1] == chapter.number - 1 and len(groups[-1]) < MAX_JOINED_CHAPTERS:
            groups[-1].append(chapter.number)
            size = (size or 0) + chapter.chars
        else:
            groups.append([chapter.number])
            size = chapter.chars
        if not chapter.whole:
            size = None
    return groups


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


def joined_chunks(chapters: Sequence[Sequence[Chunk]], max_chars: int) -> list[Chunk]:
    """Each chapter's chunks (in order), the short ones joined as they share conversations."""
    by_number = {chunks[0].chapter.order: chunks for chunks in chapters if chunks}
    openings = [
        Opening(n, sum(len(p.text) for p in chunks[0].paragraphs), len(chunks) == 1)
        for n, chunks in by_number.items()
    ]
    found: list[Chunk] = []
    for group in conversations(openings, max_chars):
        first, *rest = (by_number[n][0] for n in group)
        found.append(replace(first, joined=tuple(rest)))
        found += by_number[group[-1]][1:]
    return found


def render_paragraph_line(paragraph: Paragraph, line: MarkedText | None = None) -> str:
    """A work line: the paragraph's text, or its ``line`` with placeholders."""
    text = line.text if line is not None else paragraph.text
    return f"[{paragraph.index + 1}] [ID: {paragraph.id}] {text}"


def marked_lines(
    paragraphs: Sequence[Paragraph], kind: JobKind, ruby: RubyChoice
) -> dict[str, MarkedText]:
    """Each paragraph's work line with its placeholders, by id, as a job of ``kind`` shows it
    (none for a kind that writes no text)."""
    if kind not in WITH_PLACEHOLDERS:
        return {}
    return {p.id: shown_line(p.text, p.marks, ruby) for p in paragraphs}


def shows_placeholders(chunk: Chunk, kind: JobKind, ruby: RubyChoice) -> bool:
    """Whether the chunk's work lines hold any placeholder or reading hint."""
    shown = marked_lines(chunk.all_paragraphs, kind, ruby)
    return any(shown[p.id].text != p.text for p in chunk.all_paragraphs if p.id in shown)


def render_chunk(chunk: Chunk, kind: JobKind, ruby: RubyChoice = RubyChoice.HINTS) -> str:
    """The chunk as the model reads it: each of its chapters' title block (or, where chapters
    share it, a ``chapter_id`` line without its title if that is not wanted), then one line a
    paragraph; ``ruby`` says whether a ruby's base is a placeholder and its reading a hint."""
    if not chunk.joined:
        return _render_section(chunk, kind, ruby, shared=False)
    sections = [_render_section(s, kind, ruby, shared=True).rstrip("\n") for s in chunk.sections]
    return "\n\n".join(sections)


def _render_section(chunk: Chunk, kind: JobKind, ruby: RubyChoice, *, shared: bool) -> str:
    lines: list[str] = []
    chapter = chunk.chapter
    if chunk.shows_title or shared:
        lines.append(f"chapter_id: {chapter.id}")
    if chunk.shows_title:
        lines.append(f"title: {chapter.title}")
        if kind in REVISIONS and chapter.translated_title:
            lines.append(f"{TRANSLATION_LINE_PREFIX}{chapter.translated_title}")
        elif kind is JobKind.TRANSLATION and chapter.previous_title is not None:
            lines += _previous(chapter.previous_title, chapter.translated_title)
    if lines:
        lines.append("")
    shown = marked_lines(chunk.paragraphs, kind, ruby)
    for paragraph in chunk.paragraphs:
        line = shown.get(paragraph.id)
        lines.append(render_paragraph_line(paragraph, line))
        if kind in WITH_TRANSLATION:
            translation = paragraph.translation or ""
            if line and translation:
                translation = marked_translation(translation, paragraph.translation_marks, line)
            lines.append(f"{TRANSLATION_LINE_PREFIX}{translation}")
        if kind in REVISIONS and paragraph.judged:
            lines.append(f"{JUDGE_LINE_PREFIX}{paragraph.judged}")
        elif kind is JobKind.TRANSLATION and paragraph.previous_source is not None:
            lines += _previous(paragraph.previous_source, paragraph.translation)
    return "\n".join(lines)


def shows_previous(chunk: Chunk) -> bool:
    """Whether a translation chunk shows earlier translations to revise (stale ones)."""
    titles = any(chapter.previous_title is not None for chapter in chunk.titles)
    return titles or any(p.is_stale for p in chunk.all_paragraphs)


def shows_judged(chunk: Chunk, kind: JobKind) -> bool:
    """Whether a revision's chunk shows a judge's notes on its translations."""
    return kind in REVISIONS and any(p.judged for p in chunk.all_paragraphs)


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
