"""Reading an Anthropic reply: streamed events (or a whole message, as a batch returns it)
into text, thinking, tool calls, usage and what stopped it.

A reply is a list of content blocks: ``text``, ``thinking`` (its text streamed as
``thinking_delta``, its ``signature`` as ``signature_delta``), ``redacted_thinking`` (opaque
``data``), ``tool_use`` (its input streamed as ``input_json_delta`` pieces, the first often
``""``; no piece at all is an empty input). Thinking is reasoning, never answer: it streams as
``ReasoningDelta`` and goes into ``AssistantMessage.reasoning``, and every block goes back
next turn as it came (``request.REPLAY_KEY``).

``stop_reason`` says how the reply ended: ``max_tokens`` (and
``model_context_window_exceeded``) is a reply cut at the model's limit, ``refusal`` is
Anthropic's classifiers refusing it, read as ``ContentFilteredError``. Usage counts input in
three parts, which honyaku adds up: ``input_tokens`` (after the last cache breakpoint),
``cache_creation_input_tokens`` (written to the cache) and ``cache_read_input_tokens``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from honyaku.errors import ContentFilteredError
from honyaku.llm.anthropic.request import REPLAY_KEY, replayed_block
from honyaku.llm.events import (
    CUT_REPLY,
    ArgumentsDelta,
    CallStreaming,
    ReasoningDelta,
    TextDelta,
    Usage,
)
from honyaku.llm.messages import (
    CUT_BY_OUTPUT_LIMIT,
    AssistantMessage,
    ChatRequest,
    ToolCall,
    ToolCallError,
    message_chars,
    message_tokens,
    request_chars,
    request_tokens,
)

ReplyEvent = TextDelta | ReasoningDelta | CallStreaming | ArgumentsDelta

CUT_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})
REFUSAL = "refusal"
FINISH_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls"}
"""Anthropic's stop reasons in the words the rest of honyaku reads (``Response.finish_reason``);
others are kept as Anthropic says them."""


@dataclass
class _Block:
    kind: str
    start: dict[str, Any]
    pieces: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)

    def wire(self) -> dict[str, Any]:
        """The block as it goes back next turn."""
        block = dict(self.start)
        joined = "".join(self.pieces)
        if self.kind == "text":
            block["text"] = (block.get("text") or "") + joined
        elif self.kind == "thinking":
            block["thinking"] = (block.get("thinking") or "") + joined
            block["signature"] = (block.get("signature") or "") + "".join(self.signature)
        elif self.kind == "tool_use":
            block["input"] = self.arguments()[0]
        return replayed_block(block)

    def arguments(self) -> tuple[dict[str, Any], str, str | None]:
        """The call's input, as written, and why it cannot be read, if it cannot."""
        raw = "".join(self.pieces)
        if not raw.strip():
            given = self.start.get("input")
            given = given if isinstance(given, dict) else {}
            return given, json.dumps(given, ensure_ascii=False, separators=(",", ":")), None
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            return {}, raw, f"arguments are not valid JSON ({exc.msg}, char {exc.pos})"
        if not isinstance(value, dict):
            return {}, raw, "arguments must be a JSON object"
        return value, raw, None


@dataclass
class AnthropicReplyAssembler:
    """Feed it every event of one reply; it yields display deltas and builds the message."""

    stop_reason: str | None = None
    stop_details: Mapping[str, Any] | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    events: int = 0
    heard: bool = False
    """Some of the reply's content (text, thinking, a call) has come, not only its start."""
    error: Mapping[str, Any] | None = None
    """An ``error`` event the server sent mid-stream (``overloaded_error``…)."""
    _blocks: dict[int, _Block] = field(default_factory=dict)
    _calls: int = 0

    def add_event(self, event: Mapping[str, Any]) -> list[ReplyEvent]:
        self.events += 1
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            self.usage |= message.get("usage") or {}
        elif kind == "content_block_start":
            return self._start(int(event.get("index", len(self._blocks))), event)
        elif kind == "content_block_delta":
            return self._delta(event)
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            self.stop_reason = delta.get("stop_reason") or self.stop_reason
            self.stop_details = delta.get("stop_details") or self.stop_details
            # The last usage is cumulative; its output_tokens are the reply's.
            self.usage |= {k: v for k, v in (event.get("usage") or {}).items() if v is not None}
        elif kind == "error":
            self.error = event.get("error") or {}
        return []

    def _start(self, index: int, event: Mapping[str, Any]) -> list[ReplyEvent]:
        start = dict(event.get("content_block") or {})
        block = self._blocks[index] = _Block(str(start.get("type")), start)
        self.heard = True
        if block.kind == "tool_use":
            self._calls += 1
            return [CallStreaming(self._calls - 1, str(start.get("name", "")))]
        if block.kind == "text" and start.get("text"):
            return [TextDelta(start["text"])]
        if block.kind == "thinking" and start.get("thinking"):
            return [ReasoningDelta(start["thinking"])]
        return []

    def _delta(self, event: Mapping[str, Any]) -> list[ReplyEvent]:
        block = self._blocks.get(int(event.get("index", -1)))
        delta = event.get("delta") or {}
        if block is None:
            return []
        match delta.get("type"):
            case "text_delta" if text := delta.get("text"):
                block.pieces.append(text)
                return [TextDelta(text)]
            case "thinking_delta" if text := delta.get("thinking"):
                block.pieces.append(text)
                return [ReasoningDelta(text)]
            case "signature_delta":
                block.signature.append(delta.get("signature") or "")
            case "input_json_delta" if piece := delta.get("partial_json"):
                block.pieces.append(piece)
                return [ArgumentsDelta(piece)]
        return []

    @property
    def finish_reason(self) -> str | None:
        if self.stop_reason is None:
            return None
        if self.stop_reason in CUT_STOP_REASONS:
            return CUT_REPLY
        return FINISH_REASONS.get(self.stop_reason, self.stop_reason)

    def filtered(self) -> ContentFilteredError | None:
        """The error for a reply Anthropic's classifiers refused, if they did."""
        if self.stop_reason != REFUSAL:
            return None
        details = self.stop_details or {}
        category = details.get("category")
        said = details.get("explanation") or self.text() or None
        return ContentFilteredError(
            REFUSAL, categories=[str(category)] if category else [], said=said
        )

    def text(self) -> str:
        return "".join(b.wire().get("text", "") for b in self._ordered() if b.kind == "text")

    def _ordered(self) -> list[_Block]:
        return [self._blocks[index] for index in sorted(self._blocks)]

    def message(self) -> AssistantMessage:
        """The finished reply, its blocks kept for the next request."""
        blocks = self._ordered()
        calls = tuple(self._call(block) for block in blocks if block.kind == "tool_use")
        reasoning = "".join(b.wire()["thinking"] for b in blocks if b.kind == "thinking")
        return AssistantMessage(
            text=self.text(),
            tool_calls=calls,
            reasoning=reasoning or None,
            replay={REPLAY_KEY: [block.wire() for block in blocks]},
        )

    def _call(self, block: _Block) -> ToolCall:
        arguments, raw, unreadable = block.arguments()
        call_id, name = str(block.start.get("id", "")), str(block.start.get("name", ""))
        if unreadable is None:
            return ToolCall(call_id, name, arguments, raw)
        cut = self.finish_reason == CUT_REPLY
        error = CUT_BY_OUTPUT_LIMIT if cut else ToolCallError("INVALID_PARAMETER", unreadable)
        return ToolCall(call_id, name, {}, raw, error)


def message_events(message: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """A whole message (a non-streamed reply, a batch's result) as the events that stream it."""
    yield {"type": "message_start", "message": {**message, "content": []}}
    for index, block in enumerate(message.get("content") or ()):
        yield {"type": "content_block_start", "index": index, "content_block": block}
        yield {"type": "content_block_stop", "index": index}
    delta = {key: message.get(key) for key in ("stop_reason", "stop_sequence", "stop_details")}
    yield {"type": "message_delta", "delta": delta, "usage": message.get("usage") or {}}
    yield {"type": "message_stop"}


def anthropic_usage(
    request: ChatRequest, message: AssistantMessage, usage: Mapping[str, Any]
) -> Usage:
    """Anthropic's three input counts as honyaku's: all of them input, of which some read from
    the cache and some written to it; thinking is billed as output."""
    uncached = usage.get("input_tokens")
    written = usage.get("cache_creation_input_tokens") or 0
    read = usage.get("cache_read_input_tokens") or 0
    details = usage.get("output_tokens_details") or {}
    return Usage(
        input_chars=request_chars(request),
        output_chars=message_chars(message),
        input_tokens=None if uncached is None else uncached + written + read,
        output_tokens=usage.get("output_tokens"),
        cached_tokens=read,
        reasoning_tokens=details.get("thinking_tokens"),
        estimated_input_tokens=request_tokens(request),
        estimated_output_tokens=message_tokens(message),
        cache_write_tokens=written,
    )
