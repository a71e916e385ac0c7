"""What Gemini is sent: function declarations in its Schema subset, the history as contents,
and the loosest safety settings the model takes.

Books are full of fights, crimes and love scenes, which Gemini's adjustable filters block at
their default thresholds; a translation needs them all. So every request turns each adjustable
filter off (``OFF``), or to ``BLOCK_NONE`` where the model refuses ``OFF``: Gemini 1.x, 2.0 and
the early experimental models, and the civic integrity category on every model. Gemini's
built-in protections (``PROHIBITED_CONTENT``, ``SPII``…) cannot be turned off; what they
refuse arrives as ``ContentFilteredError``.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.genai import types

from honyaku.llm.gemini.reply import REPLAY_KEY
from honyaku.llm.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)

FOREIGN_SIGNATURE = base64.urlsafe_b64decode("skip_thought_signature_validator")
"""Gemini's documented signature for calls it did not write (history from another model)."""

ADJUSTABLE_HARMS = (
    types.HarmCategory.HARM_CATEGORY_HARASSMENT,
    types.HarmCategory.HARM_CATEGORY_HATE_SPEECH,
    types.HarmCategory.HARM_CATEGORY_SEXUALLY_EXPLICIT,
    types.HarmCategory.HARM_CATEGORY_DANGEROUS_CONTENT,
)
"""The categories whose filter a request may turn off. The image ones are refused by text
models, and the jailbreak one by the Gemini API (it is Vertex's)."""
_REFUSES_OFF = re.compile(r"gemini-(1\.|2\.0|exp)|gemini-pro$|learnlm")
"""Models that answer ``OFF`` with a 400 and take ``BLOCK_NONE`` instead."""


def safety_settings(model: str) -> list[types.SafetySetting]:
    """The loosest safety settings ``model`` accepts, one for each adjustable category."""
    loosest = (
        types.HarmBlockThreshold.BLOCK_NONE
        if _REFUSES_OFF.search(model)
        else types.HarmBlockThreshold.OFF
    )
    settings = [types.SafetySetting(category=c, threshold=loosest) for c in ADJUSTABLE_HARMS]
    # Civic integrity refuses OFF ("threshold cannot be 5") where it is not already the default.
    civic = types.HarmCategory.HARM_CATEGORY_CIVIC_INTEGRITY
    settings.append(
        types.SafetySetting(category=civic, threshold=types.HarmBlockThreshold.BLOCK_NONE)
    )
    return settings


def function_declaration(tool: ToolSpec) -> types.FunctionDeclaration:
    """A tool as Gemini declares it; a tool without parameters declares none (Gemini refuses
    an ``OBJECT`` without properties)."""
    schema = gemini_schema(tool.parameters) if tool.parameters.get("properties") else None
    parameters = types.Schema.model_validate(schema) if schema is not None else None
    return types.FunctionDeclaration(
        name=tool.name, description=tool.description, parameters=parameters
    )


_TYPE_NAMES = {"string", "number", "integer", "boolean", "array", "object"}
_FORMATS = {
    "STRING": {"enum", "date-time"},
    "INTEGER": {"int32", "int64"},
    "NUMBER": {"float", "double"},
}
"""The only formats Gemini accepts, by type; it refuses ``uri``, ``email``, ``uuid``…"""
_KEPT_KEYWORDS = (
    "description",
    "title",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "required",
    "propertyOrdering",
)


def gemini_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON schema (``$ref``-free, as ``inline_schema`` makes it) in Gemini's subset.

    ``anyOf``/``oneOf`` with a ``null`` branch and ``type: [T, "null"]`` become ``nullable``;
    a union of several types becomes ``anyOf``; ``const`` becomes a one-value enum; an enum of
    numbers moves into the description (Gemini's enums are strings); ``default`` stays unless
    it is null; other keywords (``additionalProperties``, ``$schema``, ``uniqueItems``…) go.
    """
    node = _without_null_branch(schema)
    converted: dict[str, Any] = {k: node[k] for k in _KEPT_KEYWORDS if k in node}
    converted |= _converted_type(node)
    if "properties" in node:
        converted["properties"] = {k: gemini_schema(v) for k, v in node["properties"].items()}
    if isinstance(node.get("items"), Mapping):
        converted["items"] = gemini_schema(node["items"])
    converted |= _converted_enum(node, converted.get("description"))
    converted |= _converted_format(node, converted.get("type"), converted.get("description"))
    if node.get("default") is not None:
        converted["default"] = node["default"]
    if "example" in node or node.get("examples"):
        converted["example"] = node.get("example", (node.get("examples") or [None])[0])
    if _is_nullable(schema):
        converted["nullable"] = True
    return converted


def _branches(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(schema.get("anyOf") or schema.get("oneOf") or ())


def _is_null(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "null"


def _is_nullable(schema: Mapping[str, Any]) -> bool:
    types_ = schema.get("type")
    listed = isinstance(types_, list) and "null" in types_
    return listed or schema.get("nullable") is True or any(map(_is_null, _branches(schema)))


def _without_null_branch(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``anyOf: [X, null]`` read as X, keeping the outer description and default."""
    branches = [b for b in _branches(schema) if not _is_null(b)]
    outer = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    if len(branches) == 1:
        return {**branches[0], **outer}
    return {**outer, "anyOf": branches} if branches else outer


def _converted_type(node: Mapping[str, Any]) -> dict[str, Any]:
    if node.get("anyOf"):
        return {"anyOf": [gemini_schema(b) for b in node["anyOf"]]}
    declared = node.get("type")
    names = [
        t for t in (declared if isinstance(declared, list) else [declared]) if t in _TYPE_NAMES
    ]
    if len(names) > 1:
        return {"anyOf": [{"type": t.upper()} for t in names]}
    if names:
        return {"type": names[0].upper()}
    if "properties" in node:
        return {"type": "OBJECT"}
    return {}


def _converted_enum(node: Mapping[str, Any], description: str | None) -> dict[str, Any]:
    values = node.get("enum", [node["const"]] if "const" in node else None)
    if values is None:
        return {}
    if all(isinstance(v, str) for v in values):
        return {"enum": list(values)}
    allowed = "one of " + ", ".join(json.dumps(v) for v in values)
    return {"description": f"{description} ({allowed})" if description else allowed.capitalize()}


def _converted_format(
    node: Mapping[str, Any], kind: str | None, description: str | None
) -> dict[str, Any]:
    """A format Gemini knows stays; another becomes words the model still reads."""
    given = node.get("format")
    if given is None:
        return {}
    if given in _FORMATS.get(kind or "", ()):
        return {"format": given}
    return {"description": f"{description} (format: {given})" if description else given}


def gemini_contents(messages: Iterable[Message]) -> tuple[str, list[types.Content]]:
    """The system instruction and the turns: user text, model parts, function responses."""
    system: list[str] = []
    contents: list[types.Content] = []
    results: list[ToolResultMessage] = []
    calls = _CallIndex()
    for message in messages:
        if isinstance(message, ToolResultMessage):
            results.append(message)
            continue
        if results:
            contents.append(_responses_content(results, calls))
            results = []
        match message:
            case SystemMessage(text):
                system.append(text)
            case UserMessage(text):
                contents.append(types.Content(role="user", parts=[types.Part(text=text)]))
            case AssistantMessage():
                parts = _model_parts(message)
                calls = _CallIndex.of(message, parts)
                # A turn with no parts at all (a blocked reply) cannot be sent back.
                if parts:
                    contents.append(types.Content(role="model", parts=parts))
    if results:
        contents.append(_responses_content(results, calls))
    return "\n\n".join(system), contents


@dataclass(frozen=True, slots=True)
class _CallIndex:
    """The last model turn's calls: their order, and which ids Gemini itself gave."""

    order: Mapping[str, int] = field(default_factory=dict)
    gemini_ids: frozenset[str] = frozenset()

    @staticmethod
    def of(message: AssistantMessage, parts: Sequence[types.Part]) -> _CallIndex:
        given = {p.function_call.id for p in parts if p.function_call and p.function_call.id}
        order = {call.id: n for n, call in enumerate(message.tool_calls)}
        return _CallIndex(order, frozenset(given))


def _model_parts(message: AssistantMessage) -> list[types.Part]:
    """The model's own parts where the replay still describes the message, else rebuilt."""
    replayed = message.replay.get(REPLAY_KEY)
    if isinstance(replayed, list) and _replay_matches(replayed, message):
        return [types.Part.model_validate(part) for part in _with_arguments(replayed, message)]
    parts = [types.Part(text=message.text)] if message.text else []
    for n, call in enumerate(message.tool_calls):
        arguments = (
            {"unreadable_arguments": call.raw_arguments} if call.error else dict(call.arguments)
        )
        parts.append(
            types.Part(
                function_call=types.FunctionCall(name=call.name, args=arguments),
                # Gemini 3 refuses a turn whose first call has no signature.
                thought_signature=FOREIGN_SIGNATURE if n == 0 else None,
            )
        )
    return parts


def _with_arguments(parts: list[dict[str, Any]], message: AssistantMessage) -> list[dict[str, Any]]:
    """The replayed parts with each call's arguments as the message now holds them (a history
    edit may have shortened them), signatures kept."""
    calls = iter(message.tool_calls)
    patched = []
    for part in parts:
        if part.get("function_call") and not (call := next(calls)).error:
            part = {
                **part,
                "function_call": {**part["function_call"], "args": dict(call.arguments)},
            }
        patched.append(part)
    return patched


def _replay_matches(parts: list[dict[str, Any]], message: AssistantMessage) -> bool:
    """Another layer (the XML protocol, a history edit) may have rewritten the message."""
    names = [p["function_call"].get("name") for p in parts if p.get("function_call")]
    text = "".join(p.get("text") or "" for p in parts if not p.get("thought"))
    return names == [c.name for c in message.tool_calls] and text == message.text


def _responses_content(results: list[ToolResultMessage], calls: _CallIndex) -> types.Content:
    in_call_order = sorted(results, key=lambda r: calls.order.get(r.call_id, len(calls.order)))
    parts = [
        types.Part(
            function_response=types.FunctionResponse(
                # Only an id Gemini gave goes back; honyaku's own would confuse it.
                id=result.call_id if result.call_id in calls.gemini_ids else None,
                name=result.name,
                response=_response_object(result.content),
            )
        )
        for result in in_call_order
    ]
    return types.Content(role="user", parts=parts)


def _response_object(content: str) -> dict[str, Any]:
    """A result as the JSON object Gemini wants; anything else under ``output``."""
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        return {"output": content}
    return value if isinstance(value, dict) else {"output": value}
