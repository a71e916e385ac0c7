"""The translation memory of a book's series: what earlier volumes and this book's earlier
chapters were translated as, and the references imported for them.

A book's memory holds every work paragraph of the books of its series (``GlossaryStore.
series_books``) that has a selected translation made for its present text, or else an
imported reference (another translator's, ``memory_references``). It is found by source
(``domain.memory.MemoryIndex``) and only what comes before is recalled: the volumes added
before the book, and the book's own paragraphs before the one asked about.

The index of a series is built once in a process and kept, then brought up to date on each
use with what was written since (translations and references of a higher key than the last
read): a running job's new translations reach its later chunks without reading the series
again. A version selected again by hand keeps its old key and is read at the next rebuild,
when the series' books change.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Select, delete, func, insert, or_, select
from sqlalchemy.orm import Session

from honyaku.domain.book import TranslationKind
from honyaku.domain.memory import MemoryIndex, Recall, Remembered
from honyaku.errors import NotFoundError
from honyaku.store.database import Database
from honyaku.store.glossary import GlossaryStore
from honyaku.store.schema import (
    BookRow,
    ChapterRow,
    MemoryReferenceRow,
    ParagraphRow,
    TranslationRow,
    table_of,
    utc_now,
)

KEPT_SERIES = 4
"""Series whose index a process keeps at once; the least recently used goes first."""


@dataclass(frozen=True, slots=True)
class Point:
    """A paragraph's place in its book: chapter number (from 1) and position."""

    chapter: int
    index: int


@dataclass
class _Series:
    books: tuple[str, ...]
    titles: dict[str, str]
    index: MemoryIndex = field(default_factory=MemoryIndex)
    translations_read: int = 0
    references_read: int = 0
    translated: set[tuple[str, str]] = field(default_factory=set)
    """The paragraphs remembered by their translation, which no reference displaces."""
    selected: dict[tuple[str, str], int] = field(default_factory=dict)
    """The version read of each paragraph (by number): what the database must still select
    for the index to hold (``_selection``)."""


@dataclass(frozen=True, slots=True)
class MemorySummary:
    """What a book's memory holds: the books of its series in order, and by book the
    paragraphs remembered and the references imported."""

    books: tuple[str, ...]
    titles: Mapping[str, str]
    remembered: Mapping[str, int]
    references: Mapping[str, int]


class TranslationMemory:
    def __init__(self, database: Database, glossary: GlossaryStore) -> None:
        self.database = database
        self.glossary = glossary
        self._series: OrderedDict[tuple[str, ...], _Series] = OrderedDict()
        self._lock = threading.Lock()

    def recall(
        self, book_id: str, texts: Sequence[tuple[str, Point]], *, limit: int = 1
    ) -> list[list[Recall]]:
        """For each source text and its point in the book, the best ``limit`` earlier
        translations of the same or nearly the same source."""
        books = tuple(self.glossary.series_books(book_id))
        with self._lock:
            series = self._fresh(books)
            return [
                series.index.recall(text, _before(books, book_id, point), limit=limit)
                for text, point in texts
            ]

    def exact(self, book_id: str, texts: Sequence[tuple[str, Point]]) -> list[list[Remembered]]:
        """For each source text and its point, every earlier translation of the very same
        source."""
        books = tuple(self.glossary.series_books(book_id))
        with self._lock:
            series = self._fresh(books)
            return [
                series.index.exact(text, _before(books, book_id, point)) for text, point in texts
            ]

    def titles(self, book_id: str) -> dict[str, str]:
        """The title of each book of the book's series, by id."""
        books = tuple(self.glossary.series_books(book_id))
        with self._lock:
            return dict(self._fresh(books).titles)

    def summary(self, book_id: str) -> MemorySummary:
        books = tuple(self.glossary.series_books(book_id))
        with self.database.transaction() as session:
            titles = dict(
                session.execute(
                    select(BookRow.id, BookRow.title).where(BookRow.id.in_(books))
                ).all()
            )
            references = dict(
                session.execute(
                    select(ParagraphRow.book_id, func.count())
                    .join(MemoryReferenceRow, MemoryReferenceRow.paragraph_pk == ParagraphRow.pk)
                    .where(ParagraphRow.book_id.in_(books))
                    .group_by(ParagraphRow.book_id)
                ).all()
            )
        with self._lock:
            series = self._fresh(books)
            remembered = dict.fromkeys(books, 0)
            for book, _ in series.index.places():
                remembered[book] = remembered.get(book, 0) + 1
        return MemorySummary(books, titles, remembered, references)

    def written(self, book_id: str) -> int:
        """The book's paragraphs whose selected version was written from memory."""
        with self.database.transaction() as session:
            return (
                session.scalar(
                    select(func.count())
                    .select_from(TranslationRow)
                    .join(ParagraphRow, ParagraphRow.pk == TranslationRow.paragraph_pk)
                    .where(
                        ParagraphRow.book_id == book_id,
                        TranslationRow.selected,
                        TranslationRow.kind == TranslationKind.MEMORY.value,
                    )
                )
                or 0
            )

    def import_references(self, book_id: str, texts: Mapping[str, str], *, origin: str) -> int:
        """Keep ``texts`` (by paragraph id) as another translator's references for the
        book's paragraphs, in place of those imported before; how many."""
        now = utc_now()
        with self.database.transaction() as session:
            pks = dict(
                session.execute(
                    select(ParagraphRow.id, ParagraphRow.pk).where(
                        ParagraphRow.book_id == book_id, ParagraphRow.id.in_(list(texts))
                    )
                ).all()
            )
            if missing := set(texts) - set(pks):
                raise NotFoundError(
                    "no paragraph {ids} in book {book_id}",
                    ids=", ".join(sorted(missing)),
                    book_id=book_id,
                )
            session.execute(
                delete(MemoryReferenceRow).where(
                    MemoryReferenceRow.paragraph_pk.in_(list(pks.values()))
                )
            )
            session.execute(
                insert(table_of(MemoryReferenceRow)),
                [
                    {"paragraph_pk": pks[pid], "text": text, "origin": origin, "created_at": now}
                    for pid, text in texts.items()
                ],
            )
        return len(texts)

    def _fresh(self, books: tuple[str, ...]) -> _Series:
        """The series' index, made if new and brought up to date; made again where a
        translator selected an older version, or a new edition changed a source, since."""
        series = self._read(books)
        with self.database.transaction() as session:
            now = _selection(session, books)
        if now != (len(series.selected), sum(series.selected.values())):
            self._series.pop(books)
            series = self._read(books)
        return series

    def _read(self, books: tuple[str, ...]) -> _Series:
        """The series' index with what was written since it last read."""
        series = self._series.get(books)
        if series is None:
            series = _Series(books, {})
            self._series[books] = series
            while len(self._series) > KEPT_SERIES:
                self._series.popitem(last=False)
        self._series.move_to_end(books)
        with self.database.transaction() as session:
            if not series.titles:
                series.titles.update(
                    session.execute(
                        select(BookRow.id, BookRow.title).where(BookRow.id.in_(books))
                    ).all()
                )
            remembered = _translations_since(session, books, series.translations_read)
            imported = _references_since(session, books, series.references_read)
        if remembered:
            series.translations_read = max(r.order for r in remembered)
            series.index.put(remembered)
            series.translated.update((r.book_id, r.paragraph_id) for r in remembered)
            series.selected.update(((r.book_id, r.paragraph_id), r.order) for r in remembered)
        if imported:
            series.references_read = max(pk for _, pk in imported)
            series.index.put(
                r for r, _ in imported if (r.book_id, r.paragraph_id) not in series.translated
            )
        return series


def _remembered(books: tuple[str, ...]) -> tuple[ColumnElement[bool], ...]:
    """The translations the memory holds: each book's selected ones, of the source they were
    made from."""
    return (
        ParagraphRow.book_id.in_(books),
        TranslationRow.selected.is_(True),
        or_(
            TranslationRow.translated_from.is_(None),
            TranslationRow.translated_from == ParagraphRow.text,
        ),
    )


def _selection(session: Session, books: tuple[str, ...]) -> tuple[int, int]:
    """How many translations the memory should hold and the sum of their numbers: a version
    selected again, or one whose source changed, changes it."""
    count, total = session.execute(
        select(func.count(), func.coalesce(func.sum(TranslationRow.pk), 0))
        .select_from(TranslationRow)
        .join(ParagraphRow, TranslationRow.paragraph_pk == ParagraphRow.pk)
        .where(*_remembered(books))
    ).one()
    return count, total


def _places(*columns: Any) -> Select[Any]:
    """Each paragraph's book, id, chapter, position in it and source, then ``columns``."""
    return select(
        ParagraphRow.book_id,
        ParagraphRow.id,
        ChapterRow.position,
        ParagraphRow.position,
        ParagraphRow.text,
        *columns,
    ).join(ChapterRow, ChapterRow.pk == ParagraphRow.chapter_pk)


def _translations_since(session: Session, books: tuple[str, ...], read: int) -> list[Remembered]:
    """The selected translations of the series' books written since the one numbered
    ``read``, each of the source it was made from."""
    rows = session.execute(
        _places(TranslationRow.text, TranslationRow.pk)
        .join(TranslationRow, TranslationRow.paragraph_pk == ParagraphRow.pk)
        .where(*_remembered(books), TranslationRow.pk > read)
        .order_by(TranslationRow.pk)
    )
    return [
        Remembered(book, pid, chapter + 1, index, text, translation, order=pk)
        for book, pid, chapter, index, text, translation, pk in rows
    ]


def _references_since(
    session: Session, books: tuple[str, ...], read: int
) -> list[tuple[Remembered, int]]:
    """The references imported into the series' books since the one numbered ``read``."""
    rows = session.execute(
        _places(MemoryReferenceRow.text, MemoryReferenceRow.origin, MemoryReferenceRow.pk)
        .join(MemoryReferenceRow, MemoryReferenceRow.paragraph_pk == ParagraphRow.pk)
        .where(ParagraphRow.book_id.in_(books), MemoryReferenceRow.pk > read)
        .order_by(MemoryReferenceRow.pk)
    )
    return [
        (Remembered(book, pid, chapter + 1, index, text, reference, origin), pk)
        for book, pid, chapter, index, text, reference, origin, pk in rows
    ]


def _before(books: tuple[str, ...], book_id: str, point: Point) -> Callable[[Remembered], bool]:
    """Whether a remembered paragraph comes before ``point`` of the book: of a volume added
    before it, or of the book itself, earlier."""
    earlier = set(books[: books.index(book_id)]) if book_id in books else set()
    here = (point.chapter, point.index)

    def allowed(item: Remembered) -> bool:
        if item.book_id == book_id:
            return (item.chapter, item.index) < here
        return item.book_id in earlier

    return allowed
