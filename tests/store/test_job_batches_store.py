"""A job's batches kept in the database, as their handles' JSON: any later process finds them."""

from __future__ import annotations

from datetime import UTC, datetime

from honyaku.domain import JobKind
from honyaku.llm.batches import BatchCounts, BatchHandle, BatchLine, BatchState, BatchStatus
from honyaku.store import JobBatches, JobScope


def test_a_batch_handle_kept_with_its_job_comes_back_whole_and_its_polls_update_it(
    database, jobs, book_id
):
    job, _ = jobs.open(
        JobScope(book_id, JobKind.TRANSLATION, [1]), model="m", protocol="native", planned=()
    )
    handle = BatchHandle(
        "anthropic",
        "msgbatch_01",
        "claude-sonnet-4-5",
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        (BatchLine("c1-s2", "chunk-1", 2), BatchLine("c2-s1", "chunk-2", 1)),
    )
    status = BatchStatus(BatchState.IN_PROGRESS, BatchCounts(2), "in_progress")
    store = JobBatches(database)

    kept = store.add(job.id, handle.record(), status.state, status.record())
    ended = BatchStatus(BatchState.ENDED, BatchCounts(2, succeeded=1, expired=1), "ended")
    store.update(kept.id, ended.state, ended.record(), ended=True)

    [found] = JobBatches(database).of_job(job.id)
    assert BatchHandle.from_record(found.handle) == handle
    assert BatchStatus.from_record(found.counts) == ended
    assert (found.provider, found.batch_id, found.state) == ("anthropic", "msgbatch_01", "ended")
    assert found.ended_at is not None
