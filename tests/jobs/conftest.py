from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable

import pytest

from honyaku.agent.broker import Broker
from honyaku.domain import JobKind
from honyaku.jobs.events import JobEvent
from honyaku.jobs.runner import JobOutcome, JobRequest, JobRunner
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.llm.xml import XmlToolProtocol
from honyaku.store import JobStore, Library
from honyaku.testing import FakeLLMServer, pseudo_translation

RunJob = Callable[..., tuple[JobOutcome, list[JobEvent]]]


@pytest.fixture(params=["native", "xml"])
def protocol(request: pytest.FixtureRequest) -> str:
    """Every job scenario runs with native tool calls and with the XML protocol."""
    return request.param


def job_runner(
    library: Library,
    jobs: JobStore,
    server: FakeLLMServer,
    protocol: str,
    *,
    broker: Broker | None = None,
    read_timeout_s: float = 30,
    report: Callable[[JobEvent], None] = lambda event: None,
) -> JobRunner:
    """A runner talking to ``server`` over HTTP in ``protocol``, as the CLI would build it."""
    server_api = OpenAICompatibleProvider(
        model="fake", base_url=server.url, read_timeout_s=read_timeout_s
    )
    speaking = XmlToolProtocol(server_api, language="zh-CN") if protocol == "xml" else server_api
    provider = RetryingProvider(speaking, RetryPolicy(base_s=0.01))
    return JobRunner(library, jobs, provider, protocol=protocol, broker=broker, report=report)


async def run_to_end(runner: JobRunner, request: JobRequest) -> JobOutcome:
    try:
        return await runner.run(request)
    finally:
        await runner.provider.aclose()


@pytest.fixture
def run_job(library: Library, jobs: JobStore, protocol: str) -> RunJob:
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
        events: list[JobEvent] = []
        runner = job_runner(
            library,
            jobs,
            server,
            protocol,
            broker=broker,
            read_timeout_s=read_timeout_s,
            report=events.append,
        )
        return asyncio.run(run_to_end(runner, JobRequest(book_id, kind, **request))), events

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
        for a in jobs.actions(book_id, kinds=["tool_result"])
        if a.action.name == name
    ]
