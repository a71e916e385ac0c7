"""A job's plan as rows: each chunk is a work item that one process claims, runs and finishes.

The rows are written when the job is planned, so resume, progress, the web app and any other
process read the same plan. A chunk is claimed, not a whole job: a process takes the next
chunk of a chapter whose earlier chunks have ended, under a lease (holder and heartbeat).

A claim carries a token, the chunk's attempt number, which every later claim raises. Each
write made under a claim (a batch, a title, a workflow status, the chunk's end) shows its
token, and the same transaction checks it and locks the chunk's row until it commits: a
process whose claim was taken over (its heartbeat had stalled past the claim timeout) has its
writes refused with ``ClaimLost`` and writes nothing, and no claim can come between a check
and its write.

Chunks waiting to run (never started, or given back by a run that stopped or failed) may be
planned again (``ChunkStore.replan``): the chapter's last run of them is replaced, in the
same transaction, by chunks of another size, numbered after the others; a running chunk may
hand its unfinished paragraphs over to them.

No paragraph is worked on by two conversations at once: a claim leaves out the paragraphs
that a live chunk of any job on the same book holds, and the claimer is told which. Claims
on one book wait for each other (SQLite's write lock, the book's row lock on PostgreSQL), so
two processes can never both see a paragraph free and take it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from itertools import groupby

from sqlalchemy import ColumnElement, func, insert, select, update
from sqlalchemy.orm import Session

from honyaku.domain.failures import Failure, FailureClass
from honyaku.domain.rounds import Part
from honyaku.errors import ClaimLost
from honyaku.store.database import Database
from honyaku.store.leases import Lease, this_process
from honyaku.store.schema import BookRow, ChunkRow, JobRow, table_of, utc_now


class ChunkStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    WAITING = "waiting"
    """Parked on a question for a person (``store.questions``): no claim takes it."""


ENDED = (ChunkStatus.DONE, ChunkStatus.FAILED)
UNCLAIMABLE = (*ENDED, ChunkStatus.WAITING)


@dataclass(frozen=True, slots=True)
class PlannedChunk:
    chapter_id: str
    chapter_number: int
    number: int
    """1-based among the chapter's chunks in this plan."""
    chunks_in_chapter: int
    paragraph_ids: tuple[str, ...]
    shows_title: bool
    round: int = 1
    """The round that planned it: 1 for the job's plan (``ChunkRow.round``)."""


Replan = Callable[[str, Sequence[str], bool, int], list[PlannedChunk]]
"""Plans a chapter's paragraphs (its id, the paragraph ids, whether the first chunk shows the
title, the number of the first chunk) as chunks."""


@dataclass(frozen=True, slots=True)
class HandedBack:
    """What a running chunk gives back, under its claim, to be planned again: it keeps what
    it finished."""

    token: ClaimToken
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
    failure: Failure | None
    """Why a failed chunk failed."""
    model: str | None = None
    """The model that last ran it to its end."""


@dataclass(frozen=True, slots=True)
class ClaimToken:
    """What a write made under a claim shows: the chunk, and the attempt that claimed it."""

    chunk: int
    attempt: int


@dataclass(frozen=True, slots=True)
class Claim:
    item: ChunkItem
    free: tuple[str, ...]
    """The chunk's paragraphs this claim may work on."""
    busy: tuple[str, ...]
    """Paragraphs a live chunk of another job holds: left to it."""

    @property
    def token(self) -> ClaimToken:
        return ClaimToken(self.item.pk, self.item.attempts)


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """What a heartbeat learned."""

    stop: bool
    """Someone asked the job to stop since this run opened it."""
    lost: frozenset[ClaimToken]
    """Claims another process took over: their conversations should end."""


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
                "round": p.round,
            }
            for p in planned
        ],
    )


def reopen_chunks(session: Session, job_id: str) -> None:
    """A resumed job tries its failed chunks again; chunks whose holder went silent are free."""
    now = utc_now()
    rows = session.scalars(
        select(ChunkRow).where(
            ChunkRow.job_id == job_id,
            ChunkRow.status.in_([ChunkStatus.FAILED, ChunkStatus.RUNNING]),
        )
    )
    for row in rows:
        if row.status == ChunkStatus.FAILED or not _lease(row).is_live(now):
            row.status, row.owner, row.error, row.failure = ChunkStatus.PENDING, None, None, None


def chapters_to_run(session: Session, job_id: str) -> list[int]:
    """The chapters of a job with chunks left to run, those with the most first: the job ends
    closest to its critical path."""
    rows = session.execute(
        select(ChunkRow.chapter_number, func.count(ChunkRow.pk))
        .where(ChunkRow.job_id == job_id, ChunkRow.status.not_in(UNCLAIMABLE))
        .group_by(ChunkRow.chapter_number)
    ).all()
    return [chapter for chapter, _ in sorted(rows, key=lambda row: (-row[1], row[0]))]


Held = ClaimToken | tuple[ClaimToken, ...]
"""What a write is made under: a chunk's claim, or the claims of the chunks that share a
conversation (short chapters together), every one of which must stand."""


def hold(session: Session, held: Held, **changes: object) -> None:
    """Check, in the transaction of a write made under a claim, that the claim still stands,
    and keep the chunk locked until that write commits; else raise ``ClaimLost``. The chunk's
    own ``changes``, if any, are made by the same statement."""
    for token in (held,) if isinstance(held, ClaimToken) else held:
        if not _renew(session, token, **changes):
            raise ClaimLost(_lost_reason(session, token), chunk=token.chunk)


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
        """The chapter's first chunk numbered after ``after`` that has not ended (done or
        failed), as it stands."""
        with self.database.transaction() as session:
            row = session.scalars(
                select(ChunkRow)
                .where(
                    ChunkRow.job_id == job_id,
                    ChunkRow.chapter_number == chapter_number,
                    ChunkRow.number > after,
                    ChunkRow.status.not_in(ENDED),
                )
                .order_by(ChunkRow.number)
                .limit(1)
            ).first()
            return _item(row) if row is not None else None

    def claim(self, pk: int) -> Claim | ChunkStatus | None:
        """Take chunk ``pk`` for this process; or, if it cannot be taken, the status that
        stops it: ended (``DONE``, ``FAILED``), parked on a question (``WAITING``) or held by
        another live process (``RUNNING``); ``None`` for a chunk planned again since it was
        read."""
        now = utc_now()
        with self.database.transaction(exclusive=True) as session:
            book_id = session.scalar(select(ChunkRow.book_id).where(ChunkRow.pk == pk))
            if book_id is None:
                return None
            session.execute(select(BookRow.id).where(BookRow.id == book_id).with_for_update())
            row = session.scalars(
                select(ChunkRow).where(ChunkRow.pk == pk).with_for_update()
            ).first()
            if row is None:
                return None
            if row.status in UNCLAIMABLE or _lease(row).held_elsewhere(now):
                return ChunkStatus(row.status)
            held = _held_by_others(session, row, now)
            row.status = ChunkStatus.RUNNING
            row.owner = this_process()
            row.heartbeat_at = now
            row.attempts += 1
            row.workflow_status = None
            session.flush()
            ids = tuple(row.paragraph_ids)
            return Claim(
                _item(row),
                tuple(pid for pid in ids if pid not in held),
                tuple(pid for pid in ids if pid in held),
            )

    def record_workflow(self, held: Held, status: str) -> None:
        """Note the workflow status the chunk's conversation reached."""
        with self.database.transaction() as session:
            hold(session, held, workflow_status=status)

    def finish(
        self,
        token: ClaimToken,
        status: ChunkStatus,
        failure: Failure | None = None,
        *,
        model: str | None = None,
    ) -> None:
        """End the claimed chunk, done or failed, as ``model`` left it."""
        kind, error = (failure.kind.value, failure.detail) if failure else (None, None)
        with self.database.transaction() as session:
            hold(session, token, status=status, error=error, failure=kind, model=model)

    def fail_again(self, job_id: str, keys: Collection[int], failure: Failure, model: str) -> None:
        """Failed chunks failed again, untried: ``model``, which was to try them, could not
        start."""
        with self.database.transaction() as session:
            session.execute(
                update(ChunkRow)
                .where(
                    ChunkRow.job_id == job_id,
                    ChunkRow.pk.in_(list(keys)),
                    ChunkRow.status == ChunkStatus.FAILED,
                )
                .values(
                    status=ChunkStatus.FAILED,
                    failure=failure.kind.value,
                    error=failure.detail,
                    model=model,
                )
            )

    def retry(self, job_id: str, parts: Mapping[int, Sequence[Part]], *, round: int = 2) -> None:
        """Plan failed chunks to run again in ``round``, each (by its key) as the ``parts``
        given: smaller parts of it, or itself whole again; one given no part is done (what it
        had left was done meanwhile). The new chunks come after their chapter's last."""
        with self.database.transaction(exclusive=True) as session:
            # The book's row first, as a claim locks it: no chunk is claimed meanwhile.
            book_id = select(JobRow.book_id).where(JobRow.id == job_id).scalar_subquery()
            session.execute(select(BookRow.id).where(BookRow.id == book_id).with_for_update())
            rows = session.scalars(
                select(ChunkRow).where(ChunkRow.job_id == job_id, ChunkRow.pk.in_(list(parts)))
            ).all()
            for row in rows:
                if row.status != ChunkStatus.FAILED:
                    continue
                if not parts[row.pk]:
                    row.status, row.error, row.failure = ChunkStatus.DONE, None, None
                    continue
                last = session.scalar(
                    select(func.max(ChunkRow.number)).where(
                        ChunkRow.job_id == job_id, ChunkRow.chapter_id == row.chapter_id
                    )
                )
                first = (last or 0) + 1
                count = len(parts[row.pk])
                add_chunks(
                    session,
                    job_id,
                    row.book_id,
                    [
                        PlannedChunk(
                            row.chapter_id,
                            row.chapter_number,
                            first + n,
                            first + count - 1,
                            tuple(part.paragraph_ids),
                            part.shows_title,
                            round,
                        )
                        for n, part in enumerate(parts[row.pk])
                    ],
                )
                session.delete(row)

    def replan(
        self,
        job_id: str,
        split: Replan,
        *,
        chapter_id: str | None = None,
        handed_back: HandedBack | None = None,
        alone: bool = False,
    ) -> None:
        """Plan again, with ``split``, each chapter's (or ``chapter_id``'s) last run of chunks
        of the job's plan waiting to run, after the paragraphs ``handed_back`` by a running
        chunk, if any. A part a round planned is never planned again; what it hands back is
        planned ``alone``, as is what any chunk hands back when ``alone`` is asked (a
        fallback's): in chunks of its own, the others as they are."""
        with self.database.transaction(exclusive=True) as session:
            # The book's row first, as a claim locks it: no chunk is claimed while it is
            # planned again.
            book_id = select(JobRow.book_id).where(JobRow.id == job_id).scalar_subquery()
            session.execute(select(BookRow.id).where(BookRow.id == book_id).with_for_update())
            if handed_back is not None:
                hold(session, handed_back.token)
            query = select(ChunkRow).where(ChunkRow.job_id == job_id)
            if chapter_id is not None:
                query = query.where(ChunkRow.chapter_id == chapter_id)
            rows = list(session.scalars(query.order_by(ChunkRow.chapter_number, ChunkRow.number)))
            running = session.get(ChunkRow, handed_back.token.chunk) if handed_back else None
            if handed_back is not None and running is not None:
                running.paragraph_ids = list(handed_back.kept)
                running.shows_title = running.shows_title and not handed_back.title
                if alone or running.round > 1:
                    _plan_alone(session, running, rows, split, handed_back)
                    return
            for chapter, group in groupby(rows, key=lambda row: row.chapter_id):
                in_chapter = list(group)
                given = handed_back if _holds(in_chapter, handed_back) else None
                _replan_chapter(session, chapter, in_chapter, split, given)

    def release(self, tokens: Collection[ClaimToken]) -> None:
        """Give back claims this process holds but did not end (a stop); claims taken over
        meanwhile stay with their new holders."""
        with self.database.transaction() as session:
            for token in tokens:
                session.execute(
                    update(ChunkRow)
                    .where(*_standing(token))
                    .values(status=ChunkStatus.PENDING, owner=None)
                )

    def beat(self, job_id: str, tokens: Collection[ClaimToken], stops_seen: int) -> Heartbeat:
        """Renew this process's claims (``tokens``) and its share of the job's lease; what
        the job's stops and the claims' fates are now."""
        with self.database.transaction() as session:
            # The job's row before the chunks', in the order a job is opened in: two
            # transactions locking both never wait for each other in a circle.
            session.execute(
                update(JobRow).where(JobRow.id == job_id).values(heartbeat_at=utc_now())
            )
            lost = frozenset(
                token
                for token in tokens
                if not _renew(session, token) and not _ended_by_holder(session, token)
            )
            stops = session.scalar(select(JobRow.stop_requests).where(JobRow.id == job_id))
            return Heartbeat(bool(stops and stops > stops_seen), lost)

    def holders(self, job_id: str) -> tuple[str, ...]:
        """The live processes running chunks of the job now."""
        now = utc_now()
        return tuple(
            sorted(
                {
                    str(item.lease.owner)
                    for item in self.items(job_id)
                    if item.status is ChunkStatus.RUNNING and item.lease.is_live(now)
                }
            )
        )

    def live_elsewhere(self, job_id: str) -> int:
        """Chunks of the job that another live process is running now."""
        now = utc_now()
        return sum(
            1
            for item in self.items(job_id)
            if item.status is ChunkStatus.RUNNING and item.lease.held_elsewhere(now)
        )


def _holds(rows: list[ChunkRow], handed_back: HandedBack | None) -> bool:
    return handed_back is not None and any(row.pk == handed_back.token.chunk for row in rows)


def _plan_alone(
    session: Session,
    running: ChunkRow,
    rows: list[ChunkRow],
    split: Replan,
    handed_back: HandedBack,
) -> None:
    """What ``running`` hands back, planned after its chapter's last chunk, in its round."""
    last = max(row.number for row in rows if row.chapter_id == running.chapter_id)
    planned = split(running.chapter_id, handed_back.paragraph_ids, handed_back.title, last + 1)
    add_chunks(
        session,
        running.job_id,
        running.book_id,
        [replace(p, round=running.round) for p in planned],
    )


def _replan_chapter(
    session: Session,
    chapter_id: str,
    rows: list[ChunkRow],
    split: Replan,
    handed_back: HandedBack | None,
) -> None:
    running = handed_back.token.chunk if handed_back else None
    tail: list[ChunkRow] = []
    for row in reversed(rows):
        if row.status != ChunkStatus.PENDING or row.pk == running or row.round > 1:
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


def _standing(token: ClaimToken) -> tuple[ColumnElement[bool], ...]:
    """Where the claim ``token`` names still stands: the chunk runs under that attempt."""
    return (
        ChunkRow.pk == token.chunk,
        ChunkRow.attempts == token.attempt,
        ChunkRow.status == ChunkStatus.RUNNING,
    )


def _renew(session: Session, token: ClaimToken, **changes: object) -> bool:
    """Renew the claim's heartbeat, and make ``changes``, if it still stands; the update locks
    the chunk's row."""
    renewed = session.execute(
        update(ChunkRow).where(*_standing(token)).values(heartbeat_at=utc_now(), **changes)
    )
    return renewed.rowcount == 1  # type: ignore[attr-defined]


def _ended_by_holder(session: Session, token: ClaimToken) -> bool:
    row = session.execute(
        select(ChunkRow.attempts, ChunkRow.status).where(ChunkRow.pk == token.chunk)
    ).first()
    return row is not None and row.attempts == token.attempt and row.status in ENDED


def _lost_reason(session: Session, token: ClaimToken) -> str:
    row = session.get(ChunkRow, token.chunk)
    where = "" if row is None else f" (chapter {row.chapter_number}, chunk {row.number})"
    if row is not None and row.attempts != token.attempt:
        why = f"{row.owner or 'another process'} took it over (attempt {row.attempts})"
    elif row is not None and row.status in ENDED:
        why = f"it has ended ({row.status})"
    else:
        why = "it was given back after this process's heartbeat stalled"
    return (
        f"the claim on chunk {token.chunk}{where} is no longer this process's: {why}; "
        "the write was refused and nothing of it was saved"
    )


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
        row.round,
    )
    return ChunkItem(
        row.pk,
        row.job_id,
        planned,
        ChunkStatus(row.status),
        row.attempts,
        _lease(row),
        failure_of_row(row),
        row.model,
    )


def failure_of_row(row: ChunkRow) -> Failure | None:
    """Why a failed chunk failed; one failed before classes were kept counts as a workflow it
    could not finish."""
    if row.status != ChunkStatus.FAILED:
        return None
    kind = FailureClass(row.failure) if row.failure else FailureClass.WORKFLOW
    return Failure(kind, row.error or "")
