"""The batches a job sent through a provider's Batch API, kept so that any later process can
poll them and fetch their results: the provider's id, the state and counts as last polled,
and the handle (``llm.batches.BatchHandle.record()``, JSON) with each custom id's
conversation; and each part's conversation in batch mode (``BatchConversations``).

A batch is kept twice: as ``SENDING``, with the custom ids it is about to carry, before it is
submitted; then with the provider's id and handle once it was taken. A row still ``SENDING``
is one whose process died while it submitted: whether the provider took it, only the
provider can say (``jobs.batch_post``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from honyaku.store.database import Database
from honyaku.store.ids import fresh_id
from honyaku.store.schema import BatchConversationRow, JobBatchRow, utc_now

SENDING = "sending"
"""A batch about to be submitted: its lines are known, its provider's id not yet."""


@dataclass(frozen=True, slots=True)
class JobBatch:
    id: str
    job_id: str
    provider: str
    model: str
    batch_id: str
    state: str
    handle: dict[str, Any]
    counts: dict[str, Any]
    submitted_at: datetime
    ended_at: datetime | None = None

    @property
    def custom_ids(self) -> set[str]:
        return {line[0] for line in self.handle.get("lines", ())}


class JobBatches:
    def __init__(self, database: Database) -> None:
        self.database = database

    def add(
        self, job_id: str, handle: Mapping[str, Any], state: str, counts: Mapping[str, Any]
    ) -> JobBatch:
        """Keep a batch just submitted, from its handle's record."""
        with self.database.transaction() as session:
            row = JobBatchRow(
                id=fresh_id(session, JobBatchRow),
                job_id=job_id,
                provider=handle["provider"],
                model=handle["model"],
                batch_id=handle["batch_id"],
                state=state,
                handle=dict(handle),
                counts=dict(counts),
                submitted_at=datetime.fromisoformat(handle["submitted_at"]),
            )
            session.add(row)
            session.flush()
            return _batch(row)

    def sending(self, job_id: str, provider: str, model: str, lines: list[list[Any]]) -> JobBatch:
        """Keep a batch about to be submitted, with its lines (``BatchHandle.record()``'s)."""
        now = utc_now()
        with self.database.transaction() as session:
            row = JobBatchRow(
                id=fresh_id(session, JobBatchRow),
                job_id=job_id,
                provider=provider,
                model=model,
                batch_id="",
                state=SENDING,
                handle={"lines": lines},
                counts={},
                submitted_at=now,
            )
            session.add(row)
            session.flush()
            return _batch(row)

    def submitted(
        self, id: str, handle: Mapping[str, Any], state: str, counts: Mapping[str, Any]
    ) -> None:
        """The batch ``sending`` kept was taken: its provider's id and handle."""
        with self.database.transaction() as session:
            session.execute(
                update(JobBatchRow)
                .where(JobBatchRow.id == id)
                .values(
                    batch_id=handle["batch_id"],
                    handle=dict(handle),
                    state=state,
                    counts=dict(counts),
                    submitted_at=datetime.fromisoformat(handle["submitted_at"]),
                )
            )

    def update(self, id: str, state: str, counts: Mapping[str, Any], *, ended: bool) -> None:
        """A poll's state and counts; ``ended``: the batch's results are ready."""
        values: dict[str, Any] = {"state": state, "counts": dict(counts)}
        if ended:
            values["ended_at"] = utc_now()
        with self.database.transaction() as session:
            session.execute(update(JobBatchRow).where(JobBatchRow.id == id).values(values))

    def of_job(self, job_id: str) -> list[JobBatch]:
        """The job's batches, the first submitted first."""
        with self.database.transaction() as session:
            rows = session.scalars(
                select(JobBatchRow)
                .where(JobBatchRow.job_id == job_id)
                .order_by(JobBatchRow.submitted_at, JobBatchRow.id)
            )
            return [_batch(row) for row in rows]

    def holding(self, job_id: str, custom_id: str) -> JobBatch | None:
        """The job's latest batch that carries the line ``custom_id``, if any."""
        found = [b for b in self.of_job(job_id) if custom_id in b.custom_ids]
        return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class KeptConversation:
    id: str
    chunk_pk: int
    conversation: list[dict[str, Any]]
    workflow: dict[str, Any]
    custom_id: str | None


class BatchConversations:
    """Each part's conversation in batch mode, kept before each request goes out."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def open(self, job_id: str, chunk_pk: int) -> str:
        """A new conversation for the chunk: its key."""
        with self.database.transaction() as session:
            row = BatchConversationRow(
                id=fresh_id(session, BatchConversationRow),
                job_id=job_id,
                chunk_pk=chunk_pk,
                conversation=[],
                workflow={},
                custom_id=None,
                updated_at=utc_now(),
            )
            session.add(row)
            return row.id

    def keep(
        self,
        key: str,
        conversation: list[dict[str, Any]],
        workflow: Mapping[str, Any],
        custom_id: str,
    ) -> None:
        """The request about to go out as the line ``custom_id``, and where the workflow
        stood when it was made."""
        with self.database.transaction() as session:
            session.execute(
                update(BatchConversationRow)
                .where(BatchConversationRow.id == key)
                .values(
                    conversation=conversation,
                    workflow=dict(workflow),
                    custom_id=custom_id,
                    updated_at=utc_now(),
                )
            )

    def of_chunk(self, chunk_pk: int) -> KeptConversation | None:
        """The chunk's conversation waiting for a batch's answer, if one is kept."""
        with self.database.transaction() as session:
            row = session.scalars(
                select(BatchConversationRow)
                .where(
                    BatchConversationRow.chunk_pk == chunk_pk,
                    BatchConversationRow.custom_id.is_not(None),
                )
                .order_by(BatchConversationRow.updated_at.desc())
            ).first()
            if row is None:
                return None
            return KeptConversation(
                row.id, row.chunk_pk, list(row.conversation), dict(row.workflow), row.custom_id
            )


def _batch(row: JobBatchRow) -> JobBatch:
    return JobBatch(
        row.id,
        row.job_id,
        row.provider,
        row.model,
        row.batch_id,
        row.state,
        dict(row.handle),
        dict(row.counts),
        row.submitted_at,
        row.ended_at,
    )
