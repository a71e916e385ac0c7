"""Following a job started in the background: coalesced updates, and always its end."""

from __future__ import annotations

import asyncio

from honyaku.application import DEMO, Honyaku, JobStatus, ModelChoice, ToolProtocol
from honyaku.domain import JobKind
from honyaku.jobs import JobRequest
from honyaku.store import Library
from honyaku.testing import FakeLLMServer, ScriptedTranslator

from ..conftest import novel


def test_a_watcher_gets_the_end_of_a_job_that_ends_between_two_updates(
    honyaku: Honyaku, library: Library
):
    # Given a job that runs faster than the watch interval (the demo model)
    book_id = library.add_book(novel(chapters=4), source_lang="ja", target_lang="zh-CN")

    async def watch() -> list:
        job_id = await honyaku.jobs.start(
            JobRequest(book_id=book_id, kind=JobKind.TRANSLATION), DEMO
        )
        return [update.progress.figures() async for update in honyaku.jobs.watch(job_id)]

    # When a front end follows it to the end
    figures = asyncio.run(watch())

    # Then the last update it gets says the job finished, with every paragraph done
    last = figures[-1]
    assert (last["status"], last["running_here"]) == (JobStatus.FINISHED.value, False)
    assert last["paragraphs_done"] == last["paragraphs_total"] > 0
    assert all(f["running_here"] for f in figures[:-1])


def test_a_chunk_submitted_in_batches_is_followed_batch_by_batch(
    honyaku: Honyaku, library: Library
):
    # Given one chunk of six paragraphs, which the model submits two at a time
    draft = novel(chapters=1, paragraphs=7)
    book_id = library.add_book(draft, source_lang="ja", target_lang="zh-CN")
    translator = ScriptedTranslator(batch_size=2, calls_per_reply=1)

    async def watch(model: ModelChoice) -> list[int]:
        job_id = await honyaku.jobs.start(
            JobRequest(book_id=book_id, kind=JobKind.TRANSLATION), model
        )
        return [update.progress.paragraphs_done async for update in honyaku.jobs.watch(job_id)]

    # When a front end follows the job
    with FakeLLMServer(translator, latency_s=0.3) as server:
        done = asyncio.run(watch(ModelChoice("fake", server.url, protocol=ToolProtocol.NATIVE)))

    # Then it sees each batch land, not the whole chunk at once
    assert done[-1] == 6
    assert {2, 4} <= set(done)
