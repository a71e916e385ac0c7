"""A Chat Completions conversation as the demo model reads it: wire messages to turns.

Native tool calls and XML blocks in the text are both read, and tool results come either as
``tool`` messages or as ``<tool_result>`` blocks in a user message, so one reader serves a
model spoken to natively and one spoken to through the XML protocol.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from honyaku.llm.demo.translator import arguments_json
from honyaku.llm.demo.turns import FakeCall, Reply, Turn

_XML_CALL = re.compile(r"<invoke name=\"([^\"]+)\">(.*?)</invoke>", re.S)
_XML_PARAMETER = re.compile(r"<parameter name=\"([^\"]+)\">(.*?)</parameter>", re.S)
_XML_RESULT = re.compile(r"<tool_result name=\"[^\"]*\">(.*?)</tool_result>", re.S)


def read_conversation(messages: Sequence[dict[str, Any]]) -> tuple[str, list[Turn]]:
    """The system prompt and the turns after it."""
    system = "".join(_text(m) for m in messages if m.get("role") == "system")
    turns: list[Turn] = []
    results: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            results.append(_json_object(_text(message)))
            continue
        if results:
            turns.append(Turn("tool", results=tuple(results)))
            results = []
        if role == "assistant":
            turns.append(Turn("assistant", _text(message), _calls(message)))
        elif role == "user":
            turns.append(_user_turn(_text(message)))
    if results:
        turns.append(Turn("tool", results=tuple(results)))
    return system, turns


def render_xml_call(call: FakeCall) -> str:
    parameters = "".join(
        f'<parameter name="{name}">'
        f"{value if isinstance(value, str) else arguments_json(value)}"
        "</parameter>\n"
        for name, value in call.arguments.items()
    )
    return f'<tool_use>\n<invoke name="{call.name}">\n{parameters}</invoke>\n</tool_use>\n'


def reply_text(reply: Reply, *, xml: bool) -> str:
    """The reply's text; spoken to through the XML protocol, its calls are written in it."""
    if not xml:
        return reply.text
    blocks = "".join(render_xml_call(call) for call in reply.calls)
    return f"{reply.text}\n{blocks}" if reply.text and blocks else reply.text + blocks


def _user_turn(text: str) -> Turn:
    xml_results = _XML_RESULT.findall(text)
    if xml_results:
        return Turn("tool", results=tuple(_json_object(r) for r in xml_results))
    return Turn("user", text)


def _calls(message: dict[str, Any]) -> tuple[FakeCall, ...]:
    native = [
        FakeCall(c["function"]["name"], _json_object(c["function"].get("arguments") or "{}"))
        for c in message.get("tool_calls") or ()
    ]
    xml = [
        FakeCall(name, {p: _xml_value(v) for p, v in _XML_PARAMETER.findall(inner)})
        for name, inner in _XML_CALL.findall(_text(message))
    ]
    return tuple(native + xml)


def _xml_value(value: str) -> Any:
    value = value.strip("\n")
    if value[:1] in "[{":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
