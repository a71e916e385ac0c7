"""Reading a streamed Gemini reply: text, thoughts, calls (whole or as ``partialArgs``), usage.

Gemini's filters speak in the reply: ``promptFeedback.blockReason`` when the prompt was
refused (no candidate follows), a finish reason such as ``SAFETY`` or ``PROHIBITED_CONTENT``
when the reply was stopped, and ``blocked: true`` on a safety rating. The assembler notes
them; ``GeminiReplyAssembler.filtered`` reads them as one error.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from google.genai import types

from honyaku.errors import ContentFilteredError
from honyaku.llm.events import ReasoningDelta, TextDelta, Usage
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

REPLAY_KEY = "gemini_parts"
"""``AssistantMessage.replay`` key: the model's parts as JSON, sent back unchanged."""
CALL_ID_PREFIX = "gemini_"

_PATH_STEP = re.compile(
    r"\.([^.\[\]]+)|\[(\d+)\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*\"((?:[^\"\\]|\\.)*)\"\s*\]"
)
MAX_TOKENS = "MAX_TOKENS"
FILTER_FINISH_REASONS = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "LANGUAGE",  # the reply's language is one its checks do not support
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
    }
)
"""The finish reasons Gemini gives a reply one of its checks stopped."""
_FILTER_WORDS = ("SAFETY", "PROHIBITED", "BLOCK", "RECITATION", "ARMOR", "JAILBREAK", "SPII")
"""A finish reason the SDK does not know yet is a filter's if it holds one of these."""
_KNOWN_FINISH_REASONS = frozenset(reason.value for reason in types.FinishReason)


def stopped_by_filter(finish_reason: str) -> bool:
    """Whether Gemini's finish reason says one of its checks stopped the reply; ``OTHER``
    and ``MALFORMED_FUNCTION_CALL`` do not, and are the model's to mend."""
    if finish_reason in _KNOWN_FINISH_REASONS:
        return finish_reason in FILTER_FINISH_REASONS
    return any(word in finish_reason for word in _FILTER_WORDS)


def json_path_steps(path: str) -> list[str | int] | None:
    """``$.operations[1].price`` as ``["operations", 1, "price"]``; ``None`` if unreadable."""
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    position = 1
    while position < len(path):
        match = _PATH_STEP.match(path, position)
        if match is None:
            return None
        name, index, single, double = match.groups()
        steps.append(int(index) if index is not None else name or single or double or "")
        position = match.end()
    return steps


@dataclass
class _Call:
    name: str
    id: str | None = None
    signature: bytes | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    growing: set[str] = field(default_factory=set)
    """JSON paths whose string value is still streaming."""
    open: bool = True
    unreadable: str | None = None

    def add(self, call: types.FunctionCall) -> None:
        self.id = self.id or call.id
        if call.args:
            self.arguments |= call.args
        for piece in call.partial_args or ():
            self._add_partial(piece)
        self.open = bool(call.will_continue)

    def _add_partial(self, piece: types.PartialArg) -> None:
        path = piece.json_path or ""
        steps = json_path_steps(path)
        try:
            if not steps:
                raise ValueError(path)
            self._set(piece, path, steps)
        except (ValueError, TypeError, KeyError, IndexError):
            self.unreadable = f"the arguments Gemini streamed could not be assembled at {path!r}"

    def _set(self, piece: types.PartialArg, path: str, steps: list[str | int]) -> None:
        if piece.string_value is not None:
            # A long string comes in pieces, each but the last marked ``willContinue``.
            grown = _value_at(self.arguments, steps) if path in self.growing else ""
            _set_at(self.arguments, steps, grown + piece.string_value)
            (self.growing.add if piece.will_continue else self.growing.discard)(path)
        elif piece.number_value is not None:
            number = piece.number_value
            _set_at(self.arguments, steps, int(number) if number.is_integer() else number)
        elif piece.bool_value is not None:
            _set_at(self.arguments, steps, piece.bool_value)
        elif piece.null_value is not None:
            _set_at(self.arguments, steps, None)


def _value_at(root: Any, steps: list[str | int]) -> Any:
    for step in steps:
        root = root[step]
    return root


def _set_at(root: dict[str, Any], steps: list[str | int], value: Any) -> None:
    """Set a value at a JSON path, making the objects and arrays on the way."""
    container: Any = root
    for step, following in itertools.pairwise(steps):
        container = _slot(container, step, [] if isinstance(following, int) else {})
    if isinstance(steps[-1], int):
        _slot(container, steps[-1], None)
    container[steps[-1]] = value


def _slot(container: Any, step: str | int, empty: Any) -> Any:
    if isinstance(step, int):
        container.extend([None] * (step + 1 - len(container)))
        if container[step] is None:
            container[step] = empty
        return container[step]
    if container.get(step) is None:
        container[step] = empty
    return container[step]


@dataclass
class _TextRun:
    """Consecutive text of one kind, merged as one part (a non-streamed reply has one)."""

    thought: bool
    pieces: list[str] = field(default_factory=list)
    signature: bytes | None = None

    def part(self) -> types.Part | None:
        text = "".join(self.pieces)
        if not text and self.signature is None:
            return None
        return types.Part(text=text, thought=self.thought or None, thought_signature=self.signature)


@dataclass
class GeminiReplyAssembler:
    """Feed it every chunk of one reply; it yields display deltas and builds the message."""

    turn: int
    finish_reason: str | None = None
    usage: types.GenerateContentResponseUsageMetadata | None = None
    chunks: int = 0
    block_reason: str | None = None
    """Why Gemini refused the prompt, where it did (``promptFeedback.blockReason``)."""
    block_message: str | None = None
    """What it said of it, in words (``blockReasonMessage``, or a candidate's
    ``finishMessage``)."""
    blocked_categories: list[str] = field(default_factory=list)
    """The harm categories whose safety rating says ``blocked``."""
    _parts: list[types.Part | _Call] = field(default_factory=list)
    _run: _TextRun | None = None
    _call: _Call | None = None

    def add_chunk(self, chunk: types.GenerateContentResponse) -> list[TextDelta | ReasoningDelta]:
        self.chunks += 1
        self.usage = chunk.usage_metadata or self.usage
        feedback = chunk.prompt_feedback
        if feedback is not None:
            if feedback.block_reason is not None:
                self.block_reason = _raw(feedback.block_reason)
                self.block_message = feedback.block_reason_message or self.block_message
            self._note_blocked(feedback.safety_ratings)
        events: list[TextDelta | ReasoningDelta] = []
        for candidate in (chunk.candidates or ())[:1]:
            if candidate.finish_reason is not None:
                self.finish_reason = _raw(candidate.finish_reason)
                self.block_message = candidate.finish_message or self.block_message
            self._note_blocked(candidate.safety_ratings)
            for part in (candidate.content.parts if candidate.content else None) or ():
                events.extend(self._add_part(part))
        return events

    def _note_blocked(self, ratings: list[types.SafetyRating] | None) -> None:
        for rating in ratings or ():
            category = _raw(rating.category or types.HarmCategory.HARM_CATEGORY_UNSPECIFIED)
            if rating.blocked and category not in self.blocked_categories:
                self.blocked_categories.append(category)

    def filtered(self) -> ContentFilteredError | None:
        """The error for a prompt or a reply one of Gemini's checks refused, if one did."""
        categories = self.blocked_categories
        if self.block_reason is not None:
            return ContentFilteredError(
                self.block_reason, categories=categories, said=self.block_message, prompt=True
            )
        reason = self.finish_reason
        if (reason is not None and stopped_by_filter(reason)) or categories:
            return ContentFilteredError(
                reason or "SAFETY", categories=categories, said=self.block_message
            )
        return None

    def _add_part(self, part: types.Part) -> list[TextDelta | ReasoningDelta]:
        if part.function_call is not None:
            self._add_call_part(part)
            return []
        if part.text is None and part.thought_signature is None:
            self._end_text_run()
            self._end_call()
            self._parts.append(part)  # images, code: kept to go back, never shown
            return []
        return self._add_text_part(part)

    def _add_text_part(self, part: types.Part) -> list[TextDelta | ReasoningDelta]:
        self._end_call()
        thought = bool(part.thought)
        run = self._run
        if run is None or run.thought != thought or run.signature is not None:
            self._end_text_run()
            run = self._run = _TextRun(thought)
        text = part.text or ""
        run.pieces.append(text)
        run.signature = part.thought_signature or run.signature
        if not text:
            return []
        return [ReasoningDelta(text) if thought else TextDelta(text)]

    def _add_call_part(self, part: types.Part) -> None:
        self._end_text_run()
        call = part.function_call
        assert call is not None
        if call.name and self._call is not None and self._call.name:
            self._end_call()  # a new call while the last was still open: that one is done
        if self._call is None:
            if not (call.name or call.args or call.partial_args):
                return  # a closing ``functionCall: {}`` with nothing open
            self._call = _Call(call.name or "", signature=part.thought_signature)
        self._call.signature = self._call.signature or part.thought_signature
        self._call.add(call)
        if not self._call.open:
            self._end_call()

    def _end_text_run(self) -> None:
        if self._run is not None and (part := self._run.part()) is not None:
            self._parts.append(part)
        self._run = None

    def _end_call(self) -> None:
        if self._call is not None:
            self._parts.append(self._call)
        self._call = None

    def message(self) -> AssistantMessage:
        """The finished reply, with its parts kept for the next request."""
        self._end_text_run()
        self._end_call()
        calls = [p for p in self._parts if isinstance(p, _Call)]
        tool_calls = tuple(self._tool_call(call, n) for n, call in enumerate(calls))
        parts = [p if isinstance(p, types.Part) else _call_part(p) for p in self._parts]
        return AssistantMessage(
            text=_text_of(parts, thought=False),
            tool_calls=tool_calls,
            reasoning=_text_of(parts, thought=True) or None,
            replay={REPLAY_KEY: [p.model_dump(mode="json", exclude_none=True) for p in parts]},
        )

    def _tool_call(self, call: _Call, n: int) -> ToolCall:
        raw = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
        call_id = call.id or f"{CALL_ID_PREFIX}{self.turn}_{n}"
        error = None
        if call.unreadable:
            error = ToolCallError("INVALID_PARAMETER", call.unreadable)
        elif self.finish_reason == MAX_TOKENS and (call.open or call.growing):
            error = CUT_BY_OUTPUT_LIMIT
        return ToolCall(call_id, call.name, call.arguments, raw, error)


def _call_part(call: _Call) -> types.Part:
    function_call = types.FunctionCall(id=call.id, name=call.name, args=call.arguments)
    return types.Part(function_call=function_call, thought_signature=call.signature)


def _text_of(parts: Iterable[types.Part], *, thought: bool) -> str:
    return "".join(p.text or "" for p in parts if bool(p.thought) == thought)


def _raw(value: Any) -> str:
    """Gemini's own word (``STOP``, ``MAX_TOKENS``), whether the SDK knew it as an enum or not."""
    return str(getattr(value, "value", value))


def gemini_usage(
    request: ChatRequest,
    message: AssistantMessage,
    usage: types.GenerateContentResponseUsageMetadata | None,
) -> Usage:
    output_tokens = None
    counts = (usage.candidates_token_count, usage.thoughts_token_count) if usage else ()
    if any(count is not None for count in counts):
        output_tokens = sum(count or 0 for count in counts)  # thinking is billed as output
    return Usage(
        input_chars=request_chars(request),
        output_chars=message_chars(message),
        input_tokens=usage.prompt_token_count if usage else None,
        output_tokens=output_tokens,
        cached_tokens=usage.cached_content_token_count if usage else None,
        reasoning_tokens=usage.thoughts_token_count if usage else None,
        estimated_input_tokens=request_tokens(request),
        estimated_output_tokens=message_tokens(message),
    )
