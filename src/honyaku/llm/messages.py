"""Provider-neutral conversation types: what the loop sends and what a provider answers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from honyaku.domain.tokens import SCRIPT_RATIO, TokenCounter


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as a model sees it: name, description and a JSON schema with no ``$ref``."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCallError:
    """Why a call could not even be read (bad JSON, unclosed XML block); it is never run."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any]
    raw_arguments: str = ""
    """The arguments as the model wrote them, sent back verbatim in the history."""
    error: ToolCallError | None = None


@dataclass(frozen=True, slots=True)
class SystemMessage:
    text: str


@dataclass(frozen=True, slots=True)
class UserMessage:
    text: str


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    text: str = ""
    """What the reader sees: never a tool block."""
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str | None = None
    replay: Mapping[str, Any] = field(default_factory=dict)
    """Provider data that must go back unchanged next turn (raw XML text, thought signatures)."""


AS_WRITTEN = "as_written"
"""``AssistantMessage.replay`` key for the reply exactly as the model wrote it, calls and all
(the XML protocol's text): sent back as it is, until its calls are rewritten."""


def with_arguments(
    message: AssistantMessage, arguments: Mapping[str, Mapping[str, Any]]
) -> AssistantMessage:
    """``message`` with the calls ``arguments`` names (by id) holding those arguments instead:
    what is sent back of them from now on. A reply kept as written is sent as its calls."""
    calls = tuple(
        replace(call, arguments=arguments[call.id], raw_arguments=_compact(arguments[call.id]))
        if call.id in arguments
        else call
        for call in message.tool_calls
    )
    replay = {key: value for key, value in message.replay.items() if key != AS_WRITTEN}
    return replace(message, tool_calls=calls, replay=replay)


def _compact(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    call_id: str
    name: str
    content: str
    """The result as JSON text."""


Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True, slots=True)
class ChatRequest:
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    raw_text: bool = False
    """Hand the reply's text over as written, think tags and all: the caller (the XML
    protocol) reads them itself, because only it knows which ones sit inside a tool value."""
    max_reply_tokens: int | None = None
    """The most the reply may take: what the server's window holds beyond the prompt."""

    @property
    def turn(self) -> int:
        """How many replies the model has given so far; stable ids are made from it."""
        return sum(isinstance(m, AssistantMessage) for m in self.messages)


CUT_BY_OUTPUT_LIMIT = ToolCallError(
    "INVALID_PARAMETER",
    "the reply reached the output token limit before these arguments were complete; "
    "nothing was run. Send fewer paragraphs per call.",
)


def request_chars(request: ChatRequest) -> int:
    """Characters a request puts on the wire: its messages and its tool schemas."""
    return sum(len(part) for part in _request_parts(request))


def request_tokens(request: ChatRequest, counter: TokenCounter = SCRIPT_RATIO) -> int:
    """Tokens a request costs by honyaku's count (the model's tokenizer, or the per-script
    ratio), to set beside what the provider reports."""
    return round(sum(counter.count(part) for part in _request_parts(request)))


def message_chars(message: Message) -> int:
    """Characters a message puts on the wire, for counting cost where no usage is reported."""
    return len(_message_text(message))


def message_tokens(message: Message, counter: TokenCounter = SCRIPT_RATIO) -> int:
    return round(counter.count(_message_text(message)))


def tool_text(tool: ToolSpec) -> str:
    """A tool as honyaku counts it: its name, description and schema."""
    return tool.name + tool.description + json.dumps(tool.parameters, ensure_ascii=False)


def call_text(call: ToolCall) -> str:
    """A call as honyaku counts it: its name and arguments as written."""
    return call.name + call.raw_arguments


def _request_parts(request: ChatRequest) -> list[str]:
    return [_message_text(m) for m in request.messages] + [tool_text(t) for t in request.tools]


def _message_text(message: Message) -> str:
    match message:
        case SystemMessage(text) | UserMessage(text):
            return text
        case AssistantMessage():
            calls = "".join(call_text(c) for c in message.tool_calls)
            return message.text + (message.reasoning or "") + calls
        case ToolResultMessage():
            return message.content


def message_record(message: Message) -> dict[str, Any]:
    """A message as JSON, to keep a conversation that outlives its process."""
    match message:
        case SystemMessage(text):
            return {"role": "system", "text": text}
        case UserMessage(text):
            return {"role": "user", "text": text}
        case ToolResultMessage(call_id, name, content):
            return {"role": "tool", "call_id": call_id, "name": name, "content": content}
    assert isinstance(message, AssistantMessage)
    return {
        "role": "assistant",
        "text": message.text,
        "reasoning": message.reasoning,
        "replay": dict(message.replay),
        "tool_calls": [
            {
                "id": c.id,
                "name": c.name,
                "arguments": dict(c.arguments),
                "raw_arguments": c.raw_arguments,
                "error": None if c.error is None else [c.error.code, c.error.message],
            }
            for c in message.tool_calls
        ],
    }


def message_from_record(record: Mapping[str, Any]) -> Message:
    """The message ``message_record`` kept."""
    match record["role"]:
        case "system":
            return SystemMessage(record["text"])
        case "user":
            return UserMessage(record["text"])
        case "tool":
            return ToolResultMessage(record["call_id"], record["name"], record["content"])
    calls = tuple(
        ToolCall(
            c["id"],
            c["name"],
            c["arguments"],
            c["raw_arguments"],
            None if c["error"] is None else ToolCallError(*c["error"]),
        )
        for c in record["tool_calls"]
    )
    return AssistantMessage(record["text"], calls, record["reasoning"], record["replay"])
