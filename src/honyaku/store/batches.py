"""The batches a job sent through a provider's Batch API, kept so that any later process can
poll them and fetch their results: the provider's id, the state and counts as last polled,
and the handle (``llm.batches.BatchHandle.record()``, JSON) with each custom id's
conversation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from honyaku.store.database import Database
from honyaku.store.ids import fresh_id
from honyaku.store.schema import JobBatchRow, utc_now


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
