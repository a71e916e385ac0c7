"""A front end of its own, with no CLI or web code: what every front end builds on.

Import a file, change a setting, run a job and follow its events, stop it, resume it, read
its log: all through the application object.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from honyaku.application import ActionKind, Honyaku, JobStatus, ModelChoice, ToolProtocol
from honyaku.domain import JobKind
from honyaku.jobs import ChunkEvent, JobFinished, JobRequest, JobStarted, ParagraphsDone, Response
from honyaku.testing import FakeLLMServer, pseudo_translation

KOJIKI = Path(__file__).parents[1] / "fixtures/books/kojiki/03gendaigoyaku_kojiki.utf8.txt"


def test_a_whole_job_runs_through_the_application_and_its_event_stream(honyaku: Honyaku):
    async def translate() -> tuple[str, list]:
        book = await honyaku.books.import_file(KOJIKI)
        await honyaku.settings.change(book.id, chunk_chars=3000)
        request = JobRequest(book_id=book.id, kind=JobKind.TRANSLATION, chapters=[1, 2])
        events = [event async for event in honyaku.jobs.run(request, ModelChoice("demo"))]
        return book.id, events

    book_id, events = asyncio.run(translate())

    started, finished = events[0], events[-1]
    assert isinstance(started, JobStarted)
    assert isinstance(finished, JobFinished)
    done = sum(e.count for e in events if isinstance(e, ParagraphsDone))
    assert done == started.paragraphs_total == finished.outcome.paragraphs_done
    requests = sum(1 for e in events if isinstance(e, ChunkEvent) and isinstance(e.event, Response))
    assert requests == finished.outcome.job.cost.requests
    book = asyncio.run(honyaku.books.whole(book_id, [1, 2]))
    for chapter in book.chapters:
        assert all(p.translation == pseudo_translation(p.text) for p in chapter.work_paragraphs)
    assert asyncio.run(honyaku.books.actions(book_id, [ActionKind.TOOL_CALL]))


def test_a_job_stopped_by_a_front_end_is_interrupted_and_resumes_where_it_stopped(
    honyaku: Honyaku,
):
    book = asyncio.run(honyaku.books.import_file(KOJIKI))
    asyncio.run(honyaku.settings.change(book.id, chunk_chars=1500))
    request = JobRequest(
        book_id=book.id, kind=JobKind.TRANSLATION, chapters=[1, 2, 3], concurrency=1
    )

    async def run_until_stopped(model: ModelChoice) -> int:
        done = 0
        try:
            async for event in honyaku.jobs.run(request, model):
                if isinstance(event, JobStarted):
                    job_id = event.job.id
                if isinstance(event, ParagraphsDone):
                    done += event.count
                    await honyaku.jobs.stop(job_id)
        except asyncio.CancelledError:
            return done
        raise AssertionError("the job was not stopped")

    async def run_to_the_end(model: ModelChoice) -> list:
        return [event async for event in honyaku.jobs.run(request, model)]

    with FakeLLMServer(latency_s=0.05) as server:
        model = ModelChoice("fake-translator", server.url, protocol=ToolProtocol.NATIVE)
        stopped_after = asyncio.run(run_until_stopped(model))
        [job] = asyncio.run(honyaku.jobs.all(book.id))
        assert job.status is JobStatus.INTERRUPTED
        sent_before = len(server.requests)
        resumed = asyncio.run(run_to_the_end(model))

    started = resumed[0]
    assert started.resumed
    assert started.paragraphs_done == stopped_after > 0
    assert resumed[-1].outcome.job.status is JobStatus.FINISHED
    assert len(server.requests) > sent_before
    whole = asyncio.run(honyaku.books.whole(book.id, [1, 2, 3]))
    for chapter in whole.chapters:
        for paragraph in chapter.work_paragraphs:
            assert len(asyncio.run(honyaku.versions.all(book.id, paragraph.id))) == 1
