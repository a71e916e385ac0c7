"""A front end of its own, with no CLI code: what the web app and the assistant build on.

Import a file, change a setting, start a job and follow its events, stop it, resume it, read
its log: all through the application services and the job's event stream.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from honyaku.books import import_book
from honyaku.domain import JobKind
from honyaku.jobs import (
    ChunkEvent,
    JobFinished,
    JobRequest,
    JobService,
    JobStarted,
    ParagraphsDone,
    change_settings,
)
from honyaku.llm.events import Response
from honyaku.llm.models import ModelChoice, ToolProtocol, open_model
from honyaku.store import ActionKind, JobStatus, LearnedProtocols
from honyaku.testing import FakeLLMServer, pseudo_translation

KOJIKI = Path(__file__).parents[1] / "fixtures/books/kojiki/03gendaigoyaku_kojiki.utf8.txt"


def test_a_whole_job_runs_through_the_services_and_its_event_stream(library):
    book = import_book(library, KOJIKI)
    change_settings(library, book.id, chunk_chars=3000)
    service = JobService(library)
    choice = ModelChoice("demo")

    async def follow() -> list:
        async with open_model(
            choice, LearnedProtocols(library.database), language="zh-CN"
        ) as model:
            request = JobRequest(book.id, JobKind.TRANSLATION, chapters=[1, 2])
            return [event async for event in service.run(request, model)]

    events = asyncio.run(follow())

    started, finished = events[0], events[-1]
    assert isinstance(started, JobStarted)
    assert isinstance(finished, JobFinished)
    done = sum(e.count for e in events if isinstance(e, ParagraphsDone))
    assert done == started.paragraphs_total == finished.outcome.paragraphs_done
    requests = sum(1 for e in events if isinstance(e, ChunkEvent) and isinstance(e.event, Response))
    assert requests == finished.outcome.job.cost.requests
    for chapter in library.get_book(book.id, chapter_numbers=[1, 2]).chapters:
        assert all(p.translation == pseudo_translation(p.text) for p in chapter.work_paragraphs)
    assert service.actions(book.id, [ActionKind.TOOL_CALL])


def test_a_job_stopped_by_a_front_end_is_interrupted_and_resumes_where_it_stopped(library):
    book = import_book(library, KOJIKI)
    change_settings(library, book.id, chunk_chars=1500)
    service = JobService(library)
    request = JobRequest(book.id, JobKind.TRANSLATION, chapters=[1, 2, 3], concurrency=1)
    choice = ModelChoice("fake-translator", protocol=ToolProtocol.NATIVE)

    async def run_until_stopped(base_url: str) -> int:
        done = 0
        opened = open_model(
            ModelChoice("fake-translator", base_url, protocol=ToolProtocol.NATIVE),
            LearnedProtocols(library.database),
            language="zh-CN",
        )
        async with opened as model:
            try:
                async for event in service.run(request, model):
                    if isinstance(event, ParagraphsDone):
                        done += event.count
                        service.stop(service.jobs(book.id)[-1].id)
            except asyncio.CancelledError:
                return done
        raise AssertionError("the job was not stopped")

    async def run_to_the_end(base_url: str) -> list:
        opened = open_model(
            ModelChoice(choice.model, base_url, protocol=ToolProtocol.NATIVE),
            LearnedProtocols(library.database),
            language="zh-CN",
        )
        async with opened as model:
            return [event async for event in service.run(request, model)]

    with FakeLLMServer(latency_s=0.05) as server:
        stopped_after = asyncio.run(run_until_stopped(server.url))
        [job] = service.jobs(book.id)
        assert job.status is JobStatus.INTERRUPTED
        sent_before = len(server.requests)
        resumed = asyncio.run(run_to_the_end(server.url))

    started = resumed[0]
    assert started.resumed
    assert started.paragraphs_done == stopped_after > 0
    assert resumed[-1].outcome.job.status is JobStatus.FINISHED
    assert len(server.requests) > sent_before
    for chapter in library.get_book(book.id, chapter_numbers=[1, 2, 3]).chapters:
        for paragraph in chapter.work_paragraphs:
            assert len(library.versions(book.id, paragraph.id)) == 1
