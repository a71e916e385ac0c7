"""Assembling a streamed Chat Completions reply from its chunks, as real servers send them.

The SDK's own accumulator trusts the wire more than servers deserve: it indexes tool calls by
list position (Claude gateways start at index 1), drops content sent as a list of parts
(Mistral's thinking), and has no notion of ``reasoning_content``. This module reads each chunk
defensively and keys tool calls by their index value, their id, or their order of arrival.

Reasoning comes three ways: in a field of its own (``reasoning_content``, or ``reasoning``;
a server that sends both gets counted once), as ``thinking`` parts, or, from servers without
a reasoning parser, as ``<think>…</think>`` in ``content``, split off by
``honyaku.llm.reasoning`` (a reply that ends inside it is cut). A server whose tool parser
reads the thinking too streams the calls drafted there as real ones: a call that starts while
``content`` is inside reasoning, or before a closer that shows the reply began inside it, is a
draft and is dropped. (A reply that is not streamed carries no such order: its calls all
count.) The field's reasoning is kept in ``replay`` exactly as it came, for the servers that
want it back.

A provider's filter speaks in the reply itself: ``finish_reason: "content_filter"`` (OpenAI,
Azure, and gateways mapping others' filters to it) or ``"sensitive"`` (Zhipu's GLM), Azure's
``content_filter_results`` marked ``filtered: true`` on a choice or in the
``prompt_filter_results`` of the first chunk, and a ``refusal`` field in place of the content
(OpenAI's structured outputs). ``ReplyAssembler.filtered`` reads them as one error.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from honyaku.errors import ContentFilteredError
from honyaku.llm.events import ArgumentsDelta, CallStreaming, ReasoningDelta, TextDelta
from honyaku.llm.http_errors import filtered_categories
from honyaku.llm.messages import CUT_BY_OUTPUT_LIMIT, AssistantMessage, ToolCall, ToolCallError
from honyaku.llm.reasoning import (
    BeganInReasoning,
    ReasoningSplitter,
    ReplyOpening,
    ReplySplit,
    SplitEvent,
)

AssemblerEvent = TextDelta | ReasoningDelta | CallStreaming | ArgumentsDelta

REASONING_FIELDS = ("reasoning_content", "reasoning")
DONE = "[DONE]"
FILTER_FINISH_REASONS = frozenset({"content_filter", "sensitive"})
"""Finish reasons that say a provider's filter stopped the reply."""


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
    drafted: bool = False
    """Begun while the content was reasoning: a draft, never run."""
    announced: bool = False
    """A ``CallStreaming`` went out for it."""


@dataclass
class ReplyAssembler:
    """Feed it every chunk of one reply; it yields display deltas and builds the message.

    With an ``opening``, ``<think>`` blocks are split out of the content (see the module
    docstring); without, the content is kept as written. ``finish`` ends the reply.
    """

    opening: ReplyOpening | None = None
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    reasoning_fields: dict[str, list[str]] = field(default_factory=dict)
    """Each reasoning field's text as it came, to go back unchanged where a server wants it."""
    finish_reason: str | None = None
    usage: Any = None
    chunks: int = 0
    heard: bool = False
    """Some of the reply's content (text, reasoning, a call) has come, not only its role."""
    refusal: list[str] = field(default_factory=list)
    """The ``refusal`` field's text: the model declined instead of answering."""
    filtered_reply: list[str] = field(default_factory=list)
    """The categories a provider's filter marked ``filtered`` in the reply."""
    filtered_prompt: list[str] = field(default_factory=list)
    """The categories it marked ``filtered`` in the prompt."""
    _calls: dict[Any, _PartialCall] = field(default_factory=dict)
    _last_key: Any = None
    _split: ReplySplit | None = None
    _splitter: ReasoningSplitter | None = None

    def __post_init__(self) -> None:
        if self.opening is not None:
            self._split = ReplySplit(self.opening)
            self._splitter = ReasoningSplitter(inside=self._split.inside)

    def add_chunk(self, chunk: Any) -> list[AssemblerEvent]:
        self.chunks += 1
        if (usage := field_of(chunk, "usage")) is not None:
            self.usage = usage
        for prompt in field_of(chunk, "prompt_filter_results") or ():
            self.filtered_prompt += filtered_categories(field_of(prompt, "content_filter_results"))
        events: list[AssemblerEvent] = []
        for choice in field_of(chunk, "choices") or ():
            if (reason := field_of(choice, "finish_reason")) is not None:
                self.finish_reason = reason
            self.filtered_reply += filtered_categories(field_of(choice, "content_filter_results"))
            delta = field_of(choice, "delta") or field_of(choice, "message")
            if delta is not None:
                events.extend(self._add_delta(delta))
        return events

    def _add_delta(self, delta: Any) -> list[AssemblerEvent]:
        events: list[AssemblerEvent] = []
        pieces = [(name, field_of(delta, name)) for name in REASONING_FIELDS]
        pieces = [(name, piece) for name, piece in pieces if isinstance(piece, str) and piece]
        for name, piece in pieces:
            self.reasoning_fields.setdefault(name, []).append(piece)
        if pieces:  # servers in transition send the same text in both fields
            events.append(self._add_reasoning(pieces[0][1]))
        if isinstance(refusal := field_of(delta, "refusal"), str):
            self.refusal.append(refusal)
        content = field_of(delta, "content")
        calls = field_of(delta, "tool_calls") or ()
        self.heard = self.heard or bool(pieces or content or calls or refusal)
        if isinstance(content, str) and content:
            events.extend(self._add_content(content))
        elif isinstance(content, list):
            events.extend(self._add_content_parts(content))
        for call in calls:
            events.extend(self._add_call_delta(call))
        return events

    def _add_content(self, piece: str) -> list[TextDelta | ReasoningDelta]:
        if self._split is None or self._splitter is None:
            self.text.append(piece)
            return [TextDelta(piece)]
        return self._take_split(self._splitter.feed(piece))

    def _take_split(self, events: list[SplitEvent]) -> list[TextDelta | ReasoningDelta]:
        assert self._split is not None
        deltas: list[TextDelta | ReasoningDelta] = []
        for event in events:
            if isinstance(event, BeganInReasoning):
                for partial in self._calls.values():
                    partial.drafted = True
            deltas += self._split.take(event)
        return deltas

    def finish(self) -> list[TextDelta | ReasoningDelta | CallStreaming]:
        """The deltas held back to the end of the reply; raises ``CutStreamError`` if the
        content ended inside reasoning."""
        if self._split is None or self._splitter is None:
            return []
        held: list[TextDelta | ReasoningDelta | CallStreaming] = []
        held += self._take_split(self._splitter.close()) + self._split.finish()
        return held + self._announced()

    def _announced(self) -> list[CallStreaming]:
        """A ``CallStreaming`` for each named call not yet announced, once the reply is known
        not to be reasoning (drafts are never announced)."""
        if self._split is not None and self._split.holding:
            return []
        events = []
        for partial in self._calls.values():
            if partial.name and not partial.drafted and not partial.announced:
                index = sum(1 for c in self._calls.values() if c.announced)
                events.append(CallStreaming(index, partial.name))
                partial.announced = True
        return events

    def _add_reasoning(self, piece: str) -> ReasoningDelta:
        self.reasoning.append(piece)
        return ReasoningDelta(piece)

    def _add_content_parts(self, parts: list[Any]) -> list[TextDelta | ReasoningDelta]:
        events: list[TextDelta | ReasoningDelta] = []
        for part in parts:
            kind = field_of(part, "type")
            if kind == "text" and (piece := field_of(part, "text")):
                events.extend(self._add_content(piece))
            elif kind == "thinking":
                for inner in field_of(part, "thinking") or ():
                    if piece := field_of(inner, "text"):
                        events.append(self._add_reasoning(piece))
        return events

    def _add_call_delta(self, call: Any) -> list[CallStreaming | ArgumentsDelta]:
        """Take a piece of a call: a ``CallStreaming`` when it is the piece that names it, an
        ``ArgumentsDelta`` for the arguments it carries."""
        call_id = field_of(call, "id")
        function = field_of(call, "function")
        name = field_of(function, "name")
        key = self._key_for(field_of(call, "index"), call_id)
        if key not in self._calls:
            drafting = self._splitter is not None and self._splitter.in_reasoning
            self._calls[key] = _PartialCall(drafted=drafting)
        partial = self._calls[key]
        self._last_key = key
        partial.id = partial.id or call_id
        partial.name = partial.name or name or ""
        events: list[CallStreaming | ArgumentsDelta] = [*self._announced()]
        arguments = field_of(function, "arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments, ensure_ascii=False)
        if isinstance(arguments, str) and arguments:
            partial.arguments.append(arguments)
            events.append(ArgumentsDelta(arguments))
        return events

    def _key_for(self, index: Any, call_id: str | None) -> Any:
        if index is not None:
            return index
        unseen = call_id and call_id not in {c.id for c in self._calls.values()}
        if unseen or self._last_key is None:
            return ("arrival", len(self._calls))
        return self._last_key

    def filtered(self) -> ContentFilteredError | None:
        """The error for a reply a provider's filter refused or cut, if one did."""
        refusal = "".join(self.refusal).strip() or None
        categories = list(dict.fromkeys(self.filtered_prompt + self.filtered_reply))
        if self.finish_reason in FILTER_FINISH_REASONS:
            reason = self.finish_reason
        elif categories:
            reason = "content_filter"
        elif refusal is not None:
            reason = "refusal"
        else:
            return None
        prompt = bool(self.filtered_prompt) and not self.filtered_reply
        return ContentFilteredError(reason, categories=categories, said=refusal, prompt=prompt)

    def message(self, turn: int) -> AssistantMessage:
        """The finished reply. ``turn`` makes synthesized call ids stable."""
        calls = tuple(
            _finish_call(partial, f"call_{turn}_{n}", cut=self.finish_reason == "length")
            for n, partial in enumerate(self._calls.values())
            if not partial.drafted
        )
        replay = {name: "".join(pieces) for name, pieces in self.reasoning_fields.items()}
        text, reasoning = "".join(self.text), "".join(self.reasoning)
        if self._split is not None:
            text, reasoning = self._split.answer, reasoning + self._split.reasoning
        return AssistantMessage(
            text=text, tool_calls=calls, reasoning=reasoning or None, replay=replay
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
