"""Workers on several processes share a queued job: its chapters side by side, each chapter's
chunks in order; a worker killed outright loses nothing, a worker told to stop gives its
chunk back."""

from __future__ import annotations

import signal

from honyaku.store import ChunkStatus, JobStatus, Library, Stores
from honyaku.testing import FakeLLMServer

from .conftest import (
    CLAIM_TIMEOUT_S,
    Workers,
    assert_translated_once,
    queue,
    running_chunks,
    wait_for_end,
    wait_until,
)


def test_two_workers_translate_one_book_with_every_paragraph_in_its_place(
    stores: Stores, library: Library, queued_book: str, workers: Workers
):
    # Given two workers, and a model that takes a moment to answer
    with FakeLLMServer(latency_s=0.2) as model:
        first, second = workers.start("--concurrency", "2"), workers.start("--concurrency", "2")

        # When a book of four chapters is queued
        job_id = queue(queued_book, model)
        status = wait_for_end(stores, job_id)

    # Then both workers ran chapters, and every paragraph holds its own translation, once
    assert status is JobStatus.FINISHED
    items = stores.chunks.items(job_id)
    assert {item.status for item in items} == {ChunkStatus.DONE}
    assert {item.lease.owner for item in items} == {workers.name(first), workers.name(second)}
    assert_translated_once(library, queued_book)
    for chapter in {item.planned.chapter_number for item in items}:
        chunks = [i for i in items if i.planned.chapter_number == chapter]
        assert len({i.lease.owner for i in chunks}) == 1  # a chapter on one worker at a time


def test_a_worker_killed_mid_chunk_loses_nothing_its_chunk_goes_on_elsewhere(
    stores: Stores, library: Library, queued_book: str, workers: Workers
):
    # Given a worker on a queued book, in the middle of a chunk's reply
    with FakeLLMServer(latency_s=0.1, delta_delay_s=0.05) as model:
        doomed = workers.start("--concurrency", "1")
        job_id = queue(queued_book, model)
        wait_until(
            lambda: model.open_streams and running_chunks(stores, job_id), 30, "a chunk's reply"
        )

        # When it is killed outright, and another worker comes
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        [held] = running_chunks(stores, job_id)
        survivor = workers.start("--concurrency", "4")

        # Then once the killed worker is found stalled, the other takes its chunk over too,
        # and ends the job
        status = wait_for_end(stores, job_id)

    assert status is JobStatus.FINISHED
    assert model.abandoned == 1
    [taken_over] = [i for i in stores.chunks.items(job_id) if i.pk == held.pk]
    assert taken_over.status is ChunkStatus.DONE
    assert taken_over.lease.owner == workers.name(survivor)
    assert taken_over.attempts > held.attempts
    assert_translated_once(library, queued_book)


def test_sigterm_lets_the_reply_in_flight_finish_gives_the_chunk_back_and_exits(
    stores: Stores, library: Library, queued_book: str, workers: Workers
):
    # Given a worker in the middle of a slow reply
    with FakeLLMServer(latency_s=0.3, delta_delay_s=0.05) as model:
        stopping = workers.start("--concurrency", "1")
        job_id = queue(queued_book, model)
        wait_until(lambda: model.requests, 30, "a request")

        # When it is told to stop
        stopping.send_signal(signal.SIGTERM)
        sent = len(model.requests)
        code = stopping.wait(timeout=30)

        # Then the reply was read to its end, no chunk is left claimed, and once the worker's
        # share of the job is stale, the job shows it waits in the queue
        assert code == 0, workers.output(stopping)
        assert model.abandoned == 0
        assert len(model.requests) == sent
        assert running_chunks(stores, job_id) == []
        wait_until(
            lambda: stores.jobs.get(job_id).shown_status is JobStatus.QUEUED,
            CLAIM_TIMEOUT_S * 2,
            "the job to show queued",
        )

        # When another worker comes, it takes the work up where it stopped
        workers.start("--concurrency", "2")
        status = wait_for_end(stores, job_id)

    assert status is JobStatus.FINISHED
    assert_translated_once(library, queued_book)
