"""The recorded Gemini streams, replayed over HTTP through the SDK, come out as expected.json says.

Each ``.chunks.txt`` line is one ``GenerateContentResponse``; the replay server sends it as the
``data:`` of one server-sent event, as Gemini does for ``streamGenerateContent?alt=sse``.
Thought parts are the reply's reasoning, never its text.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from honyaku.errors import CutStreamError
from honyaku.llm.events import ReasoningDelta, TextDelta
from honyaku.llm.events import Response as Reply
from honyaku.llm.gemini import REPLAY_KEY, GeminiProvider, gemini_contents
from honyaku.llm.messages import (
    ChatRequest,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
    request_chars,
)
from honyaku.testing.server import BackgroundServer

STREAMS = Path(__file__).parents[1] / "fixtures" / "streams"
EXPECTED = [
    e for e in json.loads((STREAMS / "expected.json").read_text()) if e["format"] == "gemini-chunks"
]
REQUEST = ChatRequest(
    (UserMessage("What's the weather?"),), (ToolSpec("weather", "", {"type": "object"}),)
)


class Replay:
    """Serves recorded chunks, one SSE event each, to the next streamed request."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.server = BackgroundServer(
            Starlette(routes=[Route("/v1beta/models/{target}", self._generate, methods=["POST"])])
        )

    def load(self, name: str) -> None:
        self.lines = (STREAMS / name).read_text().splitlines()

    async def _generate(self, _request: Request) -> Response:
        body = "".join(f"data: {line}\n\n" for line in self.lines)
        return Response(body, media_type="text/event-stream")

    def provider(self) -> GeminiProvider:
        return GeminiProvider(model="recorded", api_key="test-key", base_url=self.server.origin)


@pytest.fixture(scope="module")
def replay() -> Iterator[Replay]:
    server = Replay()
    with server.server:
        yield server


async def collect(provider: GeminiProvider) -> tuple[list[object], Reply]:
    try:
        events = [event async for event in provider.stream(REQUEST)]
    finally:
        await provider.aclose()
    assert isinstance(events[-1], Reply)
    return events, events[-1]


@pytest.mark.anyio
@pytest.mark.parametrize("expected", EXPECTED, ids=[Path(e["file"]).stem for e in EXPECTED])
async def test_recorded_stream_yields_the_expected_message(replay: Replay, expected: dict):
    replay.load(expected["file"])

    events, reply = await collect(replay.provider())

    message = reply.message
    assert (message.text or None) == expected["content"]
    assert message.reasoning == expected["reasoning_content"]
    assert reply.finish_reason == expected["finish_reason"]
    assert [(c.name, dict(c.arguments)) for c in message.tool_calls] == [
        (c["name"], json.loads(c["arguments"])) for c in expected["tool_calls"]
    ]
    assert all(c.error is None for c in message.tool_calls)
    assert all(json.loads(c.raw_arguments) == c.arguments for c in message.tool_calls)
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    thought = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert shown == (expected["content"] or "")
    assert thought == (expected["reasoning_content"] or "")


@pytest.mark.anyio
async def test_calls_without_ids_get_stable_ones_numbered_by_turn_and_order(replay: Replay):
    replay.load("gemini/google-stream-no-args-tool-call.chunks.txt")

    _, reply = await collect(replay.provider())

    assert [c.id for c in reply.message.tool_calls] == [f"gemini_0_{n}" for n in range(4)]


@pytest.mark.anyio
async def test_signatures_and_thoughts_are_kept_to_go_back_byte_for_byte(replay: Replay):
    replay.load("gemini/google-stream-no-args-tool-call.chunks.txt")
    sent = json.loads(replay.lines[1])["candidates"][0]["content"]["parts"][0]["thoughtSignature"]

    _, reply = await collect(replay.provider())

    _, contents = gemini_contents([*REQUEST.messages, reply.message])
    model = contents[-1]
    assert model.role == "model"
    assert model.parts[0].thought is True
    assert model.parts[0].text == reply.message.reasoning
    assert model.parts[1].function_call.name == "read_theme"
    assert model.parts[1].thought_signature == base64.b64decode(sent)
    assert [p.function_call.args for p in model.parts[2:]] == [{"id": x} for x in "ABC"]
    assert all(p.thought_signature is None for p in model.parts[2:])


@pytest.mark.anyio
async def test_a_text_reply_keeps_its_trailing_signature_on_its_one_text_part(replay: Replay):
    replay.load("gemini/google-text.chunks.txt")

    _, reply = await collect(replay.provider())

    [part] = reply.message.replay[REPLAY_KEY]
    assert part["text"] == reply.message.text
    assert part["thought_signature"]


@pytest.mark.anyio
async def test_results_go_back_as_function_responses_in_one_user_turn(replay: Replay):
    replay.load("gemini/google-stream-tool-call-arguments.chunks.txt")
    _, reply = await collect(replay.provider())
    boston, san_francisco = reply.message.tool_calls

    _, contents = gemini_contents(
        [
            *REQUEST.messages,
            reply.message,
            ToolResultMessage(san_francisco.id, "getWeather", '{"success":true,"t":18}'),
            ToolResultMessage(boston.id, "getWeather", '{"success":true,"t":9}'),
        ]
    )

    responses = contents[-1]
    assert responses.role == "user"
    assert [(p.function_response.name, p.function_response.response) for p in responses.parts] == [
        ("getWeather", {"success": True, "t": 9}),
        ("getWeather", {"success": True, "t": 18}),
    ]
    assert all(p.function_response.id is None for p in responses.parts)


@pytest.mark.anyio
async def test_usage_counts_prompt_and_output_tokens_with_thinking(replay: Replay):
    replay.load("gemini/google-stream-no-args-tool-call.chunks.txt")

    _, reply = await collect(replay.provider())

    assert reply.usage.input_tokens == 249
    assert reply.usage.output_tokens == 58 + 183
    assert reply.usage.input_chars == request_chars(REQUEST)
    assert reply.usage.output_chars > 0


@pytest.mark.anyio
async def test_usage_counts_thinking_tokens_apart_and_thoughts_stay_reasoning(replay: Replay):
    replay.load("gemini/google-stream-no-args-tool-call.chunks.txt")

    events, reply = await collect(replay.provider())

    assert reply.usage.reasoning_tokens == 183
    thought = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert thought
    assert reply.message.reasoning == thought
    assert thought not in reply.message.text


@pytest.mark.anyio
async def test_a_stream_without_its_finish_reason_is_refused_whole(replay: Replay):
    replay.load("gemini/google-stream-tool-call-arguments.chunks.txt")
    last = json.loads(replay.lines[-1])
    del last["candidates"][0]["finishReason"]
    replay.lines[-1] = json.dumps(last)

    with pytest.raises(CutStreamError):
        await collect(replay.provider())


@pytest.mark.anyio
async def test_a_call_cut_by_the_token_limit_is_never_run_and_asks_for_fewer_paragraphs(
    replay: Replay,
):
    replay.load(
        "gemini/google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt"
    )
    replay.lines = replay.lines[:10]  # the call stops mid-way, its last string still growing
    replay.lines.append(
        json.dumps({"candidates": [{"content": {"parts": []}, "finishReason": "MAX_TOKENS"}]})
    )

    _, reply = await collect(replay.provider())

    [call] = reply.message.tool_calls
    assert reply.finish_reason == "MAX_TOKENS"
    assert call.error is not None
    assert call.error.code == "INVALID_PARAMETER"
    assert "fewer paragraphs" in call.error.message
