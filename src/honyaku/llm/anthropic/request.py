"""What Anthropic's Messages API is sent: the system prompt as blocks, tools with their input
schemas, the history as content blocks, and the prompt cache's breakpoints.

Anthropic caches a prompt only where a request asks (a ``cache_control`` breakpoint on a
block, four at most), and a later request reads it only if its prompt, up to one of its own
breakpoints, begins with the same blocks (tools, then system, then messages). A conversation
grows by its replies and their results, so each request marks three places
(``with_breakpoints``):

1. the end of the system prompt (after the tools): what every request of every conversation of
   a job shares;
2. the end of what the previous request sent: the block before the last reply, which that
   request marked as its own last, so this one reads everything it wrote;
3. the end of this request: written now, for the next request to read.

A reply's blocks go back as they came (``REPLAY_KEY``), thinking blocks with their signatures
first, as the API requires of a reply with tool use while thinking is on; a reply another
layer rewrote (the XML protocol, another model's reply in the history) is built again from its
text and calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)

REPLAY_KEY = "anthropic_content"
"""``AssistantMessage.replay`` key: the reply's content blocks as the API sent them."""
CACHE_CONTROL = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
"""Anthropic refuses a request with more ``cache_control`` blocks."""
THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
DEFAULT_MAX_TOKENS = 8192
"""The reply's bound for a model ``MAX_TOKENS`` does not know: every Claude since 3.5 takes it."""
MAX_TOKENS = (
    (re.compile(r"claude-3-(haiku|opus|sonnet)"), 4096),
    (re.compile(r"claude-3-5"), 8192),
    (re.compile(r"claude-(opus-4-[01]|opus-4$|opus-4-2025)"), 32_000),
    (re.compile(r"claude-(3-7|sonnet-4|haiku-4|opus-4)"), 64_000),
)
"""The most a model's reply may hold (``max_tokens``, which Anthropic requires), by name; the
first pattern that matches wins."""


def max_reply_tokens(model: str) -> int:
    """The ``max_tokens`` a request to ``model`` may ask for, as far as honyaku knows."""
    return next((tokens for pattern, tokens in MAX_TOKENS if pattern.search(model)), None) or (
        DEFAULT_MAX_TOKENS
    )


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": dict(tool.parameters) or {"type": "object", "properties": {}},
    }


def request_body(
    request: ChatRequest,
    *,
    model: str,
    max_tokens: int,
    thinking_tokens: int | None = None,
    cache: bool = True,
) -> dict[str, Any]:
    """The body of a Messages request (without ``stream``); ``cache``: with breakpoints."""
    system, messages = wire_messages(request.messages)
    tools = [wire_tool(t) for t in request.tools]
    reply_tokens = request.max_reply_tokens or max_tokens
    body: dict[str, Any] = {"model": model, "max_tokens": reply_tokens, "messages": messages}
    if thinking_tokens:
        # The budget is part of the reply's: the answer needs room beyond it.
        body["max_tokens"] = max(reply_tokens, thinking_tokens + 1024)
        body["thinking"] = {"type": "enabled", "budget_tokens": thinking_tokens}
    if system:
        body["system"] = system
    if tools:
        body["tools"] = tools
    if cache:
        with_breakpoints(body)
    return body


def with_breakpoints(body: dict[str, Any]) -> None:
    """Mark the blocks the module docstring names with ``cache_control``, in place."""
    marks: list[dict[str, Any]] = []
    if body.get("system"):
        marks.append(body["system"][-1])
    elif body.get("tools"):
        marks.append(body["tools"][-1])
    messages = body["messages"]
    replies = [n for n, message in enumerate(messages) if message["role"] == "assistant"]
    if replies and replies[-1] > 0:
        marks.append(messages[replies[-1] - 1]["content"][-1])
    if messages:
        marks.append(messages[-1]["content"][-1])
    unique = {id(block): block for block in marks}
    for block in list(unique.values())[-MAX_BREAKPOINTS:]:
        block["cache_control"] = dict(CACHE_CONTROL)


def wire_messages(messages: Iterable[Message]) -> tuple[list[dict[str, Any]], list[dict]]:
    """The system blocks and the turns, each turn's blocks merged into one message per role
    (tool results and a note after them make one user message, results first)."""
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            if message.text:
                system.append({"type": "text", "text": message.text})
            continue
        role = "assistant" if isinstance(message, AssistantMessage) else "user"
        blocks = _blocks(message)
        if not blocks:
            continue  # a reply with nothing in it (a blocked one) cannot be sent back
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return system, turns


def _blocks(message: Message) -> list[dict[str, Any]]:
    match message:
        case UserMessage(text):
            return [{"type": "text", "text": text}] if text else []
        case ToolResultMessage():
            return [
                {
                    "type": "tool_result",
                    "tool_use_id": message.call_id,
                    "content": message.content or "{}",
                }
            ]
        case AssistantMessage():
            return _reply_blocks(message)
    return []


def _reply_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    """The reply's own blocks where its replay still describes it, else rebuilt."""
    replayed = message.replay.get(REPLAY_KEY)
    if isinstance(replayed, list) and _replay_matches(replayed, message):
        return _with_arguments(replayed, message)
    blocks: list[dict[str, Any]] = []
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    for call in message.tool_calls:
        arguments = (
            {"unreadable_arguments": call.raw_arguments} if call.error else dict(call.arguments)
        )
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
    return blocks


def _replay_matches(blocks: list[dict[str, Any]], message: AssistantMessage) -> bool:
    """Another layer (the XML protocol, a history edit) may have rewritten the message."""
    names = [b.get("name") for b in blocks if b.get("type") == "tool_use"]
    ids = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
    text = "".join(b.get("text") or "" for b in blocks if b.get("type") == "text")
    calls = message.tool_calls
    return (
        names == [c.name for c in calls] and ids == [c.id for c in calls] and (text == message.text)
    )


def _with_arguments(blocks: list[dict[str, Any]], message: AssistantMessage) -> list[dict]:
    """The replayed blocks with each call's input as the message now holds it (a history edit
    may have shortened it); thinking and its signature as they came. Empty text blocks, which
    the API refuses, are left out."""
    arguments = {call.id: call for call in message.tool_calls}
    patched = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and not block.get("text"):
            continue
        if kind == "tool_use" and (call := arguments.get(block.get("id", ""))) is not None:
            given = {"unreadable_arguments": call.raw_arguments} if call.error else call.arguments
            block = {**block, "input": dict(given)}
        patched.append({key: value for key, value in block.items() if key != "cache_control"})
    return patched


def replayed_block(block: Mapping[str, Any]) -> dict[str, Any]:
    """A content block of a reply as it goes back: what the API takes of it, nothing more."""
    kind = block.get("type")
    keep = {
        "text": ("type", "text"),
        "thinking": ("type", "thinking", "signature"),
        "redacted_thinking": ("type", "data"),
        "tool_use": ("type", "id", "name", "input"),
    }.get(str(kind))
    if keep is None:
        return dict(block)
    return {key: block.get(key, "") for key in keep}


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
