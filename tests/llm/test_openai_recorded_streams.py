"""The recorded real-server streams, replayed over HTTP, come out as expected.json says."""

from __future__ import annotations

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
from honyaku.llm.messages import ChatRequest, ToolResultMessage, ToolSpec, UserMessage
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.testing.server import BackgroundServer

STREAMS = Path(__file__).parents[1] / "fixtures" / "streams"
EXPECTED = [
    e for e in json.loads((STREAMS / "expected.json").read_text()) if e["format"] != "gemini-chunks"
]
REQUEST = ChatRequest(
    (UserMessage("What's the weather?"),), (ToolSpec("weather", "", {"type": "object"}),)
)


class Replay:
    """Serves one recorded body to the next chat request."""

    def __init__(self) -> None:
        self.body = b""
        self.requests: list[dict] = []
        self.server = BackgroundServer(
            Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"])])
        )

    async def _chat(self, request: Request) -> Response:
        self.requests.append(await request.json())
        return Response(self.body, media_type="text/event-stream")


@pytest.fixture(scope="module")
def replay() -> Iterator[Replay]:
    server = Replay()
    with server.server:
        yield server


async def collect(
    provider: OpenAICompatibleProvider, request: ChatRequest = REQUEST
) -> tuple[list[object], Reply]:
    events = [event async for event in provider.stream(request)]
    assert isinstance(events[-1], Reply)
    return events, events[-1]


@pytest.mark.anyio
@pytest.mark.parametrize("expected", EXPECTED, ids=[e["file"] for e in EXPECTED])
async def test_recorded_stream_yields_the_expected_message(replay: Replay, expected: dict):
    replay.body = (STREAMS / expected["file"]).read_bytes()
    provider = OpenAICompatibleProvider(model="recorded", base_url=f"{replay.server.origin}/v1")

    events, reply = await collect(provider)

    message = reply.message
    assert (message.text or None) == expected["content"]
    assert message.reasoning == expected["reasoning_content"]
    assert reply.finish_reason == expected["finish_reason"]
    assert [(c.id, c.name, dict(c.arguments)) for c in message.tool_calls] == [
        (c["id"], c["name"], json.loads(c["arguments"])) for c in expected["tool_calls"]
    ]
    assert all(c.error is None for c in message.tool_calls)
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    thought = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert shown == (expected["content"] or "")
    assert thought == (expected["reasoning_content"] or "")
    await provider.aclose()


@pytest.mark.anyio
async def test_a_stream_cut_before_its_finish_reason_is_refused_whole(replay: Replay):
    whole = (STREAMS / "openai/gpt4o-parallel-tool-calls.sse").read_bytes()
    replay.body = (
        whole[: whole.index(b'"finish_reason":"tool_calls"') - 300].rsplit(b"\n\n", 1)[0] + b"\n\n"
    )
    provider = OpenAICompatibleProvider(model="recorded", base_url=f"{replay.server.origin}/v1")

    with pytest.raises(CutStreamError):
        await collect(provider)
    await provider.aclose()


def streamed_field(file: str, name: str) -> str:
    """The text of one delta field across a recorded stream, exactly as it was sent."""
    events = (STREAMS / file).read_text().split("\n\n")
    chunks = [json.loads(e[len("data: ") :]) for e in events if e.startswith("data: {")]
    return "".join(c["choices"][0]["delta"].get(name) or "" for c in chunks if c["choices"])


@pytest.mark.anyio
@pytest.mark.parametrize("replay_reasoning", [False, True], ids=["by default", "when told"])
async def test_reasoning_content_goes_back_exactly_as_received_only_when_told(
    replay: Replay, replay_reasoning: bool
):
    replay.body = (STREAMS / "openai/xai-tool-call.sse").read_bytes()
    provider = OpenAICompatibleProvider(
        model="recorded",
        base_url=f"{replay.server.origin}/v1",
        replay_reasoning=replay_reasoning,
    )
    _, reply = await collect(provider)
    result = ToolResultMessage(reply.message.tool_calls[0].id, "weather", '{"sunny": true}')

    await collect(provider, ChatRequest((*REQUEST.messages, reply.message, result), REQUEST.tools))

    sent = replay.requests[-1]["messages"][1]
    received = streamed_field("openai/xai-tool-call.sse", "reasoning_content")
    assert received.startswith("First, the user is asking")
    assert sent.get("reasoning_content") == (received if replay_reasoning else None)
    assert sent["content"] is None
    assert sent["tool_calls"][0]["function"] == {
        "name": "weather",
        "arguments": '{"location":"San Francisco"}',
    }
    await provider.aclose()
