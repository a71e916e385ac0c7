"""A job whose chunk another process takes over mid-conversation (this one's heartbeat had
stalled): it writes nothing more of the chunk and leaves its chapter to the new holder, caught
by the claim's token at its next write or by its heartbeat, whichever comes first."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import update

from honyaku.domain import JobKind
from honyaku.jobs import ChunkStarted, ChunkTakenOver, JobEvent, JobRequest
from honyaku.store import ChunkStatus, ChunkStore, JobStatus
from honyaku.store.schema import ChunkRow, utc_now
from honyaku.testing import FakeLLMServer

from .conftest import connected, engine, handed

# What a job writes, claims and resumes, on both databases.
pytestmark = pytest.mark.backends("sqlite", "postgresql")


def run_taking_over_chapter_one(
    stores, server: FakeLLMServer, book_id: str, chapters: list[int] | None = None
) -> list[JobEvent]:
    """Run a translation of the book; as chapter 1's chunk starts, another process claims it."""

    async def run() -> list[JobEvent]:
        model = connected(server, "native")
        events: list[JobEvent] = []
        request = JobRequest(
            book_id=book_id, kind=JobKind.TRANSLATION, chapters=chapters, concurrency=1
        )
        service = engine(stores)
        try:
            async for event in service.run(request, handed(service, model)):
                events.append(event)
                if isinstance(event, ChunkStarted) and event.where.chapter == 1:
                    await asyncio.to_thread(take_over, stores.library, event.where.chapter_id)
        finally:
            await model.provider.aclose()
        return events

    return asyncio.run(run())


def take_over(library, chapter_id: str) -> None:
    with library.database.transaction() as session:
        session.execute(
            update(ChunkRow)
            .where(ChunkRow.chapter_id == chapter_id)
            .values(
                owner="elsewhere:1:abcdef", attempts=ChunkRow.attempts + 1, heartbeat_at=utc_now()
            )
        )


def test_a_chunk_taken_over_is_refused_its_next_write_and_its_chapter_is_left(
    stores, library, jobs, book_id
):
    with FakeLLMServer(latency_s=0.05) as server:
        events = run_taking_over_chapter_one(stores, server, book_id)

    [taken] = [e for e in events if isinstance(e, ChunkTakenOver)]
    outcome = events[-1].outcome
    chapters = library.whole_book(book_id).chapters
    assert taken.where.chapter == 1
    assert "took it over (attempt 2)" in taken.reason
    assert "nothing of it was saved" in taken.reason
    assert all(p.translation is None for p in chapters[0].paragraphs)
    assert chapters[0].translated_title is None
    assert all(p.translation for c in chapters[1:] for p in c.work_paragraphs)
    assert outcome.ok
    assert outcome.running_elsewhere == 1
    assert jobs.get(outcome.job.id).status is JobStatus.RUNNING
    first = ChunkStore(library.database).items(outcome.job.id)[0]
    assert (first.status, first.attempts) == (ChunkStatus.RUNNING, 2)


def test_the_heartbeat_ends_the_conversation_of_a_chunk_taken_over(
    stores, library, book_id, monkeypatch
):
    monkeypatch.setenv("HONYAKU_HEARTBEAT_S", "0.1")
    with FakeLLMServer(latency_s=1.0) as server:
        events = run_taking_over_chapter_one(stores, server, book_id, chapters=[1])
        first_chapter = [r for r in server.requests if "第1章" in r["messages"][1]["content"]]

    [taken] = [e for e in events if isinstance(e, ChunkTakenOver)]
    assert taken.where.chapter == 1
    assert "heartbeat" in taken.reason
    # Its one request may not even have reached the server when the heartbeat ended it, on a
    # loaded machine: what matters is that none followed.
    assert len(first_chapter) <= 1
    assert all(p.translation is None for p in library.whole_book(book_id).chapters[0].paragraphs)
