"""A job learns its model's pace, keeps it for the next job, and says while a request waits
that the model is working and how long it should take."""

from __future__ import annotations

import pytest

from honyaku.application import Honyaku
from honyaku.domain import JobKind
from honyaku.jobs import ChunkEvent, JobEvent, JobProgress, JobRequest, JobStarted, Response
from honyaku.llm.events import Waiting
from honyaku.llm.models import ModelChoice, ToolProtocol
from honyaku.store import Stores
from honyaku.testing import FakeLLMServer

pytestmark = pytest.mark.anyio


async def translate(
    honyaku: Honyaku, server: FakeLLMServer, book_id: str, chapter: int = 1
) -> list[JobEvent]:
    choice = ModelChoice("fake-translator", server.url, protocol=ToolProtocol.NATIVE)
    request = JobRequest(
        book_id=book_id, kind=JobKind.TRANSLATION, chapters=[chapter], concurrency=1
    )
    return [event async for event in honyaku.jobs.run(request, choice)]


def replies(events: list[JobEvent]) -> list[Response]:
    return [e.event for e in events if isinstance(e, ChunkEvent) and isinstance(e.event, Response)]


async def test_the_pace_learned_in_one_job_is_where_the_next_one_starts(
    honyaku: Honyaku, stores: Stores, fake_model: FakeLLMServer, book_id: str
):
    fake_model.latency_s = 0.05

    first = await translate(honyaku, fake_model, book_id)
    learned = stores.learned.pace(fake_model.url, "fake-translator")
    second = await translate(honyaku, fake_model, book_id, chapter=2)

    assert learned is not None
    assert learned.replies == len(replies(first))
    waits = [e.event for e in second if isinstance(e, ChunkEvent) and isinstance(e.event, Waiting)]
    assert waits
    assert all(wait.expected_s for wait in waits)
    timings = [r.timing for r in replies(first)]
    assert all(t is not None and t.first_content_s >= 0.05 for t in timings)


async def test_progress_shows_the_model_working_from_each_request_to_its_reply(
    honyaku: Honyaku, fake_model: FakeLLMServer, book_id: str
):
    events = await translate(honyaku, fake_model, book_id)
    started = events[0]
    assert isinstance(started, JobStarted)
    progress = JobProgress.starting(started)

    seen_waiting = []
    for event in events[1:-1]:
        progress.follow(event)
        if isinstance(event, ChunkEvent) and isinstance(event.event, Waiting | Response):
            seen_waiting.append(progress.figures()["waiting_s"] is not None)

    assert seen_waiting == [True, False] * len(replies(events))
    assert progress.waiting is None
