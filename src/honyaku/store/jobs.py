"""Jobs, their running cost, and the actions of their conversations."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import insert, select, update

from honyaku.domain.ids import new_id
from honyaku.domain.workflow import JobKind
from honyaku.errors import NotFoundError
from honyaku.store.database import Database
from honyaku.store.schema import (
    ActionRow,
    ChapterRow,
    JobRow,
    ParagraphRow,
    TranslationRow,
    utc_now,
)

HEARTBEAT_STALE_S = 600.0
"""A running job whose owner has written nothing for this long is taken to be dead."""


class JobStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


RESUMABLE = (JobStatus.RUNNING, JobStatus.FAILED, JobStatus.INTERRUPTED)


@dataclass(frozen=True, slots=True)
class JobCost:
    """What a job has spent so far; added to after every request."""

    requests: int = 0
    retries: int = 0
    input_chars: int = 0
    output_chars: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: JobCost) -> JobCost:
        return JobCost(
            *(a + b for a, b in zip(_cost_values(self), _cost_values(other), strict=True))
        )


def _cost_values(cost: JobCost) -> tuple[int, ...]:
    return tuple(getattr(cost, name) for name in JobCost.__slots__)


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    book_id: str
    kind: JobKind
    chapters: list[int] | None
    model: str
    protocol: str
    status: JobStatus
    error: str | None
    created_at: datetime
    cost: JobCost
    owner: str | None = None
    """``host:pid`` of the process running it."""
    heartbeat_at: datetime | None = None

    def runs_elsewhere(self) -> bool:
        """Whether another live process is running this job right now."""
        if self.status is not JobStatus.RUNNING or not self.owner or self.owner == this_process():
            return False
        host, _, pid = self.owner.rpartition(":")
        if host == socket.gethostname():
            return _alive(int(pid))
        beat = self.heartbeat_at or self.created_at
        if beat.tzinfo is None:
            beat = beat.replace(tzinfo=UTC)
        return (utc_now() - beat).total_seconds() < HEARTBEAT_STALE_S


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True, slots=True)
class Action:
    kind: str
    name: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    chapter_id: str | None = None
    chunk: int | None = None


@dataclass(frozen=True, slots=True)
class RecordedAction:
    job_id: str
    created_at: datetime
    action: Action
    chapter_number: int | None = None


class JobStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def create(
        self, book_id: str, kind: JobKind, chapters: list[int] | None, *, model: str, protocol: str
    ) -> Job:
        with self.database.transaction() as session:
            taken = set(session.scalars(select(JobRow.id)))
            row = JobRow(
                id=new_id(taken),
                book_id=book_id,
                kind=kind.value,
                chapters=chapters,
                model=model,
                protocol=protocol,
                status=JobStatus.RUNNING,
                created_at=utc_now(),
                owner=this_process(),
                heartbeat_at=utc_now(),
                **dict.fromkeys(JobCost.__slots__, 0),
            )
            session.add(row)
            session.flush()
            return _job(row)

    def get(self, job_id: str) -> Job:
        with self.database.transaction() as session:
            row = session.get(JobRow, job_id)
            if row is None:
                raise NotFoundError(f"no job with id {job_id!r}")
            return _job(row)

    def resumable(self, book_id: str, kind: JobKind, chapters: list[int] | None) -> Job | None:
        """The latest unfinished job of this kind over the same chapters, if any."""
        with self.database.transaction() as session:
            rows = session.scalars(
                select(JobRow)
                .where(JobRow.book_id == book_id, JobRow.kind == kind.value)
                .order_by(JobRow.created_at.desc())
            )
            latest = next((row for row in rows if row.chapters == chapters), None)
            return _job(latest) if latest is not None and latest.status in RESUMABLE else None

    def list(self, book_id: str) -> list[Job]:
        with self.database.transaction() as session:
            rows = session.scalars(
                select(JobRow).where(JobRow.book_id == book_id).order_by(JobRow.created_at)
            )
            return [_job(row) for row in rows]

    def reopen(self, job_id: str, *, model: str, protocol: str) -> None:
        """Run a stopped job again, in this process, with the model now chosen."""
        self._set_status(
            job_id,
            JobStatus.RUNNING,
            None,
            model=model,
            protocol=protocol,
            owner=this_process(),
            heartbeat_at=utc_now(),
        )

    def finish(self, job_id: str, status: JobStatus, error: str | None = None) -> None:
        self._set_status(job_id, status, error, finished_at=utc_now())

    def _set_status(self, job_id: str, status: JobStatus, error: str | None, **more: Any) -> None:
        with self.database.transaction() as session:
            session.execute(
                update(JobRow).where(JobRow.id == job_id).values(status=status, error=error, **more)
            )

    def record(self, job_id: str, actions: Sequence[Action], cost: JobCost = JobCost()) -> None:
        """Add actions and cost in one transaction."""
        with self.database.transaction() as session:
            if actions:
                now = utc_now()
                session.execute(
                    insert(ActionRow.__table__),
                    [
                        {
                            "job_id": job_id,
                            "chapter_id": a.chapter_id,
                            "chunk": a.chunk,
                            "kind": a.kind,
                            "name": a.name,
                            "payload": a.payload,
                            "created_at": now,
                        }
                        for a in actions
                    ],
                )
            counters = {n: getattr(JobRow, n) + getattr(cost, n) for n in JobCost.__slots__}
            counters["heartbeat_at"] = utc_now()
            session.execute(update(JobRow).where(JobRow.id == job_id).values(counters))

    def actions(self, book_id: str, *, kinds: Sequence[str] | None = None) -> list[RecordedAction]:
        with self.database.transaction() as session:
            query = (
                select(ActionRow, ChapterRow.position)
                .join(JobRow, JobRow.id == ActionRow.job_id)
                .outerjoin(
                    ChapterRow,
                    (ChapterRow.book_id == JobRow.book_id)
                    & (ChapterRow.id == ActionRow.chapter_id),
                )
                .where(JobRow.book_id == book_id)
                .order_by(ActionRow.pk)
            )
            if kinds is not None:
                query = query.where(ActionRow.kind.in_(list(kinds)))
            return [
                RecordedAction(
                    row.job_id,
                    row.created_at,
                    Action(row.kind, row.name, row.payload, row.chapter_id, row.chunk),
                    None if position is None else position + 1,
                )
                for row, position in session.execute(query)
            ]

    def paragraphs_done(self, job_id: str) -> set[str]:
        """Ids of the paragraphs this job has written a version of."""
        with self.database.transaction() as session:
            return set(
                session.scalars(
                    select(ParagraphRow.id)
                    .join(TranslationRow, TranslationRow.paragraph_pk == ParagraphRow.pk)
                    .where(TranslationRow.job_id == job_id)
                )
            )


def _job(row: JobRow) -> Job:
    return Job(
        row.id,
        row.book_id,
        JobKind(row.kind),
        row.chapters,
        row.model,
        row.protocol,
        JobStatus(row.status),
        row.error,
        row.created_at,
        JobCost(*(getattr(row, name) for name in JobCost.__slots__)),
        row.owner,
        row.heartbeat_at,
    )
