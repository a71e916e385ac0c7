"""The library as a translator uses it: books imported, read, exported and deleted, the
paragraphs to look at again (flagged by the quality checks, or stale after a new edition),
what happened in a book's jobs."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from honyaku.domain.book import Book, BookDraft, Paragraph, paragraph_text
from honyaku.domain.failures import Coverage, Left
from honyaku.domain.languages import guess_language, is_language_tag, normalize_language
from honyaku.domain.quality import QualityWarning
from honyaku.domain.selection import parse_chapter_numbers
from honyaku.errors import DuplicateBookError, NotFoundError, UserError
from honyaku.formats import ExportFormat, RubyMode, WritingMode, read_book, write_book
from honyaku.store import (
    ActionKind,
    BookSummary,
    ChapterProgress,
    FlaggedParagraph,
    JobStatus,
    LocatedParagraph,
    RatedParagraph,
    RecordedAction,
    Stores,
    Version,
)

DEFAULT_TARGET = "zh-CN"
PAGE_PARAGRAPHS = 200
"""How many paragraphs of a chapter are read at once, unless asked otherwise."""
PAGE_BOOKS = 100
"""How many books the library shows at once."""
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
class Leftover:
    """What of a book is not translated yet, and how much is."""

    coverage: Coverage
    left: list[Left]
    """Each paragraph and chapter title left, in book order, a chapter's title first."""
    kept: list[Left] = field(default_factory=list)
    """The paragraphs the translator left as they are on purpose, in book order: no job
    translates them, and they need nobody."""

    @property
    def needs_you(self) -> list[Left]:
        """Those a job tried and could not translate: the translator's to finish."""
        return [item for item in self.left if item.failure is not None]


@dataclass(frozen=True, slots=True)
class ChapterView:
    """A page of a chapter: some of its paragraphs, with their selected translations and
    every version, so that a chapter of any length is read a page at a time."""

    book: Book
    """Its title, languages and settings, without chapters."""
    chapter: ChapterProgress
    """The chapter's titles and counts (``paragraphs`` counts them all, empty ones too)."""
    count: int
    """How many chapters the book has."""
    start: int
    """The position of the first paragraph in ``paragraphs``."""
    paragraphs: tuple[Paragraph, ...]
    versions: dict[str, list[Version]]


class Books:
    def __init__(self, stores: Stores) -> None:
        self._stores = stores
        self._library = stores.library

    async def all(self) -> list[BookSummary]:
        return await asyncio.to_thread(self._library.list_books)

    async def page(self, start: int, limit: int) -> tuple[list[BookSummary], int]:
        """Up to ``limit`` books from the ``start``-th, and how many there are in all."""

        def page() -> tuple[list[BookSummary], int]:
            return self._library.list_books(start=start, limit=limit), self._library.count_books()

        return await asyncio.to_thread(page)

    async def resolve(self, ref: str) -> str:
        """The id of the book ``ref`` names: its id, or an unambiguous prefix of it."""
        return await asyncio.to_thread(self._library.resolve, ref)

    async def info(self, book_id: str) -> Book:
        """The book's title, languages and settings, without its chapters."""
        return await asyncio.to_thread(self._library.book_info, book_id)

    async def whole(self, book_id: str, chapters: Collection[int] | None = None) -> Book:
        """The book with its chapters (only those numbered, if given) and translations."""
        return await asyncio.to_thread(self._library.whole_book, book_id, chapter_numbers=chapters)

    async def detail(self, book_id: str) -> BookDetail:
        return await asyncio.to_thread(self._detail, book_id)

    async def progress(self, book_id: str) -> list[ChapterProgress]:
        """Each chapter's title and how much of it is translated."""
        return await asyncio.to_thread(self._library.progress, book_id)

    async def chapter_numbers(self, book_id: str, chapters: str | None) -> list[int] | None:
        """The chapters ``chapters`` names (``1-3,7``) in the book; ``None`` (or nothing
        written) for all of them."""
        if not chapters or not chapters.strip():
            return None
        count = await self.chapter_count(book_id)
        return parse_chapter_numbers(chapters, count)

    async def chapter_count(self, book_id: str) -> int:
        return await asyncio.to_thread(self._library.chapter_count, book_id)

    async def chapter(
        self, book_id: str, number: int, *, start: int = 0, limit: int = PAGE_PARAGRAPHS
    ) -> ChapterView:
        """Up to ``limit`` paragraphs of chapter ``number`` (from 1) from position ``start``,
        with their versions; what is read does not grow with the chapter."""
        return await asyncio.to_thread(self._chapter, book_id, number, start, limit)

    async def locate(self, book_id: str, paragraph_id: str) -> LocatedParagraph:
        """The chapter a paragraph is in, and its position there."""

        def locate() -> LocatedParagraph:
            found = self._library.locate(book_id, paragraph_id)
            if found is None:
                raise NotFoundError(
                    "no paragraph {paragraph_id} in book {book_id}",
                    paragraph_id=paragraph_id,
                    book_id=book_id,
                )
            return found

        return await asyncio.to_thread(locate)

    async def import_file(
        self,
        path: Path,
        *,
        title: str | None = None,
        source_lang: str | None = None,
        target_lang: str = DEFAULT_TARGET,
        chapter_pattern: str | None = None,
        encoding: str | None = None,
        again: bool = True,
    ) -> ImportedBook:
        """Read the book at ``path`` (in ``encoding``, for a text file whose encoding cannot
        be told) and store it; the source language is the book's own, else guessed. Unless
        ``again``, a book the library already holds (the same title, author and paragraphs'
        count) is refused with ``DuplicateBookError``, which names it."""
        return await asyncio.to_thread(
            self._import,
            path,
            title=title,
            source_lang=source_lang,
            target_lang=target_lang,
            chapter_pattern=chapter_pattern,
            encoding=encoding,
            again=again,
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
                self._library.whole_book(book_id),
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
                    raise UserError("job {job} is running on this book: stop it first", job=job.id)
            self._library.delete_book(book_id)

        await asyncio.to_thread(delete)

    async def flagged(
        self, book_id: str, *, chapters: Collection[int] | None = None
    ) -> list[FlaggedParagraph]:
        """Paragraphs to look at again, in book order: those whose selected translation has
        warnings or is stale (made before a new edition changed the source); only the given
        chapters (from 1) if asked."""
        return await asyncio.to_thread(self._flagged, book_id, chapters)

    async def left(self, book_id: str, *, chapters: Collection[int] | None = None) -> Leftover:
        """What is not translated yet (only in the given chapters, if asked), each paragraph
        and chapter title with why a job left it, and how much is."""
        return await asyncio.to_thread(self._left, book_id, chapters)

    async def leave_as_is(
        self, book_id: str, paragraph_ids: Collection[str], *, left: bool = True
    ) -> int:
        """Leave the paragraphs as they are, on purpose (a copyright line, a word play kept
        in the original): no job translates them, and they are listed apart from what needs
        the translator; ``left=False`` undoes it. How many changed."""

        def leave() -> int:
            found = self._library.paragraphs(book_id, paragraph_ids)
            if unknown := sorted(set(paragraph_ids) - set(found)):
                raise NotFoundError(
                    "no paragraph {paragraph_id} in book {book_id}",
                    paragraph_id=unknown[0],
                    book_id=book_id,
                )
            return self._library.leave_as_is(book_id, paragraph_ids, left=left)

        return await asyncio.to_thread(leave)

    async def rated(
        self, book_id: str, *, below: int | None = None, chapters: Collection[int] | None = None
    ) -> list[RatedParagraph]:
        """Paragraphs whose selected translation a rating job scored (under ``below``, if
        given), in book order; only the given chapters (from 1) if asked."""

        def rated() -> list[RatedParagraph]:
            self._library.book_info(book_id)  # an unknown book is an error, not an empty list
            return self._stores.ratings.rated(book_id, below=below, chapter_numbers=chapters)

        return await asyncio.to_thread(rated)

    async def dismiss_warnings(
        self, book_id: str, paragraph_id: str, codes: Collection[str] = ()
    ) -> int:
        """The translator read the paragraph's warnings (those of ``codes``, or all) and
        found no mistake: they stay dismissed on its selected version. How many were."""

        def dismiss() -> int:
            if self._library.locate(book_id, paragraph_id) is None:
                raise NotFoundError(
                    "no paragraph {paragraph_id} in book {book_id}",
                    paragraph_id=paragraph_id,
                    book_id=book_id,
                )
            return self._stores.quality.dismiss(book_id, paragraph_id, codes)

        return await asyncio.to_thread(dismiss)

    async def actions(
        self, book_id: str, kinds: Sequence[ActionKind] | None = None
    ) -> list[RecordedAction]:
        """What happened in the book's jobs, oldest first; only actions of ``kinds``."""
        return await asyncio.to_thread(self._stores.jobs.actions, book_id, kinds=kinds)

    def _left(self, book_id: str, chapters: Collection[int] | None) -> Leftover:
        why = self._stores.jobs.unfinished(book_id)
        paragraphs = list(self._library.scan(book_id, chapter_numbers=chapters))
        titles = [
            c for c in self._library.progress(book_id) if chapters is None or c.number in chapters
        ]
        left = [
            Left(c.number, None, c.id, why.get(c.id), c.title)
            for c in titles
            if c.translated_title is None
        ]
        untranslated = [
            Left(
                p.chapter_number,
                p.paragraph.index + 1,
                p.paragraph.id,
                why.get(p.paragraph.id),
                p.paragraph.text,
            )
            for p in paragraphs
            if p.paragraph.translation is None
        ]
        kept = {p.paragraph.id for p in paragraphs if p.paragraph.left_on_purpose}
        left += [item for item in untranslated if item.id not in kept]
        left.sort(key=lambda item: (item.chapter, item.position or 0))
        untitled = sum(1 for item in left if item.position is None)
        coverage = Coverage(
            len(paragraphs) - len(untranslated),
            len(paragraphs),
            len(titles) - untitled,
            len(titles),
        )
        return Leftover(coverage, left, [item for item in untranslated if item.id in kept])

    def _detail(self, book_id: str) -> BookDetail:
        book = self._library.book_info(book_id)
        summary = self._library.summary(book.id)
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
        book = self._library.whole_book(book_id, chapter_numbers=chapters)
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

    def _chapter(self, book_id: str, number: int, start: int, limit: int) -> ChapterView:
        book = self._library.book_info(book_id)
        count = self._library.chapter_count(book_id)
        if not 1 <= number <= count:
            raise NotFoundError(
                "book {book_id} has no chapter {number}", book_id=book_id, number=number
            )
        stop = start + limit
        return ChapterView(
            book,
            self._library.chapter_at(book_id, number),
            count,
            start,
            self._library.paragraph_range(book_id, number, start, stop),
            self._library.range_versions(book_id, number, start, stop),
        )

    def _import(
        self,
        path: Path,
        *,
        title: str | None,
        source_lang: str | None,
        target_lang: str,
        chapter_pattern: str | None,
        encoding: str | None,
        again: bool = True,
    ) -> ImportedBook:
        draft = read_book(path, chapter_pattern=chapter_pattern, encoding=encoding)
        if not again and (same := self._same_book(draft, title or draft.title)):
            raise DuplicateBookError(
                "«{title}» is already in the library, with as many paragraphs: open it, or "
                "import this file again to keep two copies",
                title=same.title,
            )
        text = "".join(p for c in draft.chapters for p in c.paragraphs)
        declared = draft.language if draft.language and is_language_tag(draft.language) else None
        source = normalize_language(source_lang or declared or guess_language(text) or "en")
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

    def _same_book(self, draft: BookDraft, title: str) -> BookSummary | None:
        work = sum(1 for c in draft.chapters for p in c.paragraphs if paragraph_text(p))
        for book in self._library.list_books():
            if (book.title, book.author, book.work_paragraphs) == (title, draft.author, work):
                return book
        return None

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
