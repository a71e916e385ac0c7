"""Questions of queued jobs, kept until a person answers them; their chunks parked meanwhile.

A worker has no one to ask. When the model of a queued job asks the translator, the worker
parks the chunk (``park``): in one transaction, under the chunk's claim, the question is kept
with the conversation so far and where its workflow stood, and the chunk waits, held by no
process and taken by no claim. A person answers from any front end on the database
(``answer``), or the book's deadline passes (``expire``): either way the chunk is pending
again, and ``then`` (the job queue) queues its chapter in the same transaction. The worker that
claims the chunk next takes the parked conversation back (``take_parked``) and the model reads
the answer, or that nobody gave one, as its call's result.

On PostgreSQL each change is also told on the ``honyaku_questions`` channel (LISTEN/NOTIFY), so
every workbench on the database shows a new question at once and closes an answered one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from honyaku.errors import NotFoundError, UserError
from honyaku.store.chunks import ChunkStatus, ClaimToken, hold
from honyaku.store.database import Database
from honyaku.store.schema import ChunkRow, JobRow, QuestionRow, utc_now

CHANNEL = "honyaku_questions"


class QuestionStatus(StrEnum):
    WAITING = "waiting"
    ANSWERED = "answered"
    EXPIRED = "expired"
    """Its deadline passed: the model is told nobody answered."""
    RESUMED = "resumed"
    """A worker took the conversation back up."""


@dataclass(frozen=True, slots=True)
class StoredQuestion:
    id: int
    job_id: str
    book_id: str
    chapter_number: int
    asker: str
    request: dict[str, Any]
    """The questions, as ``agent.broker.QuestionRequest`` holds them."""
    status: QuestionStatus
    asked_at: datetime
    deadline_at: datetime


@dataclass(frozen=True, slots=True)
class ParkedConversation:
    question: int
    conversation: list[dict[str, Any]]
    workflow: dict[str, Any]
    reply: dict[str, Any] | None
    """The person's reply; ``None`` when the deadline passed first."""


Requeue = Callable[[Session, str, int], None]
"""Queue the chapter (job id, chapter number) of a chunk that can go on, in the transaction
that freed it."""


class QuestionStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def park(
        self,
        token: ClaimToken,
        *,
        asker: str,
        request: dict[str, Any],
        conversation: list[dict[str, Any]],
        workflow: dict[str, Any],
        wait_s: float,
    ) -> int:
        """Keep the question and the chunk's conversation, and give the chunk back as waiting;
        refused with ``ClaimLost`` if the claim is no longer this process's."""
        with self.database.transaction() as session:
            hold(session, token)
            chunk = session.get(ChunkRow, token.chunk)
            assert chunk is not None
            chunk.status, chunk.owner = ChunkStatus.WAITING, None
            now = utc_now()
            row = QuestionRow(
                job_id=chunk.job_id,
                chunk_pk=chunk.pk,
                chapter_number=chunk.chapter_number,
                asker=asker,
                request=request,
                conversation=conversation,
                workflow=workflow,
                status=QuestionStatus.WAITING,
                asked_at=now,
                deadline_at=now + timedelta(seconds=wait_s),
            )
            session.add(row)
            session.flush()
            _notify(session, "asked", row.pk)
            return row.pk

    def waiting(self, book_id: str | None = None) -> list[StoredQuestion]:
        """Questions waiting for a person, oldest first."""
        query = (
            select(QuestionRow, JobRow.book_id)
            .join(JobRow, JobRow.id == QuestionRow.job_id)
            .where(QuestionRow.status == QuestionStatus.WAITING)
            .order_by(QuestionRow.pk)
        )
        if book_id is not None:
            query = query.where(JobRow.book_id == book_id)
        with self.database.transaction() as session:
            return [_question(row, book) for row, book in session.execute(query)]

    def get(self, question_id: int) -> StoredQuestion:
        with self.database.transaction() as session:
            found = session.execute(
                select(QuestionRow, JobRow.book_id)
                .join(JobRow, JobRow.id == QuestionRow.job_id)
                .where(QuestionRow.pk == question_id)
            ).first()
            if found is None:
                raise NotFoundError("no question {question_id}", question_id=question_id)
            return _question(*found)

    def answer(self, question_id: int, reply: dict[str, Any], then: Requeue) -> None:
        """Keep the person's reply and let the chunk go on; refused if the question is not
        waiting any more (answered elsewhere, or past its deadline)."""
        with self.database.transaction() as session:
            row = session.scalars(
                select(QuestionRow).where(QuestionRow.pk == question_id).with_for_update()
            ).first()
            if row is None:
                raise NotFoundError("no question {question_id}", question_id=question_id)
            if row.status != QuestionStatus.WAITING:
                raise UserError(
                    "question {question_id} was answered already, or its time ran out",
                    question_id=question_id,
                )
            self._settle(session, row, QuestionStatus.ANSWERED, reply, then)

    def expire(self, then: Requeue) -> list[int]:
        """Give the questions past their deadline nobody's answer; their ids."""
        with self.database.transaction() as session:
            rows = session.scalars(
                select(QuestionRow)
                .where(
                    QuestionRow.status == QuestionStatus.WAITING,
                    QuestionRow.deadline_at <= utc_now(),
                )
                .with_for_update(skip_locked=True)
            ).all()
            for row in rows:
                self._settle(session, row, QuestionStatus.EXPIRED, None, then)
            return [row.pk for row in rows]

    def take_parked(self, chunk_pk: int) -> ParkedConversation | None:
        """The chunk's conversation parked on a question now settled, taken back up once: a
        worker that dies after this starts the chunk afresh rather than go over it twice."""
        with self.database.transaction() as session:
            row = session.scalars(
                select(QuestionRow)
                .where(
                    QuestionRow.chunk_pk == chunk_pk,
                    QuestionRow.status.in_([QuestionStatus.ANSWERED, QuestionStatus.EXPIRED]),
                )
                .order_by(QuestionRow.pk.desc())
                .with_for_update()
            ).first()
            if row is None:
                return None
            row.status = QuestionStatus.RESUMED
            return ParkedConversation(row.pk, row.conversation, row.workflow, row.reply)

    def withdraw(self, job_id: str) -> None:
        """A stopped job's questions are no one's to answer any more; its chunks can be run
        again from where their accepted work stopped."""
        with self.database.transaction() as session:
            pks = session.scalars(
                select(QuestionRow.pk).where(
                    QuestionRow.job_id == job_id, QuestionRow.status == QuestionStatus.WAITING
                )
            ).all()
            session.execute(
                update(QuestionRow)
                .where(QuestionRow.pk.in_(pks))
                .values(status=QuestionStatus.RESUMED)
            )
            session.execute(
                update(ChunkRow)
                .where(ChunkRow.job_id == job_id, ChunkRow.status == ChunkStatus.WAITING)
                .values(status=ChunkStatus.PENDING)
            )
            for pk in pks:
                _notify(session, "closed", pk)

    def _settle(
        self,
        session: Session,
        row: QuestionRow,
        status: QuestionStatus,
        reply: dict[str, Any] | None,
        then: Requeue,
    ) -> None:
        row.status, row.reply, row.answered_at = status, reply, utc_now()
        session.execute(
            update(ChunkRow)
            .where(ChunkRow.pk == row.chunk_pk, ChunkRow.status == ChunkStatus.WAITING)
            .values(status=ChunkStatus.PENDING)
        )
        then(session, row.job_id, row.chapter_number)
        _notify(session, "closed", row.pk)


def _notify(session: Session, change: str, question_id: int) -> None:
    if session.get_bind().dialect.name == "postgresql":
        payload = json.dumps({"type": change, "id": question_id})
        session.execute(select(func.pg_notify(CHANNEL, payload)))


def _question(row: QuestionRow, book_id: str) -> StoredQuestion:
    return StoredQuestion(
        row.pk,
        row.job_id,
        book_id,
        row.chapter_number,
        row.asker,
        row.request,
        QuestionStatus(row.status),
        row.asked_at,
        row.deadline_at,
    )
