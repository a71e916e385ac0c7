"""GeminiProvider against the fake Gemini server and small local servers, over real HTTP.

The fake is as strict as Gemini 3: a model turn without its thought signature, results that
do not answer the calls one for one, or a schema outside Gemini's subset is refused with 400.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any, Literal

import httpx2
import pytest
from google import genai
from google.genai import types
from pydantic import BaseModel, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from honyaku.agent.registry import inline_schema
from honyaku.errors import (
    ConfigError,
    ContentFilteredError,
    CutStreamError,
    FatalProviderError,
    ProviderError,
    RateLimitedError,
    TransientProviderError,
)
from honyaku.llm.events import Response as Reply
from honyaku.llm.events import Retry, StreamEvent
from honyaku.llm.gemini import (
    FOREIGN_SIGNATURE,
    GeminiProvider,
    gemini_contents,
    gemini_schema,
    json_path_steps,
)
from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.testing import Fault, FaultKind, ScriptedTranslator
from honyaku.testing.fake_gemini import THOUGHTS_TOKENS, FakeGeminiServer
from honyaku.testing.server import BackgroundServer

KEY = "AIza-secret-test-key"
SYSTEM = SystemMessage("You translate a Japanese book into Chinese, one chunk at a time.")
CHUNK = UserMessage(
    "chapter_id: c0ffee00\ntitle: 旅立ち\n\n"
    "[1] [ID: 0000aaaa] 彼は歩いた。\n[2] [ID: 0000bbbb] 雨が降っていた。"
)


class Item(BaseModel):
    paragraph_id: str
    translated_text: str
    original_text_prefix: str = ""


class BatchParameters(BaseModel):
    paragraphs: Annotated[list[Item], Field(min_length=1, max_length=400)]


class StatusParameters(BaseModel):
    status: Literal["planning", "working", "review", "end"]


class TitleParameters(BaseModel):
    chapter_id: str
    translated_title: str
    note: str | None = None
    """An optional value: ``anyOf`` with ``null`` in the JSON schema."""


TOOLS = (
    ToolSpec("add_translation_batch", "Submit paragraphs.", inline_schema(BatchParameters)),
    ToolSpec("update_task_status", "Move the task.", inline_schema(StatusParameters)),
    ToolSpec("update_chapter_title", "Submit the title.", inline_schema(TitleParameters)),
)


def provider_for(url: str, read_timeout_s: float = 10) -> GeminiProvider:
    return GeminiProvider(
        model="gemini-fake", api_key=KEY, base_url=url, read_timeout_s=read_timeout_s
    )


async def reply_to(provider: Any, messages: list[Message]) -> tuple[list[StreamEvent], Reply]:
    events = [event async for event in provider.stream(ChatRequest(tuple(messages), TOOLS))]
    assert isinstance(events[-1], Reply)
    return events, events[-1]


async def answered(provider: Any, messages: list[Message]) -> list[Message]:
    """One turn: the reply and a successful result for each of its calls."""
    _, reply = await reply_to(provider, messages)
    results = [
        ToolResultMessage(call.id, call.name, json.dumps({"success": True, "status": "working"}))
        for call in reply.message.tool_calls
    ]
    return [*messages, reply.message, *results]


@pytest.fixture
async def provider(gemini: FakeGeminiServer) -> AsyncIterator[GeminiProvider]:
    provider = provider_for(gemini.url)
    yield provider
    await provider.aclose()


# -- the conversation ------------------------------------------------------------------------


@pytest.mark.anyio
async def test_signatures_go_back_and_a_turn_without_them_is_refused(gemini, provider):
    gemini.translator = ScriptedTranslator(calls_per_reply=1)
    history = await answered(provider, [SYSTEM, CHUNK])

    history = await answered(provider, history)  # accepted: the signature came back

    stripped = [
        AssistantMessage(m.text, m.tool_calls, m.reasoning)
        if isinstance(m, AssistantMessage)
        else m
        for m in history
    ]
    with pytest.raises(FatalProviderError, match="thought_signature") as refused:
        await reply_to(provider, stripped)
    assert "(400)" in str(refused.value)


@pytest.mark.anyio
async def test_the_model_turn_goes_back_exactly_as_it_came(gemini, provider):
    gemini.translator = ScriptedTranslator(calls_per_reply=2)
    history = await answered(provider, [SYSTEM, CHUNK])

    await answered(provider, history)

    first, second = gemini.requests
    model_turn = second["contents"][1]
    assert model_turn["role"] == "model"
    assert [p.get("text") for p in model_turn["parts"][:1]] == ["Working on it."]
    calls = [p for p in model_turn["parts"] if "functionCall" in p]
    assert [c["functionCall"]["name"] for c in calls] == [
        "update_task_status",
        "update_chapter_title",
    ]
    assert "thoughtSignature" in calls[0]
    assert "thoughtSignature" not in calls[1]
    assert second["contents"][0] == first["contents"][0]
    assert second["systemInstruction"] == first["systemInstruction"]


@pytest.mark.anyio
async def test_results_go_back_as_function_responses_in_call_order_in_one_user_turn(
    gemini, provider
):
    _, reply = await reply_to(provider, [SYSTEM, CHUNK])
    calls = reply.message.tool_calls
    results = [
        ToolResultMessage(call.id, call.name, json.dumps({"success": True, "n": n}))
        for n, call in enumerate(calls)
    ]

    await reply_to(provider, [SYSTEM, CHUNK, reply.message, *reversed(results)])

    responses = gemini.requests[-1]["contents"][-1]
    assert responses["role"] == "user"
    assert [p["functionResponse"]["name"] for p in responses["parts"]] == [c.name for c in calls]
    assert [p["functionResponse"]["response"]["n"] for p in responses["parts"]] == list(
        range(len(calls))
    )


@pytest.mark.anyio
async def test_ids_the_server_gives_are_kept_and_returned_with_their_results(gemini, provider):
    gemini.call_ids = True
    gemini.translator = ScriptedTranslator(calls_per_reply=1)

    history = await answered(provider, [SYSTEM, CHUNK])
    await answered(provider, history)

    [call] = history[2].tool_calls
    assert call.id.startswith("fc_")
    response = gemini.requests[-1]["contents"][2]["parts"][0]["functionResponse"]
    assert response["id"] == call.id


@pytest.mark.anyio
async def test_arguments_streamed_in_pieces_arrive_whole(gemini, provider):
    gemini.stream_arguments = True

    _, reply = await reply_to(provider, [SYSTEM, CHUNK])

    batch = next(c for c in reply.message.tool_calls if c.name == "add_translation_batch")
    assert [item["translated_text"] for item in batch.arguments["paragraphs"]] == [
        "〈译〉彼は歩いた。",
        "〈译〉雨が降っていた。",
    ]
    assert batch.error is None


@pytest.mark.anyio
async def test_usage_reports_prompt_tokens_and_thinking_as_output(gemini, provider):
    _, reply = await reply_to(provider, [SYSTEM, CHUNK])

    usage = reply.usage
    assert (usage.input_tokens or 0) > 0
    assert (usage.output_tokens or 0) > THOUGHTS_TOKENS
    assert usage.input_chars > len(CHUNK.text)
    assert usage.output_chars > 0


# -- faults ----------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault(FaultKind.RATE_LIMIT, seconds=0.05), RateLimitedError),
        (Fault(FaultKind.SERVER_ERROR), TransientProviderError),
        (Fault(FaultKind.CUT_STREAM), CutStreamError),
        (Fault(FaultKind.DROP_CONNECTION), CutStreamError),
        (Fault(FaultKind.SLOW_FIRST_BYTE, seconds=1), TransientProviderError),
    ],
    ids=["rate_limit", "server_error", "cut_stream", "drop_connection", "slow_first_byte"],
)
async def test_each_fault_is_translated_then_retried_to_a_whole_reply(gemini, fault, error):
    gemini.faults.append(fault)
    # Short only where the fault is slowness: a loaded machine must not turn the others slow.
    slow = fault.kind is FaultKind.SLOW_FIRST_BYTE
    provider = provider_for(gemini.url, read_timeout_s=0.3 if slow else 10)
    with pytest.raises(error) as raised:
        await reply_to(provider, [SYSTEM, CHUNK])
    gemini.faults.append(fault)
    retrying = RetryingProvider(provider, RetryPolicy(base_s=0.01))

    events, reply = await reply_to(retrying, [SYSTEM, CHUNK])
    await retrying.aclose()

    assert type(raised.value) is error
    assert KEY not in str(raised.value)
    assert [type(e) for e in events if isinstance(e, Retry)] == [Retry]
    assert {c.name for c in reply.message.tool_calls} >= {"add_translation_batch"}


@pytest.mark.anyio
async def test_a_rate_limit_carries_the_servers_delay(gemini, provider):
    gemini.faults.append(Fault(FaultKind.RATE_LIMIT, seconds=0.25))

    with pytest.raises(RateLimitedError) as limited:
        await reply_to(provider, [SYSTEM, CHUNK])

    assert limited.value.retry_after_s == 0.25
    assert "429" in str(limited.value)


@pytest.mark.anyio
async def test_an_unstreamed_answer_to_a_streamed_request_is_read_whole(gemini, provider):
    gemini.faults.append(Fault(FaultKind.NO_STREAMING))

    _, reply = await reply_to(provider, [SYSTEM, CHUNK])

    assert reply.finish_reason == "STOP"
    assert len(reply.message.tool_calls) == 5


class Refusing:
    """A server that answers every request with the error body it was last given."""

    def __init__(self) -> None:
        self.status, self.body = 500, {}
        route = Route("/v1beta/models/{target}", self._refuse, methods=["POST"])
        self.server = BackgroundServer(Starlette(routes=[route]))

    async def _refuse(self, _request: Request) -> Response:
        body = {"error": {"code": self.status, **self.body}}
        return JSONResponse(body, status_code=self.status)

    async def error_for(self, status: int, body: dict[str, Any]) -> ProviderError:
        self.status, self.body = status, body
        provider = provider_for(self.server.origin)
        try:
            with pytest.raises(ProviderError) as raised:
                await reply_to(provider, [SYSTEM, CHUNK])
        finally:
            await provider.aclose()
        return raised.value


@pytest.fixture(scope="module")
def refusing() -> Iterator[Refusing]:
    server = Refusing()
    with server.server:
        yield server


@pytest.mark.anyio
async def test_a_refused_key_gives_a_readable_reason_without_the_key(refusing):
    error = await refusing.error_for(
        401, {"message": f"Request had invalid credentials: {KEY}", "status": "UNAUTHENTICATED"}
    )

    assert isinstance(error, FatalProviderError)
    assert "refused the API key" in str(error)
    assert KEY not in str(error)


@pytest.mark.anyio
async def test_gemini_s_400_for_a_bad_key_reads_as_a_refused_key(gemini):
    gemini.api_key = "the-right-key"
    provider = provider_for(gemini.url)

    with pytest.raises(FatalProviderError, match="refused the API key") as refused:
        await reply_to(provider, [SYSTEM, CHUNK])
    await provider.aclose()

    assert KEY not in str(refused.value)


@pytest.mark.anyio
async def test_an_unknown_model_is_named_in_the_error(refusing):
    error = await refusing.error_for(
        404,
        {
            "message": "models/gemini-fake is not found for API version v1beta",
            "status": "NOT_FOUND",
        },
    )

    assert isinstance(error, FatalProviderError)
    assert "'gemini-fake'" in str(error)


@pytest.mark.anyio
async def test_a_rate_limit_without_retry_after_uses_gemini_s_retry_info(refusing):
    retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}
    error = await refusing.error_for(
        429, {"message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED", "details": [retry]}
    )

    assert isinstance(error, RateLimitedError)
    assert error.retry_after_s == 37


@pytest.mark.anyio
async def test_an_overloaded_server_is_worth_a_retry(refusing):
    error = await refusing.error_for(
        503, {"message": "The model is overloaded.", "status": "UNAVAILABLE"}
    )

    assert isinstance(error, TransientProviderError)
    assert "503" in str(error)


@pytest.mark.anyio
async def test_a_blocked_prompt_is_refused_by_the_filter_instead_of_retried():
    chunk = {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {}}
    sent = []

    async def blocked(request: Request) -> Response:
        sent.append(await request.json())
        return Response(f"data: {json.dumps(chunk)}\n\n", media_type="text/event-stream")

    route = Route("/v1beta/models/{target}", blocked, methods=["POST"])
    with BackgroundServer(Starlette(routes=[route])) as server:
        provider = RetryingProvider(provider_for(server.origin), RetryPolicy(base_s=0))
        with pytest.raises(ContentFilteredError) as refused:
            await reply_to(provider, [SYSTEM, CHUNK])
        await provider.aclose()

    assert str(refused.value) == "refused by the provider's filter (PROHIBITED_CONTENT)"
    assert refused.value.prompt is True
    assert len(sent) == 1


def test_without_a_key_or_a_local_server_the_provider_is_not_made():
    with pytest.raises(ConfigError, match="API key"):
        GeminiProvider(model="gemini-2.5-flash", api_key=None)


# -- requests --------------------------------------------------------------------------------


def test_schemas_become_gemini_s_subset():
    schema = gemini_schema(inline_schema(TitleParameters))

    assert schema == {
        "required": ["chapter_id", "translated_title"],
        "type": "OBJECT",
        "properties": {
            "chapter_id": {"type": "STRING"},
            "translated_title": {"type": "STRING"},
            "note": {"type": "STRING", "nullable": True},
        },
    }
    assert gemini_schema(inline_schema(BatchParameters))["properties"]["paragraphs"] == {
        "type": "ARRAY",
        "items": {
            "required": ["paragraph_id", "translated_text"],
            "type": "OBJECT",
            "properties": {
                "paragraph_id": {"type": "STRING"},
                "translated_text": {"type": "STRING"},
                "original_text_prefix": {"type": "STRING"},
            },
        },
    }


def offer_tool(server: FakeGeminiServer, parameters: dict[str, Any]) -> httpx2.Response:
    """Declare one tool to the fake, which checks its schema as Gemini does."""
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hello"}]}],
        "tools": [{"functionDeclarations": [{"name": "tool", "parameters": parameters}]}],
    }
    return httpx2.post(f"{server.url}/v1beta/models/gemini-fake:generateContent", json=body)


def test_unions_numbers_and_constants_are_said_the_way_gemini_reads_them(gemini):
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "count": {"type": "integer", "minimum": 1, "maximum": 20, "default": 3},
            "size": {"type": "integer", "enum": [1, 2, 4], "description": "Pages"},
            "id": {"type": ["string", "integer"]},
            "kind": {"const": "polish"},
            "url": {"type": "string", "format": "uri", "description": "Where"},
            "at": {"type": "string", "format": "date-time"},
            "when": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
        },
    }

    assert gemini_schema(schema) == {
        "type": "OBJECT",
        "properties": {
            "count": {"type": "INTEGER", "minimum": 1, "maximum": 20, "default": 3},
            "size": {"type": "INTEGER", "description": "Pages (one of 1, 2, 4)"},
            "id": {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]},
            "kind": {"enum": ["polish"]},
            "url": {"type": "STRING", "description": "Where (format: uri)"},
            "at": {"type": "STRING", "format": "date-time"},
            "when": {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}], "nullable": True},
        },
    }
    assert offer_tool(gemini, gemini_schema(schema)).status_code == 200


def test_the_fake_refuses_a_schema_gemini_would_refuse(gemini):
    raw = {"type": "OBJECT", "properties": {"note": {"type": "STRING"}}, "additionalProperties": 0}
    listed = {"type": "OBJECT", "properties": {"note": {"type": ["STRING", "NULL"]}}}
    uri = {"type": "OBJECT", "properties": {"url": {"type": "STRING", "format": "uri"}}}

    refusals = [offer_tool(gemini, parameters) for parameters in (raw, listed, uri)]

    assert [r.status_code for r in refusals] == [400, 400, 400]
    assert "additionalProperties" in refusals[0].json()["error"]["message"]


def test_history_from_another_model_goes_back_with_gemini_s_foreign_signature():
    calls = (
        ToolCall("call_abc", "update_task_status", {"status": "working"}, '{"status":"working"}'),
        ToolCall("call_def", "update_task_status", {"status": "review"}, '{"status":"review"}'),
    )
    system, contents = gemini_contents(
        [
            SYSTEM,
            CHUNK,
            AssistantMessage("Working on it.", calls),
            ToolResultMessage("call_abc", "update_task_status", '{"success":true}'),
            ToolResultMessage("call_def", "update_task_status", "not json"),
        ]
    )

    assert system == SYSTEM.text
    model, results = contents[1:]
    assert model.parts[0].text == "Working on it."
    assert [p.thought_signature for p in model.parts[1:]] == [FOREIGN_SIGNATURE, None]
    assert [p.function_response.response for p in results.parts] == [
        {"success": True},
        {"output": "not json"},
    ]
    assert all(p.function_response.id is None for p in results.parts)


@pytest.mark.parametrize(
    ("path", "steps"),
    [
        ("$.operations[1].price", ["operations", 1, "price"]),
        ("$.id", ["id"]),
        ("$['a key'][0]", ["a key", 0]),
        ('$["x"].y', ["x", "y"]),
        ("operations", None),
        ("$.a[b]", None),
    ],
)
def test_json_paths_of_streamed_arguments_are_read_step_by_step(path, steps):
    assert json_path_steps(path) == steps


@pytest.mark.anyio
async def test_the_fake_answers_unstreamed_requests_too(gemini):
    client = genai.Client(
        api_key=KEY, http_options=types.HttpOptions(base_url=gemini.url, api_version="v1beta")
    )

    response = await client.aio.models.generate_content(
        model="gemini-fake",
        contents=CHUNK.text,
        config=types.GenerateContentConfig(system_instruction=SYSTEM.text),
    )
    await client.aio.aclose()
    client.close()

    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    assert [c.name for c in response.function_calls][:2] == [
        "update_task_status",
        "update_chapter_title",
    ]
