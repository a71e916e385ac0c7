from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

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
    RunDeps,
)
from honyaku.llm.degeneration import DegenerationGuard
from honyaku.llm.events import ChatProvider, Retry
from honyaku.llm.models import ConnectedModel, ModelChoice, ToolProtocol
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.llm.xml import XmlToolProtocol
from honyaku.store import ActionKind, JobStore, Library, Stores
from honyaku.testing import FakeLLMServer, pseudo_translation

RunJob = Callable[..., tuple[JobOutcome, list[JobEvent]]]


def connected(
    server: FakeLLMServer, protocol: str, *, read_timeout_s: float = 30
) -> ConnectedModel:
    """The fake model over HTTP in ``protocol``, with retries, as ``open_model`` would give it."""
    server_api = DegenerationGuard(
        OpenAICompatibleProvider(model="fake", base_url=server.url, read_timeout_s=read_timeout_s)
    )
    speaking = XmlToolProtocol(server_api, language="zh-CN") if protocol == "xml" else server_api
    return with_retries(speaking, protocol)


def with_retries(provider: ChatProvider, protocol: str = "native") -> ConnectedModel:
    return ConnectedModel(
        RetryingProvider(provider, RetryPolicy(base_s=0.01)), ToolProtocol(protocol)
    )


class HandedModels:
    """A model opener for tests: whatever the choice, it opens the model the test handed
    over with it (``hand``)."""

    def __init__(self) -> None:
        self._models: dict[str, ConnectedModel] = {}

    def hand(self, model: ConnectedModel, prices: Prices | None = None) -> ModelChoice:
        name = f"handed-{len(self._models) + 1}"
        self._models[name] = model
        return ModelChoice(name, prices=prices)

    @asynccontextmanager
    async def __call__(
        self, choice: ModelChoice, *, language: str
    ) -> AsyncIterator[ConnectedModel]:
        yield self._models[str(choice.model)]


def engine(stores: Stores, broker: Broker | None = None) -> JobService:
    """The job engine over the test's library, opening the models tests hand it."""
    return JobService(RunDeps(stores, broker or Broker(), HandedModels()))


def handed(service: JobService, model: ConnectedModel, prices: Prices | None = None) -> ModelChoice:
    """A choice of ``model``, which ``service`` opens as it is (``engine``)."""
    return service.deps.open_model.hand(model, prices)  # type: ignore[attr-defined]


async def run_to_end(
    service: JobService,
    request: JobRequest,
    model: ConnectedModel,
    *,
    prices: Prices | None = None,
) -> tuple[JobOutcome, list[JobEvent]]:
    """Every event of the job, and its outcome; the model's connections closed after."""
    events: list[JobEvent] = []
    try:
        async for event in service.run(request, handed(service, model, prices)):
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
        async for event in service.run(request, handed(service, model)):
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
        service = engine(Stores.over(library.database), broker)
        return asyncio.run(
            run_to_end(service, JobRequest(book_id=book_id, kind=kind, **request), model)
        )

    return run


def assert_translated_in_place(library: Library, book_id: str) -> None:
    book = library.whole_book(book_id)
    for chapter in book.chapters:
        assert chapter.translated_title == pseudo_translation(chapter.title)
        for paragraph in chapter.paragraphs:
            expected = pseudo_translation(paragraph.text) if paragraph.text else None
            assert paragraph.translation == expected, paragraph


def assert_one_version_each(library: Library, book_id: str) -> None:
    versions = Counter(
        len(library.versions(book_id, p.id))
        for c in library.whole_book(book_id).chapters
        for p in c.work_paragraphs
    )
    assert versions == {1: 30}


def tool_results(jobs: JobStore, book_id: str, name: str) -> list[dict]:
    return [
        a.action.payload
        for a in jobs.actions(book_id, kinds=[ActionKind.TOOL_RESULT])
        if a.action.name == name
    ]


def first_messages(server: FakeLLMServer) -> list[str]:
    """Each conversation's first user message, in the order the conversations began."""
    return [
        body["messages"][1]["content"]
        for body in server.requests
        if [m["role"] for m in body["messages"]] == ["system", "user"]
    ]


def retries(events: list[JobEvent]) -> list[Retry]:
    return [e.event for e in events if isinstance(e, ChunkEvent) and isinstance(e.event, Retry)]
