"""Batch mode over real HTTP: every step of every part's conversation goes out in the fake
provider's batch (OpenAI's, Anthropic's and Gemini's shapes), comes back through the same
tools and checks, and what needs another step goes out in the next batch."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.agent.broker import Broker
from honyaku.application.models import model_opener
from honyaku.domain import JobKind
from honyaku.jobs import JobEvent, JobFinished, JobRequest, JobService, RunDeps
from honyaku.jobs.events import BatchSent
from honyaku.llm.models import ModelChoice
from honyaku.store import Library, Stores
from honyaku.testing import BatchScript, FakeLLMServer, Mistake, ScriptedTranslator

from ..conftest import novel

pytestmark = pytest.mark.backends("sqlite")


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HONYAKU_BATCH_POLL_S", "0.01")


async def run_batched(stores: Stores, request: JobRequest, choice: ModelChoice) -> list[JobEvent]:
    service = JobService(RunDeps(stores, Broker(), model_opener(stores)))
    return [event async for event in service.run(request, choice)]


def test_a_book_is_translated_in_batches_by_a_careful_model(library: Library, stores: Stores):
    book = library.add_book(novel(3, 12), source_lang="ja", target_lang="zh-CN")
    with FakeLLMServer(
        translator=ScriptedTranslator.careful(mistakes={Mistake.DUPLICATE_ID}),
        batch_script=BatchScript(polls=1),
    ) as server:
        choice = ModelChoice("fake-model", server.url)
        request = JobRequest(book_id=book, kind=JobKind.TRANSLATION, batch=True, chunk_chars=200)
        events = asyncio.run(run_batched(stores, request, choice))
    finished = events[-1]
    assert isinstance(finished, JobFinished)
    print(finished.outcome.job.status, [e for e in events if isinstance(e, BatchSent)])
    print(server.batches.answered)
    assert finished.outcome.job.status == "finished"
