"""Claims on chunks, in one process: tokens, fenced writes, heartbeats, releases and stops.
The same, with processes of their own, is in ``test_concurrent_writers.py``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from honyaku.domain import JobKind, TranslationKind
from honyaku.domain.glossary import EntryStatus, GlossaryEntry
from honyaku.errors import ClaimLost
from honyaku.store import (
    ChunkStatus,
    ChunkStore,
    Claim,
    GlossaryStore,
    JobScope,
    JobStatus,
    PlannedChunk,
)
from honyaku.store.leases import CLAIM_TIMEOUT_S
from honyaku.store.schema import ChunkRow, utc_now

STALLED = timedelta(seconds=CLAIM_TIMEOUT_S + 1)


@pytest.fixture
def chunks(database) -> ChunkStore:
    return ChunkStore(database)


@pytest.fixture
def job_id(library, jobs, book_id) -> str:
    """A translation job over the first chapter, as one chunk."""
    chapter = library.whole_book(book_id).chapters[0]
    ids = tuple(p.id for p in chapter.work_paragraphs)
    planned = [PlannedChunk(chapter.id, 1, 1, 1, ids, True)]
    scope = JobScope(book_id, JobKind.TRANSLATION, [1])
    job, _ = jobs.open(scope, model="m", protocol="native", planned=planned)
    return job.id


def claimed(chunks: ChunkStore, job_id: str) -> Claim:
    claim = chunks.claim(chunks.items(job_id)[0].pk)
    assert isinstance(claim, Claim)
    return claim


def taken_over(database, chunks: ChunkStore, job_id: str) -> Claim:
    """The job's chunk claimed again, as another process would once this one's heartbeat
    stalled past the claim timeout."""
    with database.transaction() as session:
        session.execute(
            update(ChunkRow)
            .where(ChunkRow.job_id == job_id)
            .values(owner="elsewhere:1:abcdef", heartbeat_at=utc_now() - STALLED)
        )
    return claimed(chunks, job_id)


def test_every_claim_of_a_chunk_carries_a_higher_attempt_as_its_token(chunks, job_id, database):
    first = claimed(chunks, job_id)
    second = taken_over(database, chunks, job_id)

    assert (first.token.attempt, second.token.attempt) == (1, 2)
    assert first.token.chunk == second.token.chunk


def test_a_chunk_whose_holder_beats_on_is_not_taken_over(chunks, job_id, database):
    claimed(chunks, job_id)
    with database.transaction() as session:
        session.execute(update(ChunkRow).values(owner="elsewhere:1:abcdef"))

    assert chunks.claim(chunks.items(job_id)[0].pk) is ChunkStatus.RUNNING


def test_every_write_under_a_claim_taken_over_is_refused_and_writes_nothing(
    library, chunks, job_id, database, book_id
):
    old = claimed(chunks, job_id)
    taken_over(database, chunks, job_id)
    chapter = library.whole_book(book_id).chapters[0]
    first = chapter.work_paragraphs[0]
    glossary = GlossaryStore(database)
    term = GlossaryEntry("下人", "仆人", status=EntryStatus.PROPOSED)
    writes = {
        "batch": lambda: library.add_translations(
            book_id, {first.id: "译文"}, kind=TranslationKind.TRANSLATION, claim=old.token
        ),
        "title": lambda: library.set_chapter_title(book_id, chapter.id, "第一章", claim=old.token),
        "glossary": lambda: glossary.add(
            glossary.book_glossary(book_id), [term], origin="job", claim=old.token
        ),
        "status": lambda: chunks.record_workflow(old.token, "working"),
        "finish": lambda: chunks.finish(old.token, ChunkStatus.DONE),
    }

    for name, write in writes.items():
        with pytest.raises(ClaimLost, match="took it over") as refused:
            write()
        assert "nothing of it was saved" in str(refused.value), name

    assert library.versions(book_id, first.id) == []
    assert library.chapter(book_id, chapter.id).translated_title is None
    assert glossary.current([glossary.book_glossary(book_id)]) == []
    [item] = chunks.items(job_id)
    assert (item.status, item.attempts) == (ChunkStatus.RUNNING, 2)


def test_writes_under_a_standing_claim_go_through_and_renew_it(
    library, chunks, job_id, database, book_id
):
    claim = claimed(chunks, job_id)
    first = library.whole_book(book_id).chapters[0].work_paragraphs[0]
    with database.transaction() as session:
        session.execute(update(ChunkRow).values(heartbeat_at=utc_now() - timedelta(seconds=5)))
    before = chunks.items(job_id)[0].lease.heartbeat_at

    library.add_translations(
        book_id, {first.id: "译文"}, kind=TranslationKind.TRANSLATION, claim=claim.token
    )
    chunks.finish(claim.token, ChunkStatus.DONE)

    [item] = chunks.items(job_id)
    assert [v.text for v in library.versions(book_id, first.id)] == ["译文"]
    assert item.status is ChunkStatus.DONE
    assert item.lease.heartbeat_at > before


def test_the_heartbeat_renews_standing_claims_and_reports_those_taken_over(
    library, jobs, chunks, job_id, database, book_id
):
    old = claimed(chunks, job_id)
    new = taken_over(database, chunks, job_id)
    chapter = library.whole_book(book_id).chapters[1]
    scope = JobScope(book_id, JobKind.TRANSLATION, [2])
    planned = [PlannedChunk(chapter.id, 2, 1, 1, (chapter.work_paragraphs[0].id,), True)]
    other, _ = jobs.open(scope, model="m", protocol="native", planned=planned)
    finished = claimed(chunks, other.id)
    chunks.finish(finished.token, ChunkStatus.DONE)

    beat = chunks.beat(job_id, [old.token], stops_seen=0)
    held = chunks.beat(job_id, [new.token], stops_seen=0)
    ended = chunks.beat(other.id, [finished.token], stops_seen=0)

    assert beat.lost == {old.token}
    assert held.lost == ended.lost == frozenset()
    assert not beat.stop


def test_a_stop_reaches_every_run_of_the_job_however_many_have_finished_since(jobs, chunks, job_id):
    seen = jobs.get(job_id).stop_requests

    jobs.request_stop(job_id)
    first = chunks.beat(job_id, [], stops_seen=seen)
    jobs.finish(job_id, JobStatus.INTERRUPTED, "stopped")
    second = chunks.beat(job_id, [], stops_seen=seen)
    resumed = jobs.get(job_id).stop_requests
    later = chunks.beat(job_id, [], stops_seen=resumed)

    assert first.stop
    assert second.stop
    assert not later.stop


def test_a_stop_a_heartbeat_missed_is_seen_when_the_chapter_settles(jobs, job_id):
    # Given a worker that joined the job, and a stop asked while its last chunk ran
    joined = jobs.join(job_id, jobs.get(job_id).stop_requests)
    assert joined is not None
    jobs.request_stop(job_id)

    # When its chapter ends before its next heartbeat
    status = jobs.settle(job_id, joined.stop_requests)

    # Then the job is stopped, not left running with its other orders withdrawn
    assert status is JobStatus.INTERRUPTED
    assert jobs.get(job_id).error == "stopped"


def test_a_stopped_run_gives_back_its_claims_but_not_those_taken_over(chunks, job_id, database):
    old = claimed(chunks, job_id)
    new = taken_over(database, chunks, job_id)

    chunks.release([old.token])
    kept = chunks.items(job_id)[0]
    chunks.release([new.token])
    given_back = chunks.items(job_id)[0]

    assert (kept.status, kept.attempts) == (ChunkStatus.RUNNING, 2)
    assert (given_back.status, given_back.lease.owner) == (ChunkStatus.PENDING, None)


def test_opening_a_job_reads_no_other_job_id(jobs, library, book_id, database):
    from sqlalchemy import event

    statements: list[str] = []
    event.listen(database.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))

    jobs.open(JobScope(book_id, JobKind.POLISH, None), model="m", protocol="p", planned=())

    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT") and "jobs" in s]
    assert reads
    assert all("WHERE" in s.upper() for s in reads)
