"""The translation memory of a book's series, as the translator reads, fills and uses it.

The memory (``store.memory``) holds the selected translations of the series' volumes and the
references imported for them. ``write_exact`` writes what it holds of a paragraph's very
source into each paragraph of a book that has no translation (a version by "memory", listed
as such, never over a translation): ``Jobs`` does it before it plans a translation of a book
whose ``write_from_memory`` is on, so the job finds those paragraphs done, and the terminal
does it on demand. ``import_reference`` keeps another translator's translation of an earlier
volume, aligned by paragraph as a trial's reference file is (one paragraph a line, in order),
as references the models are shown, never as the volume's versions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from honyaku.domain.book import Paragraph, TranslationKind
from honyaku.domain.memory import Recall, choose_translation
from honyaku.domain.placeholders import RubyChoice, shown_line
from honyaku.domain.trial import align_reference
from honyaku.errors import UserError
from honyaku.store import MemorySummary, Point, Stores

MEMORY_MODEL = "memory"
"""The model a version written from memory is listed as written by."""
MAX_REFERENCE_CHARS = 20_000
"""A reference's paragraph longer than this is no paragraph: the file is not what it seems."""


@dataclass(frozen=True, slots=True)
class MemoryMatch:
    """A paragraph of the book and what the memory recalls of its source."""

    chapter: int
    paragraph: Paragraph
    recall: Recall
    title: str
    """The title of the book the recalled translation belongs to."""


@dataclass(frozen=True, slots=True)
class MemoryReport:
    summary: MemorySummary
    written: int
    """The book's paragraphs whose selected version was written from memory."""
    write_from_memory: bool


class Memory:
    def __init__(self, stores: Stores) -> None:
        self._stores = stores

    async def report(self, book_id: str) -> MemoryReport:
        """What the book's memory holds, volume by volume, and what was written from it."""

        def report() -> MemoryReport:
            stores = self._stores
            return MemoryReport(
                stores.memory.summary(book_id),
                stores.memory.written(book_id),
                stores.library.settings(book_id).write_from_memory,
            )

        return await asyncio.to_thread(report)

    async def matches(
        self, book_id: str, chapters: Collection[int] | None = None
    ) -> list[MemoryMatch]:
        """Each work paragraph of the chapters (every one by default) that the memory
        recalls an earlier translation for: the best, the same source first."""

        def matches() -> list[MemoryMatch]:
            memory = self._stores.memory
            book = self._stores.library.whole_book(book_id, chapter_numbers=chapters)
            paragraphs = [(c.order, p) for c in book.chapters for p in c.work_paragraphs]
            texts = [(p.text, Point(n, p.index)) for n, p in paragraphs]
            titles = memory.titles(book_id)
            return [
                MemoryMatch(n, p, found[0], titles.get(found[0].remembered.book_id, ""))
                for (n, p), found in zip(paragraphs, memory.recall(book_id, texts), strict=True)
                if found
            ]

        return await asyncio.to_thread(matches)

    async def write_exact(
        self,
        book_id: str,
        chapters: Collection[int] | None = None,
        paragraphs: Collection[str] | None = None,
    ) -> int:
        """Write into each work paragraph without a translation (of these chapters, or only
        these paragraphs; not one the translator leaves as it is on purpose) what the memory
        holds of its very source; how many were."""
        return await asyncio.to_thread(self._write_exact, book_id, chapters, paragraphs)

    async def import_reference(
        self,
        book_id: str,
        lines: Sequence[str],
        *,
        origin: str,
        chapters: Collection[int] | None = None,
    ) -> int:
        """Keep ``lines`` (one paragraph a line, blank lines left out, one for each work
        paragraph of the chapters, in order) as references of the book's paragraphs."""

        def import_reference() -> int:
            book = self._stores.library.whole_book(book_id, chapter_numbers=chapters)
            texts = align_reference(book, lines)
            if too_long := [t for t in texts.values() if len(t) > MAX_REFERENCE_CHARS]:
                raise UserError(
                    "a line of the reference holds {chars} characters: give one paragraph a line",
                    chars=len(too_long[0]),
                )
            return self._stores.memory.import_references(book_id, texts, origin=origin)

        return await asyncio.to_thread(import_reference)

    def _write_exact(
        self,
        book_id: str,
        chapters: Collection[int] | None,
        paragraphs: Collection[str] | None,
    ) -> int:
        stores = self._stores
        book = stores.library.whole_book(book_id, chapter_numbers=chapters)
        only = set(paragraphs) if paragraphs is not None else None
        untranslated = [
            (chapter.order, p)
            for chapter in book.chapters
            for p in chapter.work_paragraphs
            if p.translation is None
            and not p.left_on_purpose
            and (only is None or p.id in only)
            and not _holds_markup(p, book.settings.ruby)
        ]
        if not untranslated:
            return 0
        found = stores.memory.exact(book_id, [(p.text, Point(n, p.index)) for n, p in untranslated])
        texts = {
            p.id: text
            for (_, p), remembered in zip(untranslated, found, strict=True)
            if (text := choose_translation(remembered)) is not None
        }
        if not texts:
            return 0
        written = stores.library.fill_untranslated(
            book_id, texts, kind=TranslationKind.MEMORY, model=MEMORY_MODEL
        )
        return len(written)


def _holds_markup(paragraph: Paragraph, ruby: RubyChoice) -> bool:
    """A paragraph whose line shows placeholders: the memory keeps a text, not where its
    marks land, so the model writes it (with the memory's translation as a reference)."""
    return bool(shown_line(paragraph.text, paragraph.marks, ruby))
