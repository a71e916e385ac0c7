"""A job's plan as rows: each chunk is a work item that one process claims, runs and finishes.

The rows are written when the job is planned, so resume, progress, the web app and any other
process read the same plan. A chunk is claimed, not a whole job: a process takes the next
chunk of a chapter whose earlier chunks have ended, under a lease (owner and heartbeat).

Chunks waiting to run (never started, or given back by a run that stopped or failed) may be
planned again (``ChunkStore.replan``): the chapter's last run of them is replaced, in the
same transaction, by chunks of another size, numbered after the others; a running chunk may
hand its unfinished paragraphs over to them.

No paragraph is worked on by two conversations at once: a claim leaves out the paragraphs
that a live chunk of any job on the same book holds, and the claimer is told which. Claims
run in an exclusive transaction (SQLite's write lock, a row lock elsewhere), so two
processes can never both see a paragraph free and take it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from itertools import groupby

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from honyaku.store.database import Database
from honyaku.store.leases import Lease, this_process
from honyaku.store.schema import BookRow, ChunkRow, JobRow, table_of, utc_now


class ChunkStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


ENDED = (ChunkStatus.DONE, ChunkStatus.FAILED)


@dataclass(frozen=True, slots=True)
class PlannedChunk:
    chapter_id: str
    chapter_number: int
    number: int
    """1-based among the chapter's chunks in this plan."""
    chunks_in_chapter: int
    paragraph_ids: tuple[str, ...]
    shows_title: bool


Replan = Callable[[str, Sequence[str], bool, int], list[PlannedChunk]]
"""Plans a chapter's paragraphs (its id, the paragraph ids, whether the first chunk shows the
title, the number of the first chunk) as chunks."""


@dataclass(frozen=True, slots=True)
class HandedBack:
    """What a running chunk gives back to be planned again: it keeps what it finished."""

    pk: int
    kept: tuple[str, ...]
    """Its paragraphs that are done."""
    paragraph_ids: tuple[str, ...]
    title: bool
    """It showed the chapter's title and the title is not done."""


@dataclass(frozen=True, slots=True)
class ChunkItem:
    """A chunk of a job's plan as it stands."""

    pk: int
    job_id: str
    planned: PlannedChunk
    status: ChunkStatus
    attempts: int
    lease: Lease
    error: str | None


@dataclass(frozen=True, slots=True)
class Claim:
    item: ChunkItem
    free: tuple[str, ...]
    """The chunk's paragraphs this claim may work on."""
    busy: tuple[str, ...]
    """Paragraphs a live chunk of another job holds: left to it."""


def add_chunks(
    session: Session, job_id: str, book_id: str, planned: Sequence[PlannedChunk]
) -> None:
    if not planned:
        return
    session.execute(
        insert(table_of(ChunkRow)),
        [
            {
                "job_id": job_id,
                "book_id": book_id,
                "chapter_id": p.chapter_id,
                "chapter_number": p.chapter_number,
                "number": p.number,
                "chunks_in_chapter": p.chunks_in_chapter,
                "paragraph_ids": list(p.paragraph_ids),
                "shows_title": p.shows_title,
                "status": ChunkStatus.PENDING,
                "attempts": 0,
            }
            for p in planned
        ],
    )


def reopen_chunks(session: Session, job_id: str) -> None:
    """A resumed job tries its failed chunks again; chunks a dead process held are free."""
    now = utc_now()
    rows = session.scalars(
        select(ChunkRow).where(
            ChunkRow.job_id == job_id,
            ChunkRow.status.in_([ChunkStatus.FAILED, ChunkStatus.RUNNING]),
        )
    )
    for row in rows:
        if row.status == ChunkStatus.FAILED or not _lease(row).is_live(now):
            row.status, row.owner, row.error = ChunkStatus.PENDING, None, None


class ChunkStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def items(self, job_id: str) -> list[ChunkItem]:
        """The job's chunks in chapter order."""
        with self.database.transaction() as session:
            rows = session.scalars(
                select(ChunkRow)
                .where(ChunkRow.job_id == job_id)
                .order_by(ChunkRow.chapter_number, ChunkRow.number)
            )
            return [_item(row) for row in rows]

    def next_item(self, job_id: str, chapter_number: int, after: int) -> ChunkItem | None:
        """The chapter's first chunk numbered after ``after`` that is not done, as it stands."""
        with self.database.transaction() as session:
            row = session.scalars(
                select(ChunkRow)
                .where(
                    ChunkRow.job_id == job_id,
                    ChunkRow.chapter_number == chapter_number,
                    ChunkRow.number > after,
                    ChunkRow.status != ChunkStatus.DONE,
                )
                .order_by(ChunkRow.number)
                .limit(1)
            ).first()
            return _item(row) if row is not None else None

    def claim(self, pk: int) -> Claim | ChunkStatus | None:
        """Take chunk ``pk`` for this process; or, if it cannot be taken, the status that
        stops it: ended (``DONE``, ``FAILED``) or held by another live process (``RUNNING``);
        ``None`` for a chunk planned again since it was read."""
        now = utc_now()
        with self.database.transaction(exclusive=True) as session:
            row = session.get(ChunkRow, pk)
            if row is None:
                return None
            if row.status in ENDED or _lease(row).held_elsewhere(now):
                return ChunkStatus(row.status)
            session.execute(select(BookRow.id).where(BookRow.id == row.book_id).with_for_update())
            held = _held_by_others(session, row, now)
            row.status = ChunkStatus.RUNNING
            row.owner = this_process()
            row.heartbeat_at = now
            row.attempts += 1
            session.flush()
            ids = tuple(row.paragraph_ids)
            return Claim(
                _item(row),
                tuple(pid for pid in ids if pid not in held),
                tuple(pid for pid in ids if pid in held),
            )

    def finish(self, pk: int, status: ChunkStatus, error: str | None = None) -> None:
        with self.database.transaction() as session:
            session.execute(
                update(ChunkRow)
                .where(ChunkRow.pk == pk)
                .values(status=status, error=error, heartbeat_at=utc_now())
            )

    def replan(
        self,
        job_id: str,
        split: Replan,
        *,
        chapter_id: str | None = None,
        handed_back: HandedBack | None = None,
    ) -> None:
        """Plan again, with ``split``, each chapter's (or ``chapter_id``'s) last run of chunks
        waiting to run, after the paragraphs ``handed_back`` by a running chunk, if any."""
        with self.database.transaction(exclusive=True) as session:
            query = select(ChunkRow).where(ChunkRow.job_id == job_id)
            if chapter_id is not None:
                query = query.where(ChunkRow.chapter_id == chapter_id)
            rows = list(session.scalars(query.order_by(ChunkRow.chapter_number, ChunkRow.number)))
            if handed_back is not None and (running := session.get(ChunkRow, handed_back.pk)):
                running.paragraph_ids = list(handed_back.kept)
                running.shows_title = running.shows_title and not handed_back.title
            for chapter, group in groupby(rows, key=lambda row: row.chapter_id):
                in_chapter = list(group)
                given = handed_back if _holds(in_chapter, handed_back) else None
                _replan_chapter(session, chapter, in_chapter, split, given)

    def release(self, job_id: str) -> None:
        """Give back every chunk of the job this process holds but did not end (a stop)."""
        with self.database.transaction() as session:
            session.execute(
                update(ChunkRow)
                .where(
                    ChunkRow.job_id == job_id,
                    ChunkRow.owner == this_process(),
                    ChunkRow.status == ChunkStatus.RUNNING,
                )
                .values(status=ChunkStatus.PENDING, owner=None)
            )

    def beat(self, job_id: str) -> bool:
        """Renew this process's leases on the job; ``True`` if someone asked the job to stop."""
        now = utc_now()
        with self.database.transaction() as session:
            session.execute(
                update(ChunkRow)
                .where(ChunkRow.job_id == job_id, ChunkRow.owner == this_process())
                .values(heartbeat_at=now)
            )
            session.execute(
                update(JobRow)
                .where(JobRow.id == job_id, JobRow.owner == this_process())
                .values(heartbeat_at=now)
            )
            return bool(session.scalar(select(JobRow.stop_requested).where(JobRow.id == job_id)))

    def live_elsewhere(self, job_id: str) -> int:
        """Chunks of the job that another live process is running now."""
        now = utc_now()
        return sum(
            1
            for item in self.items(job_id)
            if item.status is ChunkStatus.RUNNING and item.lease.held_elsewhere(now)
        )


def _holds(rows: list[ChunkRow], handed_back: HandedBack | None) -> bool:
    return handed_back is not None and any(row.pk == handed_back.pk for row in rows)


def _replan_chapter(
    session: Session,
    chapter_id: str,
    rows: list[ChunkRow],
    split: Replan,
    handed_back: HandedBack | None,
) -> None:
    tail: list[ChunkRow] = []
    for row in reversed(rows):
        if row.status != ChunkStatus.PENDING or row.pk == getattr(handed_back, "pk", None):
            break
        tail.insert(0, row)
    ids = list(handed_back.paragraph_ids if handed_back else ()) + [
        pid for row in tail for pid in row.paragraph_ids
    ]
    title = bool(handed_back and handed_back.title) or any(row.shows_title for row in tail)
    if not ids and not title:
        return
    first = max((row.number for row in rows if row not in tail), default=0) + 1
    planned = split(chapter_id, ids, title, first)
    if [(list(p.paragraph_ids), p.shows_title) for p in planned] == [
        (row.paragraph_ids, row.shows_title) for row in tail
    ]:
        return
    for row in tail:
        session.delete(row)
    session.flush()
    add_chunks(session, rows[0].job_id, rows[0].book_id, planned)


def _held_by_others(session: Session, row: ChunkRow, now: datetime) -> set[str]:
    """Paragraphs of ``row`` that a live running chunk of any job on the book holds."""
    others = session.scalars(
        select(ChunkRow).where(
            ChunkRow.book_id == row.book_id,
            ChunkRow.status == ChunkStatus.RUNNING,
            ChunkRow.pk != row.pk,
        )
    )
    wanted = set(row.paragraph_ids)
    held: set[str] = set()
    for other in others:
        if _lease(other).is_live(now):
            held |= wanted.intersection(other.paragraph_ids)
    return held


def _lease(row: ChunkRow) -> Lease:
    return Lease(row.owner, row.heartbeat_at)


def _item(row: ChunkRow) -> ChunkItem:
    planned = PlannedChunk(
        row.chapter_id,
        row.chapter_number,
        row.number,
        row.chunks_in_chapter,
        tuple(row.paragraph_ids),
        row.shows_title,
    )
    return ChunkItem(
        row.pk, row.job_id, planned, ChunkStatus(row.status), row.attempts, _lease(row), row.error
    )
