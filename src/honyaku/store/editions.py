"""A book's editions: a new one written over the book in one transaction, and its history.

Writing an edition (``domain.edition.EditionMatch``) keeps every row that survives: a kept
chapter or paragraph is the same row, moved and given its new text; what the edition left
out is taken out of the chapters but not deleted. A paragraph whose text changed records,
on each of its versions made for the old text, that text (``translated_from``): its
selected version is stale until a new one is made or chosen. The new file replaces the
book's original, and every paragraph's place in it is read again.

Jobs: a job running on the book, queued or waiting for an answer refuses the edition; an
unfinished one loses its plan of chunks, so that resuming it plans again over the book as it
now stands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from honyaku.domain.alignment import alignment_key
from honyaku.domain.edition import ChapterPlan, EditionMatch, EditionSummary, Outcome
from honyaku.domain.ids import new_id
from honyaku.domain.sources import OriginalFile, SourceLocation
from honyaku.errors import UserError
from honyaku.store.database import Database
from honyaku.store.jobs import ACTIVE, RESUMABLE, JobStatus
from honyaku.store.leases import Lease
from honyaku.store.library import book_row, insert_original, location_values
from honyaku.store.schema import (
    BookRow,
    ChapterRow,
    ChapterTitleSourceRow,
    ChunkRow,
    EditionRow,
    GoneChapterRow,
    GoneParagraphRow,
    JobRow,
    OriginalFileRow,
    ParagraphRow,
    ParagraphSourceRow,
    TranslationRow,
    table_of,
    utc_now,
)


@dataclass(frozen=True, slots=True)
class EditionRecord:
    number: int
    name: str | None
    imported_at: datetime
    summary: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class EditionFile:
    """The file an edition was read from: its name, and the original kept for exports."""

    name: str
    sha256: str | None
    original: OriginalFile | None


class EditionStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def write(self, book_id: str, match: EditionMatch, file: EditionFile) -> int:
        """Make ``match`` the book as it stands, in one transaction; the edition's number."""
        with self.database.transaction(exclusive=True) as session:
            book_row(session, book_id)
            # The book's row is the lock where the database has row locks (PostgreSQL).
            session.execute(select(BookRow.id).where(BookRow.id == book_id).with_for_update())
            _refuse_active_jobs(session, book_id)
            _drop_unfinished_plans(session, book_id)
            number = (
                session.scalar(
                    select(func.max(EditionRow.number)).where(EditionRow.book_id == book_id)
                )
                or 1
            ) + 1
            current = _detach_paragraphs(session, book_id)
            if _paragraph_ids(match) != set(current):
                raise UserError(
                    "the book changed while its new edition was read: run the update again"
                )
            chapter_pks, titles = _write_chapters(session, book_id, match, number)
            _write_paragraphs(session, book_id, match, chapter_pks, current)
            _record_gone(session, book_id, match, current, titles, number)
            _write_sources(session, book_id, match, chapter_pks, file.original)
            session.add(
                EditionRow(
                    book_id=book_id,
                    number=number,
                    name=file.name,
                    sha256=file.sha256,
                    imported_at=utc_now(),
                    summary=_summary_values(match.summary),
                )
            )
            return number

    def history(self, book_id: str) -> list[EditionRecord]:
        """The book's editions, first to latest."""
        with self.database.transaction() as session:
            book_row(session, book_id)
            rows = session.scalars(
                select(EditionRow).where(EditionRow.book_id == book_id).order_by(EditionRow.number)
            )
            return [EditionRecord(r.number, r.name, r.imported_at, r.summary) for r in rows]

    def gone_paragraphs(self, book_id: str) -> int:
        """How many paragraphs with text editions left out (kept with their versions)."""
        with self.database.transaction() as session:
            return (
                session.scalar(
                    select(func.count())
                    .select_from(GoneParagraphRow)
                    .join(ParagraphRow, ParagraphRow.pk == GoneParagraphRow.paragraph_pk)
                    .where(GoneParagraphRow.book_id == book_id, ParagraphRow.text != "")
                )
                or 0
            )


def _summary_values(summary: EditionSummary) -> dict[str, Any]:
    return {
        "chapters": asdict(summary.chapters),
        "moved_chapters": summary.moved_chapters,
        "paragraphs": asdict(summary.paragraphs),
        "book_paragraphs": summary.book_paragraphs,
    }


def _refuse_active_jobs(session: Session, book_id: str) -> None:
    """A job that runs, or that a worker will take up or a person's answer go on with, would
    work on chunks of the old edition."""
    now = utc_now()
    active = session.scalars(
        select(JobRow).where(JobRow.book_id == book_id, JobRow.status.in_(ACTIVE))
    )
    for job in active:
        if job.status == JobStatus.QUEUED:
            raise UserError("job {job} is queued on this book: stop it first", job=job.id)
        if job.status == JobStatus.WAITING:
            raise UserError("job {job} waits for an answer on this book: stop it first", job=job.id)
        if Lease(job.owner, job.heartbeat_at).is_live(now):
            raise UserError("job {job} is running on this book: stop it first", job=job.id)


def _drop_unfinished_plans(session: Session, book_id: str) -> None:
    unfinished = select(JobRow.id).where(
        JobRow.book_id == book_id, JobRow.status.in_([s.value for s in RESUMABLE])
    )
    session.execute(delete(ChunkRow).where(ChunkRow.job_id.in_(unfinished)))


def _detach_paragraphs(session: Session, book_id: str) -> dict[str, int]:
    """Take every paragraph out of its chapter, and say which they were (id -> pk): the
    unique (chapter, position) then allows any new order, a removed chapter can go without
    its paragraphs, and what is not put back stays out, gone."""
    in_chapters = (ParagraphRow.book_id == book_id) & ParagraphRow.chapter_pk.is_not(None)
    current = dict(
        session.execute(select(ParagraphRow.id, ParagraphRow.pk).where(in_chapters)).all()
    )
    session.execute(
        update(ParagraphRow).where(in_chapters).values(chapter_pk=None),
        execution_options={"synchronize_session": False},
    )
    return current


def _paragraph_ids(match: EditionMatch) -> set[str]:
    """The ids of the paragraphs the match was made against."""
    kept = {p.id for chapter in match.chapters for p in chapter.paragraphs if p.id}
    return kept | {p.id for p in match.gone_paragraphs}


def _write_chapters(
    session: Session, book_id: str, match: EditionMatch, edition: int
) -> tuple[dict[int, int], dict[str, str]]:
    """Chapters in the new order, each kept one the same row, and the removed ones out:
    position in ``match`` -> pk, and the titles the chapters had (by id)."""
    rows = {
        row.id: row
        for row in session.scalars(select(ChapterRow).where(ChapterRow.book_id == book_id))
    }
    titles = {chapter_id: row.title for chapter_id, row in rows.items()}
    # Out of the way of the unique (book, position) first: the new order may swap any two.
    session.execute(
        update(ChapterRow)
        .where(ChapterRow.book_id == book_id)
        .values(position=-1 - ChapterRow.position),
        execution_options={"synchronize_session": "fetch"},
    )
    taken = set(rows) | _gone_chapter_ids(session, book_id)
    pks: dict[int, int] = {}
    for position, plan in enumerate(match.chapters):
        if plan.id is None:
            chapter_id = new_id(taken)
            taken.add(chapter_id)
            pks[position] = session.execute(
                insert(ChapterRow)
                .values(book_id=book_id, id=chapter_id, position=position, title=plan.title)
                .returning(ChapterRow.pk)
            ).scalar_one()
        else:
            row = rows[plan.id]
            _retitle(row, plan)
            row.position = position
            pks[position] = row.pk
    session.flush()
    for chapter_id in match.gone_chapters:
        row = rows[chapter_id]
        session.add(
            GoneChapterRow(
                book_id=book_id,
                edition=edition,
                chapter_id=chapter_id,
                title=row.title,
                translated_title=row.translated_title,
            )
        )
        session.delete(row)
    session.flush()
    return pks, titles


def _retitle(row: ChapterRow, plan: ChapterPlan) -> None:
    renamed = alignment_key(row.title) != alignment_key(plan.title)
    if renamed and row.translated_title and row.title_translated_from is None:
        row.title_translated_from = row.title
    row.title = plan.title


def _gone_chapter_ids(session: Session, book_id: str) -> set[str]:
    """Ids of chapters gone before: a new chapter never takes one, which old actions name."""
    gone = select(GoneChapterRow.chapter_id).where(GoneChapterRow.book_id == book_id)
    return set(session.scalars(gone))


def _write_paragraphs(
    session: Session,
    book_id: str,
    match: EditionMatch,
    chapter_pks: dict[int, int],
    current: dict[str, int],
) -> None:
    taken = set(session.scalars(select(ParagraphRow.id).where(ParagraphRow.book_id == book_id)))
    kept, added, changed = [], [], []
    for position, plan in enumerate(match.chapters):
        for index, paragraph in enumerate(plan.paragraphs):
            values = {
                "chapter_pk": chapter_pks[position],
                "position": index,
                "text": paragraph.text,
            }
            if paragraph.id is None:
                paragraph_id = new_id(taken)
                taken.add(paragraph_id)
                added.append({"book_id": book_id, "id": paragraph_id, **values})
                continue
            kept.append({"pk": current[paragraph.id], **values})
            if paragraph.outcome is Outcome.CHANGED:
                changed.append(
                    {"paragraph": current[paragraph.id], "previous": paragraph.previous_text}
                )
    if kept:
        session.execute(update(ParagraphRow), kept)
    if added:
        session.execute(insert(table_of(ParagraphRow)), added)
    if changed:
        session.execute(
            update(table_of(TranslationRow))
            .where(
                TranslationRow.paragraph_pk == bindparam("paragraph"),
                TranslationRow.translated_from.is_(None),
            )
            .values(translated_from=bindparam("previous")),
            changed,
        )


def _record_gone(
    session: Session,
    book_id: str,
    match: EditionMatch,
    current: dict[str, int],
    titles: dict[str, str],
    edition: int,
) -> None:
    """Where each paragraph the edition left out was: it stays, out of the chapters."""
    gone = [
        {
            "paragraph_pk": current[p.id],
            "book_id": book_id,
            "edition": edition,
            "chapter_id": p.chapter_id,
            "chapter_title": titles[p.chapter_id],
        }
        for p in match.gone_paragraphs
    ]
    if gone:
        session.execute(insert(table_of(GoneParagraphRow)), gone)


def _write_sources(
    session: Session,
    book_id: str,
    match: EditionMatch,
    chapter_pks: dict[int, int],
    original: OriginalFile | None,
) -> None:
    """The new file is the book's original, and the places are read from it: what the old
    one said of a paragraph no longer holds."""
    paragraphs = select(ParagraphRow.pk).where(ParagraphRow.book_id == book_id)
    session.execute(
        delete(ParagraphSourceRow).where(ParagraphSourceRow.paragraph_pk.in_(paragraphs))
    )
    chapters = select(ChapterRow.pk).where(ChapterRow.book_id == book_id)
    session.execute(
        delete(ChapterTitleSourceRow).where(ChapterTitleSourceRow.chapter_pk.in_(chapters))
    )
    session.execute(delete(OriginalFileRow).where(OriginalFileRow.book_id == book_id))
    if original is None:
        return
    insert_original(session, book_id, original)
    titles = [
        {"chapter_pk": chapter_pks[position], **location_values(plan.title_source)}
        for position, plan in enumerate(match.chapters)
        if plan.title_source is not None
    ]
    if titles:
        session.execute(insert(table_of(ChapterTitleSourceRow)), titles)
    located = dict(_located(session, match, chapter_pks))
    if located:
        session.execute(
            insert(table_of(ParagraphSourceRow)),
            [{"paragraph_pk": pk, **location_values(source)} for pk, source in located.items()],
        )


def _located(
    session: Session, match: EditionMatch, chapter_pks: dict[int, int]
) -> Iterable[tuple[int, SourceLocation]]:
    pks = {
        (chapter_pk, position): pk
        for pk, chapter_pk, position in session.execute(
            select(ParagraphRow.pk, ParagraphRow.chapter_pk, ParagraphRow.position).where(
                ParagraphRow.chapter_pk.in_(list(chapter_pks.values()))
            )
        )
    }
    for position, plan in enumerate(match.chapters):
        for index, paragraph in enumerate(plan.paragraphs):
            if paragraph.source is not None:
                yield pks[chapter_pks[position], index], paragraph.source
