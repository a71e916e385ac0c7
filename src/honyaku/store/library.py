"""The library: books, their chapters and paragraphs, and translation versions.

A book imported from an EPUB or XHTML page also keeps its original file and, for each
paragraph and chapter title, where in that file it came from (``domain.sources``); they are
read only by exports, through ``sources``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, Literal

from pydantic import ValidationError
from sqlalchemy import and_, case, delete, func, insert, or_, select, true, update
from sqlalchemy.orm import Session

from honyaku.domain.book import (
    Book,
    BookDraft,
    BookSettings,
    Chapter,
    Paragraph,
    TranslationKind,
    manual_version,
    paragraph_text,
    stored_location,
)
from honyaku.domain.ids import new_id
from honyaku.domain.library import BookSummary, ChapterProgress, LocatedParagraph, Version
from honyaku.domain.placeholders import PlacedMark, markup_lost, shown_line, valid_marks
from honyaku.domain.quality import QualityWarning
from honyaku.domain.sources import BookSources, InlineMark, OriginalFile, SourceLocation
from honyaku.errors import ConfigError, NotFoundError
from honyaku.store.chunks import Held, hold
from honyaku.store.database import Database
from honyaku.store.ids import fresh_id
from honyaku.store.quality_flags import add_flags
from honyaku.store.schema import (
    BookRow,
    ChapterRow,
    ChapterTitleSourceRow,
    EditionRow,
    OriginalFileRow,
    ParagraphRow,
    ParagraphSourceRow,
    TranslationRow,
    table_of,
    utc_now,
)

MIN_ID_PREFIX = 4
SCAN_BATCH = 2000
ID_PREFIX = re.compile(r"[0-9a-f]{1,8}")


class Library:
    def __init__(self, database: Database) -> None:
        self.database = database

    # -- books -----------------------------------------------------------------------------

    def add_book(
        self,
        draft: BookDraft,
        *,
        source_lang: str,
        target_lang: str,
        title: str | None = None,
        file_name: str | None = None,
        trial_of: str | None = None,
    ) -> str:
        """Store a whole book in one transaction, as its edition 1 (read from ``file_name``),
        and return its new id; a trial's copy of ``trial_of`` is never listed."""
        with self.database.transaction() as session:
            book_id = fresh_id(session, BookRow)
            session.add(
                BookRow(
                    id=book_id,
                    title=title or draft.title,
                    author=draft.author,
                    source_lang=source_lang,
                    target_lang=target_lang,
                    settings=BookSettings().model_dump(),
                    created_at=utc_now(),
                    trial_of=trial_of,
                )
            )
            _insert_chapters(session, book_id, draft)
            original = draft.original
            if original is not None:
                insert_original(session, book_id, original)
            session.add(
                EditionRow(
                    book_id=book_id,
                    number=1,
                    name=file_name or (original.name if original else None),
                    sha256=original and file_digest(original.data),
                    imported_at=utc_now(),
                )
            )
        return book_id

    def copy_for_trial(self, book_id: str, chapter_numbers: Collection[int]) -> str:
        """A copy of the book's ``chapter_numbers``, untranslated, with the same chapter and
        paragraph ids, inline marks and settings, for a trial (``store.trials``); its id."""
        with self.database.transaction() as session:
            row = book_row(session, book_id)
            copy_id = fresh_id(session, BookRow)
            session.add(
                BookRow(
                    id=copy_id,
                    title=row.title,
                    author=row.author,
                    source_lang=row.source_lang,
                    target_lang=row.target_lang,
                    settings=dict(row.settings),
                    created_at=utc_now(),
                    trial_of=book_id,
                )
            )
            session.add(EditionRow(book_id=copy_id, number=1, imported_at=utc_now()))
            chapters = session.scalars(
                select(ChapterRow)
                .where(
                    ChapterRow.book_id == book_id,
                    ChapterRow.position.in_([n - 1 for n in chapter_numbers]),
                )
                .order_by(ChapterRow.position)
            ).all()
            for position, chapter in enumerate(chapters):
                _copy_chapter(session, chapter, copy_id, position)
            _copy_marks(session, book_id, copy_id)
        return copy_id

    def resolve(self, ref: str) -> str:
        """The id of the book that ``ref`` names: a whole id or an unambiguous prefix. A
        trial's copy is named by nobody: it is its trial's."""
        if not ID_PREFIX.fullmatch(ref):
            raise NotFoundError("{ref!r} is not a book id (8 hex characters)", ref=ref)
        with self.database.transaction() as session:
            row = session.get(BookRow, ref)
            if row is not None and row.trial_of is None:
                return ref
            query = select(BookRow.id).where(
                BookRow.id.startswith(ref, autoescape=True), BookRow.trial_of.is_(None)
            )
            matches = list(session.scalars(query))
        if len(ref) >= MIN_ID_PREFIX and len(matches) == 1:
            return matches[0]
        raise NotFoundError(_unresolved(ref, matches))

    def trial_of(self, book_id: str) -> str | None:
        """The book whose trial ``book_id`` is a copy for; ``None`` for a book of its own, or
        for no book at all."""
        with self.database.transaction() as session:
            row = session.get(BookRow, book_id)
            return row.trial_of if row is not None else None

    def list_books(self, *, start: int = 0, limit: int | None = None) -> list[BookSummary]:
        """The books in the order they came, with their counts; only ``limit`` of them from
        the ``start``-th, if asked."""
        with self.database.transaction() as session:
            query = (
                select(BookRow)
                .where(BookRow.trial_of.is_(None))
                .order_by(BookRow.created_at, BookRow.id)
                .offset(start)
            )
            return _summaries(session, session.scalars(query.limit(limit)).all())

    def summary(self, book_id: str) -> BookSummary:
        """One book with its counts."""
        with self.database.transaction() as session:
            return _summaries(session, [book_row(session, book_id)])[0]

    def count_books(self) -> int:
        with self.database.transaction() as session:
            query = select(func.count()).select_from(BookRow).where(BookRow.trial_of.is_(None))
            return session.scalar(query) or 0

    def book_info(self, book_id: str) -> Book:
        """The book's title, languages and settings, without its chapters."""
        with self.database.transaction() as session:
            return _book(book_row(session, book_id), ())

    def whole_book(self, book_id: str, *, chapter_numbers: Collection[int] | None = None) -> Book:
        """The book with its selected translations; only the given chapters if asked (1-based)."""
        with self.database.transaction() as session:
            row = book_row(session, book_id)
            query = select(ChapterRow).where(ChapterRow.book_id == book_id)
            if chapter_numbers is not None:
                query = query.where(ChapterRow.position.in_([n - 1 for n in chapter_numbers]))
            chapter_rows = session.scalars(query.order_by(ChapterRow.position)).all()
            paragraphs = _paragraphs_by_chapter(session, [c.pk for c in chapter_rows])
            chapters = tuple(_chapter(c, paragraphs.get(c.pk, ())) for c in chapter_rows)
            return _book(row, chapters)

    def chapter(self, book_id: str, chapter_id: str) -> Chapter:
        """A chapter's title and translated title, without its paragraphs."""
        with self.database.transaction() as session:
            row = session.scalar(
                select(ChapterRow).where(ChapterRow.book_id == book_id, ChapterRow.id == chapter_id)
            )
            if row is None:
                raise NotFoundError(
                    "no chapter {chapter_id} in book {book_id}",
                    chapter_id=chapter_id,
                    book_id=book_id,
                )
            return _chapter(row, ())

    def paragraphs(self, book_id: str, ids: Collection[str]) -> dict[str, Paragraph]:
        """The paragraphs with these ids, with their selected translations."""
        with self.database.transaction() as session:
            rows = session.execute(
                _with_text(select(*_paragraph_columns())).where(
                    ParagraphRow.book_id == book_id,
                    ParagraphRow.id.in_(list(ids)),
                    ParagraphRow.chapter_pk.is_not(None),
                )
            )
            return {row[0]: _paragraph(*row) for row in rows}

    def chapter_numbers_of(self, book_id: str, paragraph_ids: Collection[str]) -> list[int]:
        """The chapters (from 1) that hold these paragraphs; an unknown id is an error."""
        wanted = set(paragraph_ids)
        with self.database.transaction() as session:
            book_row(session, book_id)
            rows = session.execute(
                select(ParagraphRow.id, ChapterRow.position)
                .join(ChapterRow, ChapterRow.pk == ParagraphRow.chapter_pk)
                .where(ParagraphRow.book_id == book_id, ParagraphRow.id.in_(list(wanted)))
            ).all()
        if missing := wanted - {pid for pid, _ in rows}:
            raise _no_paragraphs(missing, book_id)
        return sorted({position + 1 for _, position in rows})

    def sources(self, book_id: str) -> BookSources | None:
        """The book's original file and where its text came from, or ``None`` for a book
        imported without them (before they were kept, or from a plain text file)."""
        with self.database.transaction() as session:
            book_row(session, book_id)
            original = session.get(OriginalFileRow, book_id)
            if original is None:
                return None
            source = ParagraphSourceRow
            paragraphs = session.execute(
                select(ParagraphRow.id, source.document, source.locator, source.marks)
                .join(source, source.paragraph_pk == ParagraphRow.pk)
                .where(ParagraphRow.book_id == book_id)
            )
            title = ChapterTitleSourceRow
            titles = session.execute(
                select(ChapterRow.id, title.document, title.locator, title.marks)
                .join(title, title.chapter_pk == ChapterRow.pk)
                .where(ChapterRow.book_id == book_id)
            )
            return BookSources(
                original=OriginalFile(original.name, original.media_type, original.data),
                paragraphs={row[0]: _location(*row[1:]) for row in paragraphs},
                titles={row[0]: _location(*row[1:]) for row in titles},
            )

    def chapter_at(self, book_id: str, number: int) -> ChapterProgress:
        """Chapter ``number`` (from 1): its titles and counts, without its paragraphs."""
        with self.database.transaction() as session:
            book_row(session, book_id)
            row = session.scalar(
                select(ChapterRow).where(
                    ChapterRow.book_id == book_id, ChapterRow.position == number - 1
                )
            )
            if row is None:
                raise NotFoundError(
                    "book {book_id} has no chapter {number}", book_id=book_id, number=number
                )
            counts = _counts_by(session, ParagraphRow.chapter_pk, ParagraphRow.chapter_pk == row.pk)
            previous = _chapter(row, ()).previous_title
            return ChapterProgress(
                number,
                row.id,
                row.title,
                row.translated_title,
                *counts.get(row.pk, (0, 0, 0, 0)),
                previous is not None,
                previous,
            )

    def paragraph_range(
        self, book_id: str, number: int, start: int, stop: int
    ) -> tuple[Paragraph, ...]:
        """The paragraphs at positions ``start`` to ``stop`` (not included) of chapter
        ``number`` (from 1), with their selected translations: a page of a long chapter."""
        with self.database.transaction() as session:
            rows = session.execute(
                _with_text(
                    select(*_paragraph_columns()).join(
                        ChapterRow, ChapterRow.pk == ParagraphRow.chapter_pk
                    )
                )
                .where(
                    ChapterRow.book_id == book_id,
                    ChapterRow.position == number - 1,
                    ParagraphRow.position >= start,
                    ParagraphRow.position < stop,
                )
                .order_by(ParagraphRow.position)
            )
            return tuple(_paragraph(*row) for row in rows)

    def chapter_count(self, book_id: str) -> int:
        with self.database.transaction() as session:
            book_row(session, book_id)
            return session.scalar(select(func.count()).where(ChapterRow.book_id == book_id)) or 0

    def progress(self, book_id: str) -> list[ChapterProgress]:
        """Each chapter with its paragraphs, work paragraphs and translated ones."""
        with self.database.transaction() as session:
            book_row(session, book_id)
            counts = _counts_by(
                session, ParagraphRow.chapter_pk, where=ParagraphRow.book_id == book_id
            )
            rows = session.scalars(
                select(ChapterRow)
                .where(ChapterRow.book_id == book_id)
                .order_by(ChapterRow.position)
            ).all()
            return [
                ChapterProgress(
                    c.position + 1,
                    c.id,
                    c.title,
                    c.translated_title,
                    *counts.get(c.pk, (0, 0, 0, 0)),
                    _chapter(c, ()).previous_title is not None,
                )
                for c in rows
            ]

    # -- settings --------------------------------------------------------------------------

    def settings(self, book_id: str) -> BookSettings:
        with self.database.transaction() as session:
            return BookSettings.model_validate(book_row(session, book_id).settings)

    def update_settings(self, book_id: str, **changes: Any) -> BookSettings:
        with self.database.transaction() as session:
            row = book_row(session, book_id)
            try:
                settings = BookSettings.model_validate({**row.settings, **changes})
            except ValidationError as exc:
                problem = exc.errors()[0]
                raise ConfigError(f"setting {problem['loc'][0]}: {problem['msg']}") from exc
            row.settings = settings.model_dump()
            return settings

    # -- translations ----------------------------------------------------------------------

    def leave_as_is(self, book_id: str, paragraph_ids: Collection[str], *, left: bool) -> int:
        """Mark the paragraphs as left as they are on purpose (``left``), or no longer;
        how many changed."""
        with self.database.transaction() as session:
            changed = session.execute(
                update(ParagraphRow)
                .where(
                    ParagraphRow.book_id == book_id,
                    ParagraphRow.id.in_(list(paragraph_ids)),
                    ParagraphRow.left_on_purpose.is_not(left),
                )
                .values(left_on_purpose=left)
            )
            return int(changed.rowcount)  # type: ignore[attr-defined]

    def add_translations(
        self,
        book_id: str,
        texts: Mapping[str, str],
        *,
        kind: TranslationKind,
        model: str | None = None,
        job_id: str | None = None,
        flags: Mapping[str, Sequence[QualityWarning]] | None = None,
        claim: Held | None = None,
        marks: Mapping[str, Sequence[PlacedMark]] | None = None,
    ) -> set[str]:
        """Make each text its paragraph's selected version, all in one transaction; made under
        ``claim``, only while that claim stands. A paragraph never holds the same text twice:
        a text it already holds selects that version, which keeps its quality flags and, if a
        new edition had made it stale, is fresh again (written now for the paragraph's text).
        Any other text is a new version, with the quality checks' ``flags`` (by paragraph id).
        ``marks``: where each text's inline marks are (by paragraph id); a text with other
        marks than a version's is another version. The ids of the paragraphs given a new
        version."""
        # Exclusive: on SQLite, no other writer may add a version between the look for the
        # texts held and the write that relies on it (PostgreSQL locks the paragraphs' rows).
        with self.database.transaction(exclusive=True) as session:
            if claim is not None:
                hold(session, claim)
            pks = _locked_paragraphs(session, book_id, texts)
            if missing := set(texts) - set(pks):
                raise _no_paragraphs(missing, book_id)
            placed = {pid: _marks_value(marks.get(pid, ()) if marks else ()) for pid in texts}
            held = _versions_holding(
                session, {pks[pid]: (text, placed[pid]) for pid, text in texts.items()}
            )
            new = {pid: text for pid, text in texts.items() if pks[pid] not in held}
            session.execute(
                update(TranslationRow)
                .where(
                    TranslationRow.paragraph_pk.in_(list(pks.values())),
                    TranslationRow.selected,
                    TranslationRow.pk.not_in(list(held.values())),
                )
                .values(selected=False)
            )
            if held:
                session.execute(
                    update(TranslationRow)
                    .where(TranslationRow.pk.in_(list(held.values())))
                    .values(selected=True, translated_from=None)
                )
            if new:
                _insert_versions(session, pks, new, placed, kind=kind, model=model, job_id=job_id)
            if flags:
                add_flags(
                    session,
                    {pks[pid]: found for pid, found in flags.items() if found and pid in new},
                )
            return set(new)

    def fill_untranslated(
        self, book_id: str, texts: Mapping[str, str], *, kind: TranslationKind, model: str
    ) -> set[str]:
        """Give each paragraph of ``texts`` that has no translation its text, as a selected
        version, in one transaction; one that has a translation by then keeps it. The ids of
        the paragraphs written."""
        with self.database.transaction(exclusive=True) as session:
            pks = _locked_paragraphs(session, book_id, texts)
            if missing := set(texts) - set(pks):
                raise _no_paragraphs(missing, book_id)
            translated = set(
                session.scalars(
                    select(TranslationRow.paragraph_pk).where(
                        TranslationRow.paragraph_pk.in_(list(pks.values())),
                        TranslationRow.selected,
                    )
                )
            )
            new = {pid: text for pid, text in texts.items() if pks[pid] not in translated}
            if new:
                _insert_versions(session, pks, new, {}, kind=kind, model=model, job_id=None)
            return set(new)

    def add_manual_version(self, book_id: str, paragraph_id: str, text: str) -> list[Version]:
        """Write a version by hand (``manual_version`` says what may be written, placeholders
        of the paragraph's markup included); it is selected and the others are kept, or, if
        the paragraph already holds that text, that version is selected. A version written
        without the placeholders its paragraph has is kept without its markup, and flagged.
        Every version of the paragraph, after."""
        paragraph = self.paragraphs(book_id, [paragraph_id]).get(paragraph_id)
        if paragraph is None:
            raise _no_paragraphs({paragraph_id}, book_id)
        ruby = self.settings(book_id).ruby
        line = shown_line(paragraph.text, paragraph.marks, ruby)
        read, lost = manual_version(text, line, paragraph)
        self.add_translations(
            book_id,
            {paragraph_id: read.text},
            kind=TranslationKind.MANUAL,
            marks={paragraph_id: read.marks},
            flags={paragraph_id: [markup_lost(paragraph_id)]} if lost else None,
        )
        return self.versions(book_id, paragraph_id)

    def shown_versions(self, book_id: str, paragraph_id: str) -> tuple[Paragraph, list[Version]]:
        """A paragraph (its text and marks) and every version of it, oldest first."""
        paragraph = self.paragraphs(book_id, [paragraph_id]).get(paragraph_id)
        if paragraph is None:
            raise _no_paragraphs({paragraph_id}, book_id)
        return paragraph, self.versions(book_id, paragraph_id)

    def versions(self, book_id: str, paragraph_id: str) -> list[Version]:
        """Every version of a paragraph, oldest first."""
        with self.database.transaction() as session:
            rows = session.execute(
                select(TranslationRow)
                .join(ParagraphRow, ParagraphRow.pk == TranslationRow.paragraph_pk)
                .where(ParagraphRow.book_id == book_id, ParagraphRow.id == paragraph_id)
                .order_by(TranslationRow.pk)
            ).scalars()
            return [_version(r) for r in rows]

    def range_versions(
        self, book_id: str, number: int, start: int, stop: int
    ) -> dict[str, list[Version]]:
        """Every version of the paragraphs at positions ``start`` to ``stop`` (not included)
        of chapter ``number`` (from 1), by paragraph id, oldest first."""
        with self.database.transaction() as session:
            rows = session.execute(
                select(ParagraphRow.id, TranslationRow)
                .join(TranslationRow, TranslationRow.paragraph_pk == ParagraphRow.pk)
                .join(ChapterRow, ChapterRow.pk == ParagraphRow.chapter_pk)
                .where(
                    ChapterRow.book_id == book_id,
                    ChapterRow.position == number - 1,
                    ParagraphRow.position >= start,
                    ParagraphRow.position < stop,
                )
                .order_by(TranslationRow.pk)
            )
            found: dict[str, list[Version]] = {}
            for paragraph_id, r in rows:
                found.setdefault(paragraph_id, []).append(_version(r))
            return found

    def select_version(self, book_id: str, paragraph_id: str, version_id: int) -> None:
        """Make one of a paragraph's versions the selected one; the others are kept."""
        with self.database.transaction() as session:
            paragraph_pk = _locked_paragraphs(session, book_id, [paragraph_id]).get(paragraph_id)
            row = session.get(TranslationRow, version_id)
            if paragraph_pk is None or row is None or row.paragraph_pk != paragraph_pk:
                raise NotFoundError(
                    "paragraph {paragraph_id} has no version {version_id}",
                    paragraph_id=paragraph_id,
                    version_id=version_id,
                )
            session.execute(
                update(TranslationRow)
                .where(TranslationRow.paragraph_pk == paragraph_pk, TranslationRow.selected)
                .values(selected=False)
            )
            row.selected = True

    def delete_book(self, book_id: str) -> None:
        """Remove a book with everything that belongs to it: chapters, versions, jobs, and its
        trials' copies."""
        with self.database.transaction() as session:
            session.execute(delete(BookRow).where(BookRow.trial_of == book_id))
            session.delete(book_row(session, book_id))

    def set_chapter_title(
        self,
        book_id: str,
        chapter_id: str,
        translated_title: str,
        *,
        claim: Held | None = None,
    ) -> None:
        """Set a chapter's translated title; made under ``claim``, only while it stands."""
        with self.database.transaction() as session:
            if claim is not None:
                hold(session, claim)
            row = session.scalar(
                select(ChapterRow).where(ChapterRow.book_id == book_id, ChapterRow.id == chapter_id)
            )
            if row is None:
                raise NotFoundError(
                    "no chapter {chapter_id} in book {book_id}",
                    chapter_id=chapter_id,
                    book_id=book_id,
                )
            row.translated_title = translated_title
            row.title_translated_from = None

    def scan(
        self, book_id: str, *, chapter_numbers: Collection[int] | None = None
    ) -> Iterator[LocatedParagraph]:
        """Every non-empty paragraph of the book (of these chapters), with its selected
        translation, in book order; read in batches, never all at once."""
        with self.database.transaction() as session:
            book_row(session, book_id)
            where = ParagraphRow.text != ""
            if chapter_numbers is not None:
                where = and_(where, ChapterRow.position.in_([n - 1 for n in chapter_numbers]))
            query = _located_query(book_id, where).order_by(
                ChapterRow.position, ParagraphRow.position
            )
            for row in session.execute(query.execution_options(yield_per=SCAN_BATCH)):
                yield _located_paragraph(*row)

    # -- context ---------------------------------------------------------------------------

    def locate(self, book_id: str, paragraph_id: str) -> LocatedParagraph | None:
        with self.database.transaction() as session:
            rows = _located(session, book_id, ParagraphRow.id == paragraph_id, limit=1)
            return rows[0] if rows else None

    def neighbours(
        self, book_id: str, paragraph_id: str, direction: Literal["before", "after"], count: int
    ) -> list[LocatedParagraph]:
        """Up to ``count`` non-empty paragraphs before or after one, across chapters, in order."""
        with self.database.transaction() as session:
            anchor = session.execute(
                select(ChapterRow.position, ParagraphRow.position)
                .join(ChapterRow, ChapterRow.pk == ParagraphRow.chapter_pk)
                .where(ParagraphRow.book_id == book_id, ParagraphRow.id == paragraph_id)
            ).first()
            if anchor is None:
                return []
            chapter_pos, para_pos = anchor
            if direction == "before":
                where = or_(
                    ChapterRow.position < chapter_pos,
                    and_(ChapterRow.position == chapter_pos, ParagraphRow.position < para_pos),
                )
            else:
                where = or_(
                    ChapterRow.position > chapter_pos,
                    and_(ChapterRow.position == chapter_pos, ParagraphRow.position > para_pos),
                )
            found = _located(
                session,
                book_id,
                and_(where, ParagraphRow.text != ""),
                limit=count,
                backwards=direction == "before",
            )
            return found[::-1] if direction == "before" else found


def _summaries(session: Session, books: Sequence[BookRow]) -> list[BookSummary]:
    ids = [row.id for row in books]
    counts = _counts_by(session, ParagraphRow.book_id, ParagraphRow.book_id.in_(ids))
    chapters = dict(
        session.execute(
            select(ChapterRow.book_id, func.count())
            .where(ChapterRow.book_id.in_(ids))
            .group_by(ChapterRow.book_id)
        ).all()
    )
    return [
        BookSummary(
            row.id,
            row.title,
            row.author,
            row.source_lang,
            row.target_lang,
            chapters.get(row.id, 0),
            *counts.get(row.id, (0, 0, 0, 0))[1:],
        )
        for row in books
    ]


def book_row(session: Session, book_id: str) -> BookRow:
    row = session.get(BookRow, book_id)
    if row is None:
        raise NotFoundError("no book with id {book_id!r}", book_id=book_id)
    return row


def _locked_paragraphs(session: Session, book_id: str, ids: Collection[str]) -> dict[str, int]:
    """The paragraphs' pks by id, their rows locked until the transaction ends: two writers
    of versions of one paragraph take turns, and each sees the other's selected version."""
    found = session.execute(
        select(ParagraphRow.id, ParagraphRow.pk)
        .where(ParagraphRow.book_id == book_id, ParagraphRow.id.in_(list(ids)))
        .order_by(ParagraphRow.pk)
        .with_for_update()
    )
    return {pid: pk for pid, pk in found}


def _versions_holding(
    session: Session, texts: Mapping[int, tuple[str, list[dict[str, Any]] | None]]
) -> dict[int, int]:
    """Of these paragraphs (by pk), those already holding their text with its marks as a
    version: that version's pk. Where a paragraph holds it twice (written before versions
    were kept unique), the selected one, else the latest."""
    rows = session.execute(
        select(
            TranslationRow.paragraph_pk,
            TranslationRow.pk,
            TranslationRow.text,
            TranslationRow.marks,
        )
        .where(
            TranslationRow.paragraph_pk.in_(list(texts)),
            TranslationRow.text.in_({text for text, _ in texts.values()}),
        )
        .order_by(TranslationRow.selected, TranslationRow.pk)
    )
    return {
        paragraph_pk: pk
        for paragraph_pk, pk, text, marks in rows
        if texts[paragraph_pk] == (text, marks or None)
    }


def _insert_versions(
    session: Session,
    pks: Mapping[str, int],
    texts: Mapping[str, str],
    marks: Mapping[str, list[dict[str, Any]] | None],
    *,
    kind: TranslationKind,
    model: str | None,
    job_id: str | None,
) -> None:
    """New versions of these paragraphs (by id), selected."""
    now = utc_now()
    session.execute(
        insert(table_of(TranslationRow)),
        [
            {
                "paragraph_pk": pks[pid],
                "text": text,
                "kind": kind.value,
                "model": model,
                "job_id": job_id,
                "created_at": now,
                "selected": True,
                "marks": marks.get(pid),
            }
            for pid, text in texts.items()
        ],
    )


def _copy_chapter(session: Session, chapter: ChapterRow, book_id: str, position: int) -> None:
    chapter_pk = session.execute(
        insert(ChapterRow)
        .values(book_id=book_id, id=chapter.id, position=position, title=chapter.title)
        .returning(ChapterRow.pk)
    ).scalar_one()
    paragraphs = session.execute(
        select(ParagraphRow.id, ParagraphRow.position, ParagraphRow.text).where(
            ParagraphRow.chapter_pk == chapter.pk
        )
    ).all()
    if paragraphs:
        rows = [
            {"book_id": book_id, "chapter_pk": chapter_pk, "id": pid, "position": at, "text": text}
            for pid, at, text in paragraphs
        ]
        session.execute(insert(table_of(ParagraphRow)), rows)


def _copy_marks(session: Session, book_id: str, copy_id: str) -> None:
    """The copy's paragraphs given the inline marks of the book's (a trial's models keep
    them as the book's job would)."""
    copied = dict(
        session.execute(
            select(ParagraphRow.id, ParagraphRow.pk).where(ParagraphRow.book_id == copy_id)
        ).all()
    )
    source = ParagraphSourceRow
    rows = session.execute(
        select(ParagraphRow.id, source.document, source.locator, source.marks)
        .join(source, source.paragraph_pk == ParagraphRow.pk)
        .where(ParagraphRow.book_id == book_id, ParagraphRow.id.in_(list(copied)))
    ).all()
    if rows:
        session.execute(
            insert(table_of(ParagraphSourceRow)),
            [
                {"paragraph_pk": copied[pid], "document": d, "locator": loc, "marks": marks}
                for pid, d, loc, marks in rows
            ],
        )


def _insert_chapters(session: Session, book_id: str, draft: BookDraft) -> None:
    taken_chapters: set[str] = set()
    taken_paragraphs: set[str] = set()
    rows: list[dict[str, Any]] = []
    located: dict[str, SourceLocation] = {}
    titles: list[dict[str, Any]] = []
    for position, chapter in enumerate(draft.chapters):
        chapter_id = new_id(taken_chapters)
        taken_chapters.add(chapter_id)
        chapter_pk = session.execute(
            insert(ChapterRow)
            .values(book_id=book_id, id=chapter_id, position=position, title=chapter.title)
            .returning(ChapterRow.pk)
        ).scalar_one()
        if chapter.title_source is not None:
            titles.append({"chapter_pk": chapter_pk, **location_values(chapter.title_source)})
        for index, raw in enumerate(chapter.paragraphs):
            text = paragraph_text(raw)
            paragraph_id = new_id(taken_paragraphs)
            taken_paragraphs.add(paragraph_id)
            rows.append(
                {
                    "book_id": book_id,
                    "chapter_pk": chapter_pk,
                    "id": paragraph_id,
                    "position": index,
                    "text": text,
                }
            )
            if (source := chapter.source_of(index)) is not None:
                located[paragraph_id] = stored_location(raw, source)
    if rows:
        session.execute(insert(table_of(ParagraphRow)), rows)
    if titles:
        session.execute(insert(table_of(ChapterTitleSourceRow)), titles)
    if located:
        _insert_paragraph_sources(session, book_id, located)


def _insert_paragraph_sources(
    session: Session, book_id: str, located: dict[str, SourceLocation]
) -> None:
    pks = session.execute(
        select(ParagraphRow.id, ParagraphRow.pk).where(ParagraphRow.book_id == book_id)
    )
    session.execute(
        insert(table_of(ParagraphSourceRow)),
        [
            {"paragraph_pk": pk, **location_values(located[pid])}
            for pid, pk in pks
            if pid in located
        ],
    )


def insert_original(session: Session, book_id: str, original: OriginalFile) -> None:
    session.add(
        OriginalFileRow(
            book_id=book_id,
            name=original.name,
            media_type=original.media_type,
            size=len(original.data),
            sha256=file_digest(original.data),
            data=original.data,
        )
    )


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def location_values(source: SourceLocation) -> dict[str, Any]:
    marks = [
        {
            "tag": mark.tag,
            "start": mark.start,
            "end": mark.end,
            **({"attributes": dict(mark.attributes)} if mark.attributes else {}),
            **({"reading": mark.reading} if mark.reading is not None else {}),
        }
        for mark in source.marks
    ]
    return {"document": source.document, "locator": source.locator, "marks": marks or None}


def _location(document: str, locator: str, marks: list[dict[str, Any]] | None) -> SourceLocation:
    return SourceLocation(document, locator, _inline_marks(marks))


def _inline_marks(marks: list[dict[str, Any]] | None) -> tuple[InlineMark, ...]:
    return tuple(
        InlineMark(
            mark["tag"],
            mark["start"],
            mark["end"],
            tuple(mark.get("attributes", {}).items()),
            mark.get("reading"),
        )
        for mark in marks or ()
    )


def _marks_value(marks: Sequence[PlacedMark]) -> list[dict[str, Any]] | None:
    """A translation's marks as they are stored."""
    return [{"marks": list(m.marks), "start": m.start, "end": m.end} for m in marks] or None


def _placed_marks(value: list[dict[str, Any]] | None) -> tuple[PlacedMark, ...]:
    return tuple(
        PlacedMark(tuple(mark["marks"]), mark["start"], mark["end"]) for mark in value or ()
    )


def _version(row: TranslationRow) -> Version:
    return Version(
        row.pk,
        row.text,
        TranslationKind(row.kind),
        row.model,
        row.job_id,
        row.created_at,
        row.selected,
        _placed_marks(row.marks),
    )


def _paragraph_columns() -> tuple[Any, ...]:
    """What ``_paragraph`` makes a paragraph of, in its order (joined by ``_with_text``)."""
    return (
        ParagraphRow.id,
        ParagraphRow.position,
        ParagraphRow.text,
        TranslationRow.text,
        TranslationRow.translated_from,
        ParagraphRow.left_on_purpose,
        ParagraphSourceRow.marks,
        TranslationRow.marks,
    )


def _with_text(query: Any) -> Any:
    """``query`` joined to each paragraph's selected version and its source's marks."""
    return query.outerjoin(TranslationRow, _selected_join()).outerjoin(
        ParagraphSourceRow, ParagraphSourceRow.paragraph_pk == ParagraphRow.pk
    )


def _paragraph(
    paragraph_id: str,
    position: int,
    text: str,
    translation: str | None,
    translated_from: str | None,
    left_on_purpose: bool = False,
    source_marks: list[dict[str, Any]] | None = None,
    translation_marks: list[dict[str, Any]] | None = None,
) -> Paragraph:
    stale = translated_from is not None and translated_from != text
    marks = _inline_marks(source_marks)
    placed = _placed_marks(translation_marks)
    if placed and translation is not None:
        placed = valid_marks(placed, translation, len(marks))
    return Paragraph(
        paragraph_id,
        position,
        text,
        translation,
        translated_from if stale else None,
        left_on_purpose=bool(left_on_purpose),
        marks=marks,
        translation_marks=placed,
    )


def _chapter(row: ChapterRow, paragraphs: tuple[Paragraph, ...]) -> Chapter:
    renamed = row.title_translated_from
    stale = row.translated_title is not None and renamed is not None and renamed != row.title
    return Chapter(
        row.id,
        row.position + 1,
        row.title,
        row.translated_title,
        paragraphs,
        renamed if stale else None,
    )


def _is_stale() -> Any:
    """Whether the selected version (joined) was made for another text than the paragraph's."""
    return TranslationRow.translated_from.is_not(None) & (
        TranslationRow.translated_from != ParagraphRow.text
    )


def _selected_join() -> Any:
    return and_(TranslationRow.paragraph_pk == ParagraphRow.pk, TranslationRow.selected)


def _book(row: BookRow, chapters: tuple[Chapter, ...]) -> Book:
    settings = BookSettings.model_validate(row.settings)
    return Book(
        row.id,
        row.title,
        row.author,
        row.source_lang,
        row.target_lang,
        settings,
        chapters,
        row.translated_title,
    )


def _counts_by(
    session: Session, key: Any, where: Any = None
) -> dict[Any, tuple[int, int, int, int]]:
    """Per ``key``: all paragraphs, work (non-empty) paragraphs, translated work paragraphs,
    and those of them whose translation is stale; paragraphs out of the chapters left out."""
    work = case((ParagraphRow.text != "", 1), else_=0)
    translated = case(((ParagraphRow.text != "") & TranslationRow.pk.is_not(None), 1), else_=0)
    stale = case(((ParagraphRow.text != "") & _is_stale(), 1), else_=0)
    rows = session.execute(
        select(
            key,
            func.count(ParagraphRow.pk),
            func.sum(work),
            func.sum(translated),
            func.sum(stale),
        )
        .select_from(ParagraphRow)
        .outerjoin(TranslationRow, _selected_join())
        .where(ParagraphRow.chapter_pk.is_not(None), true() if where is None else where)
        .group_by(key)
    )
    return {group: (total, int(w or 0), int(t or 0), int(s or 0)) for group, total, w, t, s in rows}


def _paragraphs_by_chapter(
    session: Session, chapter_pks: list[int]
) -> dict[int, tuple[Paragraph, ...]]:
    result: dict[int | None, list[Paragraph]] = {pk: [] for pk in chapter_pks}
    rows = session.execute(
        _with_text(select(ParagraphRow.chapter_pk, *_paragraph_columns()))
        .where(ParagraphRow.chapter_pk.in_(chapter_pks))
        .order_by(ParagraphRow.chapter_pk, ParagraphRow.position)
    )
    for chapter_pk, *columns in rows:
        result[chapter_pk].append(_paragraph(*columns))
    return {pk: tuple(paragraphs) for pk, paragraphs in result.items() if pk is not None}


def _located(
    session: Session, book_id: str, where: Any, *, limit: int, backwards: bool = False
) -> list[LocatedParagraph]:
    order = (ChapterRow.position, ParagraphRow.position)
    query = _located_query(book_id, where)
    rows = session.execute(
        query.order_by(*(column.desc() for column in order) if backwards else order).limit(limit)
    )
    return [_located_paragraph(*row) for row in rows]


def _located_query(book_id: str, where: Any) -> Any:
    return _with_text(
        select(ChapterRow.id, ChapterRow.position, *_paragraph_columns()).join(
            ChapterRow, ChapterRow.pk == ParagraphRow.chapter_pk
        )
    ).where(ParagraphRow.book_id == book_id, where)


def _located_paragraph(cid: str, cpos: int, *paragraph: Any) -> LocatedParagraph:
    return LocatedParagraph(cid, cpos + 1, _paragraph(*paragraph))


def _unresolved(ref: str, matches: list[str]) -> str:
    """Why ``ref`` names no single book."""
    if len(matches) < 2:
        return f"no book with id {ref!r}"
    if len(ref) >= MIN_ID_PREFIX:
        return f"book id {ref!r} is ambiguous: {', '.join(sorted(matches))}"
    return (
        f"book id {ref!r} is ambiguous: {len(matches)} books start with it; "
        f"give at least {MIN_ID_PREFIX} characters"
    )


def _no_paragraphs(missing: set[str], book_id: str) -> NotFoundError:
    return NotFoundError(
        "no paragraph {paragraphs} in book {book_id}",
        paragraphs=", ".join(sorted(missing)),
        book_id=book_id,
    )
