"""Limits that hold for every worker together, kept in the database: a profile's requests
per minute, and a run's spending cap."""

from __future__ import annotations

import time

from honyaku.domain.pricing import Prices
from honyaku.store import ChunkStatus, JobStatus, Library, Stores
from honyaku.testing import FakeLLMServer

from ..conftest import novel
from .conftest import Workers, honyaku, queue, wait_for_end, wait_until

RPM = 60
PRICES = Prices(2.0, 8.0)


def test_a_60_rpm_profile_sends_at_most_60_requests_a_minute_across_two_workers(
    stores: Stores, library: Library, workers: Workers
):
    # Given a model saved with 60 requests a minute, a book that needs more than that, and
    # two workers of four chapters at once each
    book_id = library.add_book(
        novel(chapters=30, paragraphs=24), source_lang="ja", target_lang="zh-CN"
    )
    library.update_settings(book_id, chunk_chars=200)
    with FakeLLMServer() as model:
        profile = ["--model", "fake-translator", "--base-url", model.url, "--rpm", str(RPM)]
        honyaku("models", "add", "limited", *profile)
        workers.start("--concurrency", "4")
        workers.start("--concurrency", "4")

        # When the book is queued, and the workers have sent as much as the minute allows
        job_id = queue(book_id, "limited")
        wait_until(lambda: len(model.requests) >= RPM, 60, f"{RPM} requests")
        time.sleep(3)

        # Then no more went out within the minute: the rest of the job waits for it
        sent = list(model.arrivals)
        assert sent[-1] - sent[0] < 60
        assert len(sent) == RPM
        assert stores.jobs.get(job_id).status is JobStatus.RUNNING
        honyaku("jobs", "stop", job_id)


def test_a_spending_cap_holds_for_the_run_across_two_workers(
    stores: Stores, library: Library, queued_book: str, workers: Workers
):
    # Given a model with prices, a book whose cap pays for some of its chapters, and two
    # workers of one chapter at once each
    cap = 0.02
    library.update_settings(queued_book, max_cost=cap)
    with FakeLLMServer(latency_s=0.3) as model:
        prices = ["--input-price", str(PRICES.input), "--output-price", str(PRICES.output)]
        honyaku(
            "models",
            "add",
            "priced",
            "--model",
            "fake-translator",
            "--base-url",
            model.url,
            *prices,
        )
        first, second = workers.start("--concurrency", "1"), workers.start("--concurrency", "1")

        # When the book is queued
        job_id = queue(queued_book, "priced")
        status = wait_for_end(stores, job_id)

    # Then both workers spent from one purse: the job stopped with the cap kept, and what
    # the model billed, all requests together, stays within it
    billed = sum(
        PRICES.cost(
            b.prompt.tokens - b.prompt.cached_tokens, b.prompt.cached_tokens, b.output_tokens
        )
        for b in model.bills
    )
    job = stores.jobs.get(job_id)
    assert status is JobStatus.INTERRUPTED, job.error
    assert "of the cap of 0.02 spent" in (job.error or "")
    assert 0 < billed <= cap
    worked = [i for i in stores.chunks.items(job_id) if i.status is ChunkStatus.DONE]
    assert {i.lease.owner for i in worked} == {workers.name(first), workers.name(second)}
