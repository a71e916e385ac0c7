"""A provider's filter refusing a request or stopping its reply: one error, sent once.

Recorded refusals (OpenAI's structured-output refusal, Azure's content filter, Gemini's
``SAFETY`` stops and blocked prompts), the 400s other providers answer a filtered prompt with,
and the fake servers' own filters, all over real HTTP. Whatever text came before the filter
stopped a reply is shown as it came but never becomes a ``Response``, so none of its calls
runs; and ``RetryingProvider`` sends the request once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from google.genai import types
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from honyaku.errors import ContentFilteredError, FatalProviderError
from honyaku.llm.endpoint_pool import EndpointPool
from honyaku.llm.events import ArgumentsDelta, ChatProvider, StreamEvent, TextDelta
from honyaku.llm.events import Response as Reply
from honyaku.llm.gemini import GeminiProvider, safety_settings, stopped_by_filter
from honyaku.llm.messages import ChatRequest, SystemMessage, ToolSpec, UserMessage
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.testing import Blocked, ContentFilter, FakeGeminiServer, FakeLLMServer
from honyaku.testing.server import BackgroundServer

STREAMS = Path(__file__).parents[1] / "fixtures" / "streams"
KEY = "sk-secret-test-key-0123456789"
CHUNK = UserMessage(
    "chapter_id: c0ffee00\ntitle: 旅立ち\n\n"
    "[1] [ID: 0000aaaa] 彼は剣を抜いた。\n[2] [ID: 0000bbbb] 血が流れた。"
)
TOOLS = (
    ToolSpec(
        "update_task_status",
        "Move the task.",
        {"type": "object", "properties": {"status": {"type": "string"}}},
    ),
)
REQUEST = ChatRequest((SystemMessage("You translate a book."), CHUNK), TOOLS)


class Replay:
    """Answers every request, Chat Completions or Gemini, with one recorded body."""

    def __init__(self) -> None:
        self.body = b""
        self.status = 200
        self.media_type = "text/event-stream"
        self.requests = 0
        self.server = BackgroundServer(
            Starlette(
                routes=[
                    Route("/v1/chat/completions", self._answer, methods=["POST"]),
                    Route("/v1beta/models/{target}", self._answer, methods=["POST"]),
                ]
            )
        )

    def serve(self, body: bytes | dict[str, Any], *, status: int = 200, sse: bool = True) -> None:
        if isinstance(body, dict):
            body = (f"data: {json.dumps(body)}\n\n" if sse else json.dumps(body)).encode()
        self.body, self.status = body, status
        self.media_type = "text/event-stream" if sse else "application/json"

    async def _answer(self, _request: Request) -> Response:
        self.requests += 1
        return Response(self.body, self.status, media_type=self.media_type)

    def openai(self) -> OpenAICompatibleProvider:
        return OpenAICompatibleProvider(
            model="recorded", base_url=f"{self.server.origin}/v1", api_key=KEY
        )

    def gemini(self) -> GeminiProvider:
        return GeminiProvider(model="gemini-2.5-flash", api_key=KEY, base_url=self.server.origin)


@pytest.fixture(scope="module")
def replay_server() -> Iterator[Replay]:
    replay = Replay()
    with replay.server:
        yield replay


@pytest.fixture
def replay(replay_server: Replay) -> Replay:
    replay_server.requests = 0
    return replay_server


async def refused(
    provider: ChatProvider, request: ChatRequest = REQUEST
) -> tuple[list[StreamEvent], ContentFilteredError]:
    """The events before the refusal, and the refusal, through the retries every job has."""
    retrying = RetryingProvider(provider, RetryPolicy(base_s=0.0))
    events: list[StreamEvent] = []
    try:
        async for event in retrying.stream(request):
            events.append(event)
    except ContentFilteredError as error:
        assert not any(isinstance(e, Reply) for e in events), "a refused reply was answered"
        return events, error
    finally:
        await provider.aclose()
    raise AssertionError(f"not refused: {events[-1]!r}")


def cassette_body(name: str) -> dict[str, Any]:
    """The response body of a vcrpy cassette's last interaction, as Gemini sent it."""
    cassette = yaml.safe_load((STREAMS / name).read_text())
    return cassette["interactions"][-1]["response"]["parsed_body"]


# -- recorded refusals -----------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("file", "said"),
    [
        ("openai/gpt4o-structured-refusal.sse", "I'm sorry, I can't assist with that request."),
        (
            "openai/gpt4o-structured-refusal-logprobs.sse",
            "I'm very sorry, but I can't assist with that.",
        ),
    ],
)
async def test_a_structured_output_refusal_is_the_filter_s_and_keeps_the_model_s_words(
    replay: Replay, file: str, said: str
):
    replay.serve((STREAMS / file).read_bytes())

    events, error = await refused(replay.openai())

    assert str(error) == "refused by the provider's filter (refusal)"
    assert (error.reason, error.said, error.categories, error.prompt) == (
        "refusal",
        said,
        (),
        False,
    )
    assert not any(isinstance(e, TextDelta) for e in events), "a refusal is not an answer"
    assert replay.requests == 1


@pytest.mark.anyio
async def test_azure_s_content_filter_finish_is_refused_with_the_category_it_marked(
    replay: Replay,
):
    body = (STREAMS / "openai/openllmetry-azure-content-filter.json").read_bytes()
    replay.serve(body, sse=False)

    _, error = await refused(replay.openai())

    assert str(error) == "refused by the provider's filter (content_filter: hate)"
    assert (error.reason, error.categories, error.prompt) == ("content_filter", ("hate",), False)
    assert replay.requests == 1


@pytest.mark.anyio
async def test_gemini_s_safety_stop_discards_the_text_before_it(replay: Replay):
    replay.serve((STREAMS / "gemini/firebase-vertex-finish-reason-safety.sse").read_bytes())

    events, error = await refused(replay.gemini())

    assert [e.text for e in events if isinstance(e, TextDelta)] == ["<redacted>"]
    assert str(error) == "refused by the provider's filter (SAFETY: HARM_CATEGORY_HARASSMENT)"
    assert error.prompt is False
    assert replay.requests == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("file", "reason", "categories", "said", "prompt"),
    [
        (
            "gemini/pydantic-ai-google-safety-settings.cassette.yaml",
            "SAFETY",
            ("HARM_CATEGORY_HATE_SPEECH",),
            None,
            False,
        ),
        (
            "gemini/pydantic-ai-google-model-armor-blocked.cassette.yaml",
            "MODEL_ARMOR",
            (),
            "The prompt violated Prompt Injection and Jailbreak filters.",
            True,
        ),
    ],
    ids=["reply stopped for SAFETY", "prompt blocked by Model Armor"],
)
async def test_a_recorded_gemini_refusal_is_the_filter_s(
    replay: Replay, file: str, reason: str, categories: tuple, said: str | None, prompt: bool
):
    replay.serve(cassette_body(file))

    _, error = await refused(replay.gemini())

    assert (error.reason, error.categories, error.said, error.prompt) == (
        reason,
        categories,
        said,
        prompt,
    )
    assert str(error).startswith(f"refused by the provider's filter ({reason}")
    assert replay.requests == 1


REFUSED_PROMPTS = {
    "azure": (
        {
            "message": "The response was filtered due to the prompt triggering Azure OpenAI's "
            "content management policy. Please modify your prompt and retry.",
            "type": None,
            "param": "prompt",
            "code": "content_filter",
            "status": 400,
            "innererror": {
                "code": "ResponsibleAIPolicyViolation",
                "content_filter_result": {
                    "hate": {"filtered": False, "severity": "safe"},
                    "jailbreak": {"filtered": True, "detected": True},
                    "violence": {"filtered": True, "severity": "high"},
                },
            },
        },
        "content_filter: jailbreak, violence",
    ),
    "moonshot": (
        {
            "code": 400,
            "message": "The request was rejected because it was considered high risk",
            "param": "prompt",
            "type": "content_filter",
        },
        "content_filter",
    ),
    "dashscope": (
        {
            "code": "data_inspection_failed",
            "param": None,
            "message": "Input data may contain inappropriate content.",
            "type": "data_inspection_failed",
        },
        "data_inspection_failed",
    ),
    "deepseek": (
        {
            "message": "Content Exists Risk",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        },
        "Content Exists Risk",
    ),
    "glm": (
        {
            "code": "1301",
            "message": "系统检测到输入或生成内容可能包含不安全或敏感内容，"
            "请您避免输入易产生敏感内容的提示语，感谢您的配合。",
        },
        "1301",
    ),
    "openai": (
        {
            "message": "Invalid prompt: your prompt was flagged as potentially violating our "
            "usage policy. Please try again with a different prompt.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_prompt",
        },
        "flagged as potentially violating our usage policy",
    ),
}


@pytest.mark.anyio
@pytest.mark.parametrize("provider", REFUSED_PROMPTS)
async def test_a_400_saying_the_prompt_was_filtered_is_the_filter_s_refusal(
    replay: Replay, provider: str
):
    error_body, detail = REFUSED_PROMPTS[provider]
    replay.serve({"error": error_body}, status=400, sse=False)

    _, error = await refused(replay.openai())

    assert str(error) == f"refused by the provider's filter ({detail})"
    assert error.prompt is True
    assert error.status_code == 400
    assert error.said == error_body["message"]
    assert replay.requests == 1


@pytest.mark.anyio
async def test_an_error_event_mid_reply_saying_the_output_was_filtered_is_the_filter_s(
    replay: Replay,
):
    began = {"choices": [{"index": 0, "delta": {"content": "彼は剣を"}, "finish_reason": None}]}
    error = {
        "error": {
            "code": "data_inspection_failed",
            "message": "Output data may contain inappropriate content.",
            "type": "data_inspection_failed",
        }
    }
    replay.serve(f"data: {json.dumps(began)}\n\ndata: {json.dumps(error)}\n\n".encode())

    _, refusal = await refused(replay.openai())

    assert str(refusal) == "refused by the provider's filter (data_inspection_failed)"
    assert refusal.said == "Output data may contain inappropriate content."
    assert refusal.prompt is False
    assert replay.requests == 1


@pytest.mark.parametrize(
    ("finish_reason", "filtered"),
    [
        ("SAFETY", True),
        ("PROHIBITED_CONTENT", True),
        ("SPII", True),
        ("IMAGE_PROHIBITED_CONTENT", True),
        ("SOME_FUTURE_SAFETY_CHECK", True),
        ("STOP", False),
        ("MAX_TOKENS", False),
        ("OTHER", False),
        ("MALFORMED_FUNCTION_CALL", False),
        ("SOME_FUTURE_REASON", False),
    ],
)
def test_gemini_s_finish_reasons_are_a_filter_s_only_when_they_say_so(
    finish_reason: str, filtered: bool
):
    assert stopped_by_filter(finish_reason) is filtered


@pytest.mark.anyio
async def test_a_400_for_anything_else_is_not_taken_for_a_filter(replay: Replay):
    message = "Invalid value for 'content_filter_mode': expected one of 'strict', 'relaxed'."
    error_body = {"message": message, "type": "invalid_request_error", "code": "invalid_value"}
    replay.serve({"error": error_body}, status=400, sse=False)
    provider = replay.openai()

    with pytest.raises(FatalProviderError):
        async for _ in RetryingProvider(provider).stream(REQUEST):
            pass
    await provider.aclose()


@pytest.mark.anyio
async def test_what_the_filter_said_is_masked_like_every_error(replay: Replay):
    error_body = {"message": f"Content Exists Risk (key {KEY})", "code": "invalid_request_error"}
    replay.serve({"error": error_body}, status=400, sse=False)

    _, error = await refused(replay.openai())

    assert KEY not in str(error)
    assert error.said is not None
    assert error.said.startswith("Content Exists Risk")
    assert KEY not in error.said


# -- the fake servers' filters ---------------------------------------------------------------


def openai_provider(server: FakeLLMServer, *, streaming: bool = True) -> ChatProvider:
    return OpenAICompatibleProvider(model="fake", base_url=server.url, streaming=streaming)


def gemini_provider(server: FakeGeminiServer, model: str = "gemini-2.5-flash") -> GeminiProvider:
    return GeminiProvider(model=model, api_key=KEY, base_url=server.url)


FAKES = [
    ("openai", Blocked.REPLY, True, TOOLS),
    ("openai", Blocked.REPLY, False, TOOLS),
    ("openai", Blocked.PROMPT, True, TOOLS),
    ("openai", Blocked.REPLY, True, ()),  # the XML protocol: no tools in the request
    ("gemini", Blocked.REPLY, True, TOOLS),
    ("gemini", Blocked.PROMPT, True, TOOLS),
]
REASONS = {
    "openai": "refused by the provider's filter (content_filter: violence)",
    "gemini": "refused by the provider's filter (SAFETY: HARM_CATEGORY_DANGEROUS_CONTENT)",
}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("api", "blocked", "streaming", "tools"),
    FAKES,
    ids=[
        f"{api}-{blocked.value}-{'streamed' if s else 'whole'}-{'native' if t else 'xml'}"
        for api, blocked, s, t in FAKES
    ],
)
async def test_a_fake_server_s_filter_refuses_a_request_once_as_its_provider_does(
    api: str, blocked: Blocked, streaming: bool, tools: tuple
):
    rule = ContentFilter(words={"血"}, blocked=blocked)
    request = ChatRequest(REQUEST.messages, tools)
    server: FakeLLMServer | FakeGeminiServer
    if api == "openai":
        with FakeLLMServer(filter=rule) as server:
            _, error = await refused(openai_provider(server, streaming=streaming), request)
    else:
        with FakeGeminiServer(filter=rule) as server:
            _, error = await refused(gemini_provider(server), request)

    assert str(error) == REASONS[api]
    assert error.prompt is (blocked is Blocked.PROMPT)
    assert server.filtered == len(server.requests) == 1


@pytest.mark.anyio
async def test_a_reply_the_filter_stops_midway_runs_none_of_the_calls_it_had_begun():
    with FakeLLMServer(filter=ContentFilter(refuses=lambda text: "血" in text)) as server:
        events, _ = await refused(openai_provider(server))

    begun = "".join(e.text for e in events if isinstance(e, ArgumentsDelta))
    assert '"status":"working"' in begun, "the reply had begun its calls"


@pytest.mark.anyio
async def test_a_gemini_reply_the_filter_stops_midway_shows_its_beginning_as_it_came():
    with FakeGeminiServer(filter=ContentFilter(refuses=lambda text: "血" in text)) as server:
        events, _ = await refused(gemini_provider(server))

    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Working on it."]


@pytest.mark.anyio
async def test_a_request_without_a_filtered_word_is_answered_as_usual():
    with FakeLLMServer(filter=ContentFilter(words={"爆弾"})) as server:
        provider = openai_provider(server)
        events = [event async for event in provider.stream(REQUEST)]
        await provider.aclose()

    assert isinstance(events[-1], Reply)
    assert events[-1].message.tool_calls
    assert server.filtered == 0


# -- Gemini's safety settings ----------------------------------------------------------------

LOOSEST = [
    {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "OFF"},
    {"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "OFF"},
    {"category": "HARM_CATEGORY_SEXUALLY_EXPLICIT", "threshold": "OFF"},
    {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "threshold": "OFF"},
    {"category": "HARM_CATEGORY_CIVIC_INTEGRITY", "threshold": "BLOCK_NONE"},
]


@pytest.mark.anyio
async def test_every_gemini_request_turns_each_adjustable_filter_off(gemini: FakeGeminiServer):
    provider = gemini_provider(gemini)
    events = [event async for event in provider.stream(REQUEST)]
    await provider.aclose()

    assert isinstance(events[-1], Reply)
    assert gemini.requests[-1]["safetySettings"] == LOOSEST


@pytest.mark.parametrize(
    ("model", "threshold"),
    [
        ("gemini-2.5-flash", types.HarmBlockThreshold.OFF),
        ("gemini-3-pro-preview", types.HarmBlockThreshold.OFF),
        ("gemini-pro-latest", types.HarmBlockThreshold.OFF),
        ("gemini-2.0-flash", types.HarmBlockThreshold.BLOCK_NONE),
        ("gemini-1.5-pro-002", types.HarmBlockThreshold.BLOCK_NONE),
        ("gemini-exp-1206", types.HarmBlockThreshold.BLOCK_NONE),
        ("models/learnlm-2.0-flash-experimental", types.HarmBlockThreshold.BLOCK_NONE),
    ],
)
def test_models_that_refuse_off_get_block_none_instead(
    model: str, threshold: types.HarmBlockThreshold
):
    settings = safety_settings(model)

    civic = types.HarmCategory.HARM_CATEGORY_CIVIC_INTEGRITY
    assert {s.threshold for s in settings if s.category != civic} == {threshold}
    assert [s.threshold for s in settings if s.category == civic] == [
        types.HarmBlockThreshold.BLOCK_NONE
    ]


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ({"category": "HARM_CATEGORY_IMAGE_HATE", "threshold": "OFF"}, "element predicate"),
        ({"category": "HARM_CATEGORY_CIVIC_INTEGRITY", "threshold": "OFF"}, "cannot be 5"),
        ({"category": "HARM_CATEGORY_HARASSMENT", "threshold": "NEVER"}, "Invalid value"),
    ],
)
def test_the_fake_refuses_safety_settings_gemini_refuses(
    gemini: FakeGeminiServer, setting: dict, said: str
):
    body = {"contents": [{"role": "user", "parts": [{"text": "こんにちは"}]}]}
    answer = httpx2.post(
        f"{gemini.url}/v1beta/models/fake:generateContent",
        json=body | {"safetySettings": [setting]},
    )

    assert answer.status_code == 400
    assert said in answer.json()["error"]["message"]


# -- several endpoints -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_an_endpoint_pool_does_not_send_a_refused_request_to_another_endpoint():
    rule = ContentFilter(words={"血"}, blocked=Blocked.PROMPT)
    with FakeLLMServer(filter=rule) as first, FakeLLMServer(filter=rule) as second:
        pool = EndpointPool([openai_provider(first), openai_provider(second)], ["a", "b"])
        await refused(pool)

    assert len(first.requests) + len(second.requests) == 1
