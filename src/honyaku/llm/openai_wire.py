"""honyaku's neutral messages and tools in the Chat Completions wire format.

A reply's reasoning goes back only where the server asks for it (``replay_reasoning``; see
``openai_compat``), exactly as it came, in the field it came in.
"""

from __future__ import annotations

import json
from typing import Any

from honyaku.llm.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from honyaku.llm.openai_stream import REASONING_FIELDS


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": dict(tool.parameters),
        },
    }


def wire_message(message: Message, *, replay_reasoning: bool = False) -> dict[str, Any]:
    """A message as Chat Completions takes it; ``replay_reasoning``: see the module docstring."""
    match message:
        case SystemMessage(text):
            return {"role": "system", "content": text}
        case UserMessage(text):
            return {"role": "user", "content": text}
        case ToolResultMessage():
            return {"role": "tool", "tool_call_id": message.call_id, "content": message.content}
        case AssistantMessage():
            return _wire_assistant(message, replay_reasoning)


def _wire_assistant(message: AssistantMessage, replay_reasoning: bool) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": "assistant", "content": message.text}
    if message.tool_calls:
        wire["content"] = message.text or None
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                # Servers that re-parse the history reject broken JSON, so a call that could
                # not be read goes back wrapped; the model still sees what it wrote.
                "function": {
                    "name": call.name,
                    "arguments": json.dumps({"unreadable_arguments": call.raw_arguments})
                    if call.error
                    else call.raw_arguments or "{}",
                },
            }
            for call in message.tool_calls
        ]
    if replay_reasoning:
        for name in REASONING_FIELDS:
            if isinstance(reasoning := message.replay.get(name), str):
                wire[name] = reasoning
    return wire
