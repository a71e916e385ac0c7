"""Assembling a streamed Chat Completions reply from its chunks, as real servers send them.

The SDK's own accumulator trusts the wire more than servers deserve: it indexes tool calls by
list position (Claude gateways start at index 1), drops content sent as a list of parts
(Mistral's thinking), and has no notion of ``reasoning_content``. This module reads each chunk
defensively and keys tool calls by their index value, their id, or their order of arrival.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from honyaku.llm.events import ReasoningDelta, TextDelta
from honyaku.llm.messages import CUT_BY_OUTPUT_LIMIT, AssistantMessage, ToolCall, ToolCallError

REASONING_FIELDS = ("reasoning_content", "reasoning")
DONE = "[DONE]"


async def sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """The ``data`` of each server-sent event, up to ``[DONE]``.

    Reading the events ourselves, with one ``json.loads`` each, costs a tenth of letting the
    SDK build a model per chunk, and servers send a chunk per token.
    """
    data: list[str] = []
    async for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:
            event = "\n".join(data)
            if event == DONE:
                return
            yield event
            data = []
    if data and (event := "\n".join(data)) != DONE:
        yield event


def field_of(obj: Any, name: str) -> Any:
    """A field of an SDK model or of a plain dict (servers send shapes the SDK does not know)."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


@dataclass
class _PartialCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class ReplyAssembler:
    """Feed it every chunk of one reply; it yields display deltas and builds the message."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    reasoning_field: str | None = None
    finish_reason: str | None = None
    usage: Any = None
    chunks: int = 0
    _calls: dict[Any, _PartialCall] = field(default_factory=dict)
    _last_key: Any = None

    def add_chunk(self, chunk: Any) -> list[TextDelta | ReasoningDelta]:
        self.chunks += 1
        if (usage := field_of(chunk, "usage")) is not None:
            self.usage = usage
        events: list[TextDelta | ReasoningDelta] = []
        for choice in field_of(chunk, "choices") or ():
            if (reason := field_of(choice, "finish_reason")) is not None:
                self.finish_reason = reason
            delta = field_of(choice, "delta") or field_of(choice, "message")
            if delta is not None:
                events.extend(self._add_delta(delta))
        return events

    def _add_delta(self, delta: Any) -> list[TextDelta | ReasoningDelta]:
        events: list[TextDelta | ReasoningDelta] = []
        for name in REASONING_FIELDS:
            if isinstance(piece := field_of(delta, name), str) and piece:
                self.reasoning_field = name
                events.append(self._add_reasoning(piece))
        content = field_of(delta, "content")
        if isinstance(content, str) and content:
            self.text.append(content)
            events.append(TextDelta(content))
        elif isinstance(content, list):
            events.extend(self._add_content_parts(content))
        for call in field_of(delta, "tool_calls") or ():
            self._add_call_delta(call)
        return events

    def _add_reasoning(self, piece: str) -> ReasoningDelta:
        self.reasoning.append(piece)
        return ReasoningDelta(piece)

    def _add_content_parts(self, parts: list[Any]) -> list[TextDelta | ReasoningDelta]:
        events: list[TextDelta | ReasoningDelta] = []
        for part in parts:
            kind = field_of(part, "type")
            if kind == "text" and (piece := field_of(part, "text")):
                self.text.append(piece)
                events.append(TextDelta(piece))
            elif kind == "thinking":
                for inner in field_of(part, "thinking") or ():
                    if piece := field_of(inner, "text"):
                        events.append(self._add_reasoning(piece))
        return events

    def _add_call_delta(self, call: Any) -> None:
        call_id = field_of(call, "id")
        function = field_of(call, "function")
        name = field_of(function, "name")
        key = self._key_for(field_of(call, "index"), call_id)
        partial = self._calls.setdefault(key, _PartialCall())
        self._last_key = key
        partial.id = partial.id or call_id
        partial.name = partial.name or name or ""
        arguments = field_of(function, "arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments, ensure_ascii=False)
        if arguments:
            partial.arguments.append(arguments)

    def _key_for(self, index: Any, call_id: str | None) -> Any:
        if index is not None:
            return index
        unseen = call_id and call_id not in {c.id for c in self._calls.values()}
        if unseen or self._last_key is None:
            return ("arrival", len(self._calls))
        return self._last_key

    def message(self, turn: int) -> AssistantMessage:
        """The finished reply. ``turn`` makes synthesized call ids stable."""
        calls = tuple(
            _finish_call(partial, f"call_{turn}_{n}", cut=self.finish_reason == "length")
            for n, partial in enumerate(self._calls.values())
        )
        replay = {"reasoning_field": self.reasoning_field} if self.reasoning_field else {}
        return AssistantMessage(
            text="".join(self.text),
            tool_calls=calls,
            reasoning="".join(self.reasoning) or None,
            replay=replay,
        )


def _finish_call(partial: _PartialCall, fallback_id: str, *, cut: bool) -> ToolCall:
    raw = "".join(partial.arguments)
    call_id = partial.id or fallback_id
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        return ToolCall(call_id, partial.name, {}, raw, _bad_json(exc, cut=cut))
    if not isinstance(arguments, dict):
        error = ToolCallError("INVALID_PARAMETER", "arguments must be a JSON object")
        return ToolCall(call_id, partial.name, {}, raw, error)
    return ToolCall(call_id, partial.name, arguments, raw or "{}")


def _bad_json(exc: json.JSONDecodeError, *, cut: bool) -> ToolCallError:
    if cut:
        return CUT_BY_OUTPUT_LIMIT
    return ToolCallError(
        "INVALID_PARAMETER", f"arguments are not valid JSON ({exc.msg}, char {exc.pos})"
    )
