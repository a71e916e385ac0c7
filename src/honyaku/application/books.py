"""The library as a translator uses it: books imported, read, exported and deleted, the
paragraphs to look at again (flagged by the quality checks, or stale after a new edition),
what happened in a book's jobs."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from honyaku.domain.book import Book, Chapter
from honyaku.domain.languages import guess_language, normalize_language
from honyaku.domain.quality import QualityWarning
from honyaku.errors import NotFoundError, UserError
from honyaku.formats import ExportFormat, RubyMode, WritingMode, read_book, write_book
from honyaku.store import (
    ActionKind,
    BookSummary,
    ChapterProgress,
    FlaggedParagraph,
    JobStatus,
    RecordedAction,
    Stores,
    Version,
)

DEFAULT_TARGET = "zh-CN"
SAMPLE = Path(__file__).parents[1] / "samples" / "rashomon.html"
STALE_TRANSLATION = "STALE_TRANSLATION"
"""The warning code of a translation made before a new edition changed its source."""


@dataclass(frozen=True, slots=True)
class ImportedBook:
    id: str
    title: str
    chapters: int
    paragraphs: int
    source_lang: str
    target_lang: str


@dataclass(frozen=True, slots=True)
class BookDetail:
    summary: BookSummary
    book: Book
    """Its title, languages and settings, without chapters."""
    chapters: list[ChapterProgress]


@dataclass(frozen=True, slots=True)
class ChapterView:
    """A chapter with its selected translations and every paragraph's versions."""

    book: Book
    """With this one chapter."""
    count: int
    """How many chapters the book has."""
    versions: dict[str, list[Version]]

    @property
    def chapter(self) -> Chapter:
        return self.book.chapters[0]


class Books:
    def __init__(self, stores: Stores) -> None:
        self._stores = stores
        self._library = stores.library

    async def all(self) -> list[BookSummary]:
        return await asyncio.to_thread(self._library.list_books)

    async def resolve(self, ref: str) -> str:
        """The id of the book ``ref`` names: its id, or an unambiguous prefix of it."""
        return await asyncio.to_thread(self._library.resolve, ref)

    async def get(self, book_id: str) -> Book:
        """The book's title, languages and settings, without its chapters."""
        return await asyncio.to_thread(self._library.book, book_id)

    async def whole(self, book_id: str, chapters: Collection[int] | None = None) -> Book:
        """The book with its chapters (only those numbered, if given) and translations."""
        return await asyncio.to_thread(self._library.get_book, book_id, chapter_numbers=chapters)

    async def detail(self, book_id: str) -> BookDetail:
        return await asyncio.to_thread(self._detail, book_id)

    async def chapter_count(self, book_id: str) -> int:
        return await asyncio.to_thread(self._library.chapter_count, book_id)

    async def chapter(self, book_id: str, number: int) -> ChapterView:
        """Chapter ``number`` (from 1) with every paragraph's versions."""
        return await asyncio.to_thread(self._chapter, book_id, number)

    async def import_file(
        self,
        path: Path,
        *,
        title: str | None = None,
        source_lang: str | None = None,
        target_lang: str = DEFAULT_TARGET,
        chapter_pattern: str | None = None,
        encoding: str | None = None,
    ) -> ImportedBook:
        """Read the book at ``path`` (in ``encoding``, for a text file whose encoding cannot
        be told) and store it; the source language is the book's own, else guessed."""
        return await asyncio.to_thread(
            self._import,
            path,
            title=title,
            source_lang=source_lang,
            target_lang=target_lang,
            chapter_pattern=chapter_pattern,
            encoding=encoding,
        )

    async def import_sample(self) -> str:
        """The sample book (Akutagawa's Rashōmon, into Chinese), imported once."""
        return await asyncio.to_thread(self._sample)

    async def export(
        self,
        book_id: str,
        path: Path,
        fmt: ExportFormat,
        *,
        bilingual: bool = False,
        rebuild: bool = False,
        writing_mode: WritingMode | None = None,
        ruby: RubyMode = RubyMode.KEEP,
    ) -> None:
        """Write the book with its selected translations (the source where there is none).

        A book imported from an EPUB becomes that EPUB translated in place, unless
        ``rebuild`` asks for a plain one built from the paragraphs.
        """

        def export() -> None:
            in_place = fmt is ExportFormat.EPUB and not rebuild
            sources = self._library.sources(book_id) if in_place else None
            write_book(
                self._library.get_book(book_id),
                path,
                fmt,
                bilingual=bilingual,
                sources=sources,
                writing_mode=writing_mode,
                ruby=ruby,
            )

        await asyncio.to_thread(export)

    async def delete(self, book_id: str) -> None:
        """Remove the book and all that belongs to it; refused while a job works on it."""

        def delete() -> None:
            for job in self._stores.jobs.for_book(book_id):
                if job.shown_status is JobStatus.RUNNING:
                    raise UserError(f"job {job.id} is running on this book: stop it first")
            self._library.delete_book(book_id)

        await asyncio.to_thread(delete)

    async def flagged(
        self, book_id: str, *, chapters: Collection[int] | None = None
    ) -> list[FlaggedParagraph]:
        """Paragraphs to look at again, in book order: those whose selected translation has
        warnings or is stale (made before a new edition changed the source); only the given
        chapters (from 1) if asked."""
        return await asyncio.to_thread(self._flagged, book_id, chapters)

    async def actions(
        self, book_id: str, kinds: Sequence[ActionKind] | None = None
    ) -> list[RecordedAction]:
        """What happened in the book's jobs, oldest first; only actions of ``kinds``."""
        return await asyncio.to_thread(self._stores.jobs.actions, book_id, kinds=kinds)

    def _detail(self, book_id: str) -> BookDetail:
        book = self._library.book(book_id)
        summary = next(b for b in self._library.list_books() if b.id == book.id)
        return BookDetail(summary, book, self._library.progress(book_id))

    def _flagged(self, book_id: str, chapters: Collection[int] | None) -> list[FlaggedParagraph]:
        stale = self._stale(book_id, chapters)  # an unknown book is an error, not an empty list
        found = {
            p.paragraph_id: p
            for p in self._stores.quality.flagged(book_id, chapter_numbers=chapters)
        }
        for paragraph in stale:
            if before := found.get(paragraph.paragraph_id):
                paragraph = replace(before, warnings=(*paragraph.warnings, *before.warnings))
            found[paragraph.paragraph_id] = paragraph
        return sorted(found.values(), key=lambda p: (p.chapter_number, p.index))

    def _stale(self, book_id: str, chapters: Collection[int] | None) -> list[FlaggedParagraph]:
        book = self._library.get_book(book_id, chapter_numbers=chapters)
        return [
            FlaggedParagraph(
                chapter.order,
                chapter.id,
                p.id,
                p.index,
                p.text,
                p.translation or "",
                (
                    QualityWarning(
                        STALE_TRANSLATION,
                        f"a new edition changed the source since; it was: {p.previous_source}",
                        p.id,
                    ),
                ),
            )
            for chapter in book.chapters
            for p in chapter.paragraphs
            if p.is_stale
        ]

    def _chapter(self, book_id: str, number: int) -> ChapterView:
        count = self._library.chapter_count(book_id)
        if not 1 <= number <= count:
            raise NotFoundError(f"book {book_id} has no chapter {number}")
        book = self._library.get_book(book_id, chapter_numbers=[number])
        versions = self._library.chapter_versions(book_id, book.chapters[0].id)
        return ChapterView(book, count, versions)

    def _import(
        self,
        path: Path,
        *,
        title: str | None,
        source_lang: str | None,
        target_lang: str,
        chapter_pattern: str | None,
        encoding: str | None,
    ) -> ImportedBook:
        draft = read_book(path, chapter_pattern=chapter_pattern, encoding=encoding)
        text = "".join(p for c in draft.chapters for p in c.paragraphs)
        source = normalize_language(source_lang or draft.language or guess_language(text) or "en")
        target = normalize_language(target_lang)
        book_id = self._library.add_book(
            draft, source_lang=source, target_lang=target, title=title, file_name=path.name
        )
        return ImportedBook(
            book_id,
            title or draft.title,
            len(draft.chapters),
            sum(len(c.paragraphs) for c in draft.chapters),
            source,
            target,
        )

    def _sample(self) -> str:
        draft = read_book(SAMPLE)
        for book in self._library.list_books():
            if book.title == draft.title and book.author == draft.author:
                return book.id
        return self._import(
            SAMPLE,
            title=None,
            source_lang="ja",
            target_lang=DEFAULT_TARGET,
            chapter_pattern=None,
            encoding=None,
        ).id
