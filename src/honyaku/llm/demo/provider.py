"""The demo model as a provider inside honyaku's own process: no server, no key, no network.

It answers each request the way the demo translator decides, streamed like a real reply: its
text in small deltas, then its calls. Spoken to through the XML protocol (a request with no
tools), it writes its calls as ``<tool_use>`` blocks in its text, as a model without native
function calling would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

from honyaku.llm.demo.conversation import read_conversation, reply_text
from honyaku.llm.demo.translator import DemoTranslator, arguments_json
from honyaku.llm.events import Response, StreamEvent, TextDelta, Usage
from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    ToolCall,
    message_chars,
    message_tokens,
    request_chars,
    request_tokens,
)
from honyaku.llm.openai_wire import wire_message

DEMO_MODEL = "demo"
DEMO_LATENCY_S = 0.05
"""Time before each reply: enough for a person to see the progress move."""
DELTA_CHARS = 24


class DemoProvider:
    def __init__(
        self, translator: DemoTranslator | None = None, *, latency_s: float = DEMO_LATENCY_S
    ) -> None:
        self.model = DEMO_MODEL
        self.translator = translator or DemoTranslator()
        self.latency_s = latency_s

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        system, turns = read_conversation([wire_message(m) for m in request.messages])
        offered = tuple(tool.name for tool in request.tools)
        reply = self.translator.reply(system, turns, offered)
        await asyncio.sleep(self.latency_s)
        xml = not request.tools
        text = reply_text(reply, xml=xml)
        for piece in _pieces(text, DELTA_CHARS):
            yield TextDelta(piece)
        calls = (
            ()
            if xml
            else tuple(
                _call(request.turn, n, c.name, c.arguments) for n, c in enumerate(reply.calls)
            )
        )
        message = AssistantMessage(text, calls)
        finish = "tool_calls" if calls else "stop"
        yield Response(message, finish, _usage(request, message))

    async def aclose(self) -> None:
        pass


def _call(turn: int, n: int, name: str, arguments: dict[str, object]) -> ToolCall:
    raw = arguments_json(arguments)
    return ToolCall(f"demo_{turn}_{n}", name, arguments, raw)


def _usage(request: ChatRequest, message: AssistantMessage) -> Usage:
    estimated_in, estimated_out = request_tokens(request), message_tokens(message)
    return Usage(
        request_chars(request),
        message_chars(message),
        estimated_in,
        estimated_out,
        estimated_input_tokens=estimated_in,
        estimated_output_tokens=estimated_out,
    )


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]
