"""The Batch API clients against the fake servers' batch endpoints, over real HTTP: submitted,
polled until they end, their lines back as the replies a stream would give (a call, a text,
an errored, an expired and a cancelled line), the handle kept as JSON in between."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from honyaku.errors import ConfigError, ContentFilteredError, TransientProviderError
from honyaku.llm.batches import (
    BatchHandle,
    BatchRequest,
    BatchState,
    BatchStatus,
    LineState,
    batch_client,
)
from honyaku.llm.messages import ChatRequest, SystemMessage, UserMessage
from honyaku.llm.models import ModelChoice
from honyaku.llm.tool_support import PROBE_TOOL
from honyaku.testing import (
    BatchScript,
    ContentFilter,
    FakeAnthropicServer,
    FakeGeminiServer,
    FakeLLMServer,
    pseudo_translation,
)
from honyaku.testing.fake_anthropic import MODEL_NAME as CLAUDE

pytestmark = pytest.mark.backends("sqlite")

PROBE = ChatRequest(
    (
        SystemMessage("You answer by calling tools."),
        UserMessage(f"Call the {PROBE_TOOL.name} tool with ready set to true."),
    ),
    (PROBE_TOOL,),
)
PLAIN = ChatRequest((SystemMessage("You translate."), UserMessage("訳して: `雨が降る`")))
FAKES = {
    "openai": (FakeLLMServer, "fake-model"),
    "anthropic": (FakeAnthropicServer, CLAUDE),
    "gemini": (FakeGeminiServer, "gemini-fake"),
}


@pytest.fixture(params=list(FAKES), scope="module")
def fake(request: pytest.FixtureRequest) -> Iterator[Any]:
    server_type, _ = FAKES[request.param]
    script = BatchScript(polls=2, errored=frozenset({"boom"}), expired=frozenset({"late"}))
    with server_type(batch_script=script, filter=ContentFilter(words={"血"})) as server:
        server.provider = request.param
        yield server


def choice(fake: Any) -> ModelChoice:
    return ModelChoice(FAKES[fake.provider][1], fake.url, provider=fake.provider)


async def until_ended(fake: Any, handle: BatchHandle) -> list[BatchStatus]:
    client = batch_client(choice(fake))
    try:
        statuses = [await client.poll(handle)]
        while not statuses[-1].ended:
            statuses.append(await client.poll(handle))
        return statuses
    finally:
        await client.aclose()


def test_a_batch_is_answered_line_by_line_as_a_stream_would_be(fake):
    requests = [
        BatchRequest("probe", PROBE, conversation="part-1"),
        BatchRequest("plain", PLAIN, conversation="part-2"),
        BatchRequest("boom", PLAIN, conversation="part-3"),
        BatchRequest("late", PLAIN, conversation="part-4"),
        BatchRequest("refused", ChatRequest((UserMessage("血の話: `血`"),))),
    ]

    async def scenario() -> tuple[dict[str, Any], list[BatchStatus], list[Any]]:
        client = batch_client(choice(fake))
        try:
            handle = await client.submit(requests)
        finally:
            await client.aclose()
        # The handle goes to the database as JSON, and another process picks it up.
        kept = json.loads(json.dumps(handle.record()))
        again = BatchHandle.from_record(kept)
        statuses = await until_ended(fake, again)
        client = batch_client(choice(fake))
        try:
            return kept, statuses, await client.results(again)
        finally:
            await client.aclose()

    kept, statuses, results = asyncio.run(scenario())

    assert BatchHandle.from_record(kept).conversations["plain"] == "part-2"
    assert [s.state for s in statuses] == [BatchState.IN_PROGRESS] * 2 + [BatchState.ENDED]
    assert statuses[0].counts.total == 5
    assert statuses[-1].counts.succeeded + statuses[-1].counts.errored >= 3
    found = {result.custom_id: result for result in results}
    assert set(found) == {"probe", "plain", "boom", "late", "refused"}
    probe = found["probe"].response
    assert probe is not None
    assert [(c.name, dict(c.arguments)) for c in probe.message.tool_calls] == [
        (PROBE_TOOL.name, {"ready": True})
    ]
    plain = found["plain"].response
    assert plain is not None
    assert plain.message.text.strip().endswith(pseudo_translation("雨が降る"))
    assert plain.usage.input_tokens
    assert found["boom"].state is LineState.ERRORED
    assert isinstance(found["boom"].error, TransientProviderError)
    assert found["late"].state is LineState.EXPIRED
    assert isinstance(found["refused"].error, ContentFilteredError)
    assert [r.custom_id for r in results if r.resend] in (["boom", "late"], ["late", "boom"])
    # Every line was answered once, and only the lines that were answered.
    assert sorted(fake.batches.answered) == ["plain", "probe", "refused"]


def test_a_cancelled_batch_sends_every_line_back_to_be_sent_again(fake):
    async def scenario() -> tuple[BatchStatus, list[Any]]:
        client = batch_client(choice(fake))
        try:
            handle = await client.submit([BatchRequest("first", PLAIN)])
            cancelled = await client.cancel(handle)
            return cancelled, await client.results(handle)
        finally:
            await client.aclose()

    status, results = asyncio.run(scenario())

    assert status.ended
    [result] = results
    assert (result.custom_id, result.state, result.resend) == ("first", LineState.CANCELED, True)


def test_the_demo_model_has_no_batch_api_and_says_so_in_one_line():
    with pytest.raises(ConfigError, match="has no Batch API"):
        batch_client(ModelChoice("demo"))


def test_an_openai_compatible_server_that_answers_404_is_refused_in_one_line(fake_model):
    # A server that serves Chat Completions and no /files (as vLLM or Ollama).
    elsewhere = fake_model.url.removesuffix("/v1") + "/v2"

    async def scenario() -> None:
        client = batch_client(ModelChoice("fake", elsewhere))
        try:
            await client.submit([BatchRequest("one", PLAIN)])
        finally:
            await client.aclose()

    with pytest.raises(ConfigError, match=r"has no Batch API \(/files answered 404\)"):
        asyncio.run(scenario())
