"""Batch mode over real HTTP: every step of every part's conversation goes out in the fake
provider's batch (OpenAI's, Anthropic's and Gemini's shapes), comes back through the same
tools and checks, and what needs another step goes out in the next batch; lines the batch
did not answer go out again, alone; the cap holds before a batch is sent."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from honyaku.agent.broker import Broker
from honyaku.application.models import model_opener
from honyaku.domain import JobKind
from honyaku.domain.pricing import Prices, batch_prices
from honyaku.errors import SpendingCapReached
from honyaku.jobs import JobEvent, JobFinished, JobRequest, JobService, RunDeps
from honyaku.jobs.events import BatchAnswered, BatchSent
from honyaku.llm.models import ModelChoice, ToolProtocol
from honyaku.store import JobStore, Library, Stores
from honyaku.testing import (
    BatchScript,
    FakeAnthropicServer,
    FakeGeminiServer,
    FakeLLMServer,
    Mistake,
    ScriptedTranslator,
)
from honyaku.testing.fake_anthropic import MODEL_NAME as CLAUDE

from ..conftest import novel
from .conftest import assert_translated_in_place, tool_results

pytestmark = pytest.mark.backends("sqlite")

PRICES = Prices(input=2.0, output=8.0, cached_input=0.5)
SHAPES = {
    # The provider, its fake, its model, and the lines of its first batch it does not answer.
    "openai": (FakeLLMServer, "fake-model", BatchScript(expired_lines=1, errored_lines=1)),
    "anthropic": (FakeAnthropicServer, CLAUDE, BatchScript(expired_lines=2)),
    "gemini": (FakeGeminiServer, "gemini-fake", BatchScript(errored_lines=2)),
}


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HONYAKU_BATCH_POLL_S", "0.01")


@pytest.fixture(params=list(SHAPES))
def shape(request: pytest.FixtureRequest) -> Iterator[tuple[str, Any]]:
    server_type, _, script = SHAPES[request.param]
    careful = ScriptedTranslator.careful(mistakes={Mistake.DUPLICATE_ID, Mistake.WRONG_STATUS_MOVE})
    with server_type(translator=careful, batch_script=script) as server:
        yield request.param, server


def choice_of(provider: str, server: Any, prices: Prices | None = PRICES) -> ModelChoice:
    return ModelChoice(
        SHAPES[provider][1],
        server.url,
        provider=provider,
        prices=prices,
        protocol=ToolProtocol.NATIVE,
    )


async def run_batched(stores: Stores, request: JobRequest, choice: ModelChoice) -> list[JobEvent]:
    service = JobService(RunDeps(stores, Broker(), model_opener(stores)))
    return [event async for event in service.run(request, choice)]


def batched(book: str, **more: Any) -> JobRequest:
    return JobRequest(book_id=book, kind=JobKind.TRANSLATION, batch=True, chunk_chars=300, **more)


def test_a_careful_model_translates_a_book_in_batch_rounds_every_mistake_corrected_in_a_later_batch(
    library: Library, stores: Stores, jobs: JobStore, shape: tuple[str, Any]
):
    provider, server = shape
    book = library.add_book(novel(3, 30), source_lang="ja", target_lang="zh-CN")

    events = asyncio.run(run_batched(stores, batched(book), choice_of(provider, server)))

    finished = events[-1]
    assert isinstance(finished, JobFinished)
    outcome = finished.outcome
    assert outcome.job.status == "finished"
    assert_translated_in_place(library, book)
    # Every part went out in the first batch; a careful model takes several steps a part.
    sent = [e for e in events if isinstance(e, BatchSent)]
    parts = len(stores.chunks.items(outcome.job.id))
    assert parts >= 6
    assert sent[0].requests == parts
    assert len(sent) >= 3
    # Each mistake was refused by the same checks, and put right in a later step's batch.
    batches = tool_results(jobs, book, "add_translation_batch")
    assert any(not r["success"] and "DUPLICATE_PARAGRAPH_ID" in json.dumps(r) for r in batches)
    moves = tool_results(jobs, book, "update_task_status")
    assert any(not r["success"] for r in moves)
    # The lines the first batch did not answer went out again in the next one, alone; no
    # request was answered twice.
    answered = server.batches.answered
    assert len(answered) == len(set(answered))
    first, second = list(server.batches.batches.values())[:2]
    unanswered = [
        custom_id for custom_id, outcome, _ in first.results or () if outcome != "succeeded"
    ]
    assert len(unanswered) == 2
    assert set(unanswered) <= {custom_id for custom_id, _ in second.lines}
    again = next(e for e in events if isinstance(e, BatchAnswered))
    assert again.again == 2
    # Billed at the Batch API's prices, under the model that spent it.
    model = SHAPES[provider][1]
    assert outcome.prices == {model: batch_prices(PRICES)}
    # Each answer billed once: what the provider answered is what the job counts.
    assert stores.jobs.get(outcome.job.id).costs[model].requests == len(answered)


def test_the_bill_of_a_batch_job_is_half_the_streamed_bill_of_the_same_tokens(
    library: Library, stores: Stores
):
    book = library.add_book(novel(2, 12), source_lang="ja", target_lang="zh-CN")
    with FakeLLMServer(translator=ScriptedTranslator()) as server:
        service = JobService(RunDeps(stores, Broker(), model_opener(stores)))

        async def run() -> Any:
            async for event in service.run(batched(book), choice_of("openai", server)):
                if isinstance(event, JobFinished):
                    return service.progress(event.outcome.job.id, event.outcome.prices)
            return None

        progress = asyncio.run(run())

    spent = progress.costs["fake-model"]
    assert progress.spent == pytest.approx(spent.price(PRICES) / 2)
    assert progress.spent > 0
    # A model that does a part in one reply costs one batch round.
    assert progress.batches.sent == 1
    assert progress.batches.waiting == 0


def test_the_cap_holds_before_a_batch_is_sent(library: Library, stores: Stores):
    book = library.add_book(novel(2, 12), source_lang="ja", target_lang="zh-CN")
    with FakeLLMServer() as server:
        choice = choice_of("openai", server)
        with pytest.raises(SpendingCapReached):
            asyncio.run(run_batched(stores, batched(book, max_cost=0.000_001), choice))

    assert server.batches.batches == {}
    assert Counter(job.status for job in stores.jobs.for_book(book)) == {"interrupted": 1}
