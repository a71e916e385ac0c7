"""A job's plan: each chapter's work paragraphs, split into chunks.

The plan is made when the job is created, at the size its model is best served by
(``sizing``), and kept as rows (``store.chunks``); a resumed job runs what is left of the
same plan. Chunks waiting to run are planned again (``replanner``) when that size changes:
the job learned how its model works, or a request did not fit the model's context.

A paragraph counts as done for a translation once it has a selected translation (unless the
job retranslates), and for every job once the job has written a version of it. Glossary
extraction writes no versions: the status of its chunk rows alone says what is done. On a
book a new edition changed, a translation job does the new paragraphs and those whose
translation is stale.

A job over some paragraphs only (``only``: "retranslate these") plans those alone, in the
chunks of their chapters, and never the chapters' titles.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from honyaku.domain.book import Book, Chapter, Paragraph
from honyaku.domain.chunking import Chunk, split_into_chunks
from honyaku.domain.workflow import JobKind
from honyaku.store.chunks import PlannedChunk, Replan


def work_of(chapter: Chapter, kind: JobKind, only: Set[str] | None = None) -> list[Paragraph]:
    """A chapter's work items: non-empty paragraphs (those in ``only``, if given, else those
    the translator has not left as they are on purpose), and for revisions and ratings only
    translated ones."""
    work = [
        p
        for p in chapter.work_paragraphs
        if (p.id in only if only is not None else not p.left_on_purpose)
    ]
    if kind in (JobKind.TRANSLATION, JobKind.EXTRACTION):
        return work
    return [p for p in work if p.translation]


def is_done(paragraph: Paragraph, kind: JobKind, *, retranslate: bool, written: Set[str]) -> bool:
    """Whether the job has nothing left to do on ``paragraph``; ``written`` are the ids the
    job has already written a version of. A stale translation (a new edition changed its
    source) is not done: it is translated again."""
    if paragraph.id in written:
        return True
    translated = paragraph.translation is not None and not paragraph.is_stale
    return kind is JobKind.TRANSLATION and not retranslate and translated


def title_wanted(
    chapter: Chapter, kind: JobKind, *, retranslate: bool, only: Set[str] | None = None
) -> bool:
    fresh = chapter.translated_title is not None and chapter.previous_title is None
    return kind is JobKind.TRANSLATION and only is None and (retranslate or not fresh)


def split_book(
    book: Book,
    kind: JobKind,
    *,
    retranslate: bool,
    written: Set[str],
    chunk_chars: int | None = None,
    only: Set[str] | None = None,
) -> list[list[Chunk]]:
    """Each chapter's chunks still to do, in chapter order, of at most ``chunk_chars`` (by
    default the book's setting)."""
    chunk_chars = chunk_chars or book.settings.chunk_chars
    chapters = []
    for chapter in book.chapters:
        work = [
            p
            for p in work_of(chapter, kind, only)
            if not is_done(p, kind, retranslate=retranslate, written=written)
        ]
        chapters.append(
            split_into_chunks(
                chapter,
                work,
                max_chars=chunk_chars,
                with_title=title_wanted(chapter, kind, retranslate=retranslate, only=only),
            )
        )
    return chapters


def plan_chunks(chapters: list[list[Chunk]]) -> list[PlannedChunk]:
    """Each chapter's chunks (``split_book``'s), as the rows a job plans."""
    return [_planned(chunk, chunk.number, len(chunks)) for chunks in chapters for chunk in chunks]


def replanner(book: Book, chunk_chars: int) -> Replan:
    """How the chunks of ``book`` waiting to run are planned again at ``chunk_chars``."""
    chapters = {chapter.id: chapter for chapter in book.chapters}

    def split(
        chapter_id: str, paragraph_ids: Sequence[str], shows_title: bool, first: int
    ) -> list[PlannedChunk]:
        chapter = chapters[chapter_id]
        by_id = {p.id: p for p in chapter.paragraphs}
        work = [by_id[pid] for pid in paragraph_ids if pid in by_id]
        chunks = split_into_chunks(chapter, work, max_chars=chunk_chars, with_title=shows_title)
        last = first + len(chunks) - 1
        return [_planned(chunk, first + n, last) for n, chunk in enumerate(chunks)]

    return split


def _planned(chunk: Chunk, number: int, in_chapter: int) -> PlannedChunk:
    return PlannedChunk(
        chunk.chapter.id,
        chunk.chapter.order,
        number,
        in_chapter,
        chunk.paragraph_ids,
        chunk.shows_title,
    )


def still_to_do(
    book: Book,
    kind: JobKind,
    *,
    retranslate: bool,
    written: Set[str],
    only: Set[str] | None = None,
) -> tuple[dict[str, Paragraph], set[str]]:
    """The work paragraphs of ``book`` (by id) for a job of ``kind``, and those not done."""
    paragraphs = {p.id: p for c in book.chapters for p in work_of(c, kind, only)}
    to_do = {
        pid
        for pid, paragraph in paragraphs.items()
        if not is_done(paragraph, kind, retranslate=retranslate, written=written)
    }
    return paragraphs, to_do
