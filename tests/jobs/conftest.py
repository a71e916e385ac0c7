from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import pytest

from honyaku.agent.broker import Broker
from honyaku.domain import JobKind
from honyaku.domain.pricing import Prices
from honyaku.jobs import (
    ChunkEvent,
    ChunkFinished,
    JobEvent,
    JobFinished,
    JobOutcome,
    JobRequest,
    JobService,
)
from honyaku.llm.degeneration import DegenerationGuard
from honyaku.llm.events import ChatProvider, Retry
from honyaku.llm.models import ConnectedModel, ToolProtocol
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.llm.xml import XmlToolProtocol
from honyaku.store import ActionKind, JobStore, Library, Stores
from honyaku.testing import FakeLLMServer, pseudo_translation

RunJob = Callable[..., tuple[JobOutcome, list[JobEvent]]]


def connected(
    server: FakeLLMServer,
    protocol: str,
    *,
    read_timeout_s: float = 30,
    prices: Prices | None = None,
) -> ConnectedModel:
    """The fake model over HTTP in ``protocol``, with retries, as ``open_model`` would give it."""
    server_api = DegenerationGuard(
        OpenAICompatibleProvider(model="fake", base_url=server.url, read_timeout_s=read_timeout_s)
    )
    speaking = XmlToolProtocol(server_api, language="zh-CN") if protocol == "xml" else server_api
    return replace(with_retries(speaking, protocol), prices=prices)


def with_retries(provider: ChatProvider, protocol: str = "native") -> ConnectedModel:
    return ConnectedModel(
        RetryingProvider(provider, RetryPolicy(base_s=0.01)), ToolProtocol(protocol)
    )


async def run_to_end(
    service: JobService, request: JobRequest, model: ConnectedModel
) -> tuple[JobOutcome, list[JobEvent]]:
    """Every event of the job, and its outcome; the model's connections closed after."""
    events: list[JobEvent] = []
    try:
        async for event in service.run(request, model):
            events.append(event)
    finally:
        await model.provider.aclose()
    finished = events[-1]
    assert isinstance(finished, JobFinished)
    return finished.outcome, events


async def stop_after_first_chunk(
    service: JobService, request: JobRequest, model: ConnectedModel
) -> None:
    """Run the job until its first chunk ends, then stop, as a process stopped there would."""
    try:
        async for event in service.run(request, model):
            if isinstance(event, ChunkFinished):
                break
    finally:
        await model.provider.aclose()


@pytest.fixture
def run_job(library: Library, protocol: str) -> RunJob:
    """Run one job to its end against a fake model server; returns the outcome and events."""

    def run(
        server: FakeLLMServer,
        book_id: str,
        kind: JobKind = JobKind.TRANSLATION,
        *,
        broker: Broker | None = None,
        read_timeout_s: float = 30,
        **request: object,
    ) -> tuple[JobOutcome, list[JobEvent]]:
        model = connected(server, protocol, read_timeout_s=read_timeout_s)
        service = JobService(Stores.over(library.database), broker)
        return asyncio.run(run_to_end(service, JobRequest(book_id, kind, **request), model))

    return run


def assert_translated_in_place(library: Library, book_id: str) -> None:
    book = library.get_book(book_id)
    for chapter in book.chapters:
        assert chapter.translated_title == pseudo_translation(chapter.title)
        for paragraph in chapter.paragraphs:
            expected = pseudo_translation(paragraph.text) if paragraph.text else None
            assert paragraph.translation == expected, paragraph


def assert_one_version_each(library: Library, book_id: str) -> None:
    versions = Counter(
        len(library.versions(book_id, p.id))
        for c in library.get_book(book_id).chapters
        for p in c.work_paragraphs
    )
    assert versions == {1: 30}


def tool_results(jobs: JobStore, book_id: str, name: str) -> list[dict]:
    return [
        a.action.payload
        for a in jobs.actions(book_id, kinds=[ActionKind.TOOL_RESULT])
        if a.action.name == name
    ]


def retries(events: list[JobEvent]) -> list[Retry]:
    return [e.event for e in events if isinstance(e, ChunkEvent) and isinstance(e.event, Retry)]
