"""XML tool calling for models without native function calling (seed 002).

``XmlToolProtocol`` wraps any ``ChatProvider`` and speaks tools through text:

    request:   tools ──render_tool_prompt──▶ a section appended to the system message
               history ──render_history──▶ replies as written, results as <tool_result> blocks
    response:  TextDelta ──XmlToolParser──▶ visible TextDelta + calls
               calls ──convert_arguments (by each tool's JSON schema)──▶ ToolCall in Response

It never runs a tool: it only turns text into the same neutral events a native provider yields.
A call that cannot be read (unclosed block, bad value, runaway reply) becomes a ``ToolCall``
with an ``error``, which the loop reports back to the model and never runs. Error codes:

- ``INVALID_PARAMETER``: a value does not fit its parameter's schema (``convert_arguments``).
- ``MALFORMED_TOOL_CALL``: a block the parser could not read as a call (unclosed, no name…).
- ``REPLY_TOO_LONG``: the reply passed the parser's character cap and was cut there.

Everything sent is a pure function of the request, so the same history renders to the same
bytes every turn and provider prefix caches keep hitting.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from honyaku.llm.events import ChatProvider, Response, Retry, StreamEvent, TextDelta
from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallError,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from honyaku.llm.xml_parser import (
    MalformedInvoke,
    ParsedInvoke,
    ParserEvent,
    ReplyTooLong,
    VisibleText,
    XmlToolParser,
)

INVALID_PARAMETER = "INVALID_PARAMETER"
MALFORMED_TOOL_CALL = "MALFORMED_TOOL_CALL"
REPLY_TOO_LONG = "REPLY_TOO_LONG"

XML_TEXT_REPLAY_KEY = "xml_text"
"""``AssistantMessage.replay`` key holding the reply exactly as the model wrote it."""
XML_CALL_ID_PREFIX = "xml_"
UNNAMED_CALL = "tool_use"
"""The name given to a call whose tool name could not be read."""

_CALL_FORMAT_HINT = (
    'Write each call as <tool_use><invoke name="TOOL"><parameter name="PARAM">VALUE'
    "</parameter></invoke></tool_use>."
)
_SHOWN_VALUE_CHARS = 60
_PROMPT_NESTING_DEPTH = 3


# ---------------------------------------------------------------------------------------------
# Schemas, as far as converting a string needs them.

_TYPE_ALIASES = {
    "string": "string",
    "str": "string",
    "integer": "integer",
    "int": "integer",
    "number": "number",
    "numeric": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "object": "object",
    "dict": "object",
    "null": "null",
}
_ENUM_VALUE_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
}
# The order a value is tried in when a schema allows several types; a string always fits, so
# it comes last.
_TRY_ORDER = ("boolean", "integer", "number", "array", "object", "string")


@dataclass(frozen=True, slots=True)
class _Shape:
    types: tuple[str, ...]
    """Allowed types but null, in ``_TRY_ORDER``; empty when the schema says nothing."""
    nullable: bool
    enum: tuple[Any, ...] | None


def _branches(schema: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The alternatives of a schema: its ``anyOf``/``oneOf`` branches, or itself."""
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(alternatives, list):
        for branch in alternatives:
            if isinstance(branch, Mapping):
                yield from _branches(branch)
        return
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
        yield from _branches(all_of[0])  # pydantic's wrapper around a described reference
        return
    yield schema


def _own_types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared or []
    return [
        _TYPE_ALIASES[str(name).lower()] for name in names if str(name).lower() in _TYPE_ALIASES
    ]


def _shape_of(schema: Mapping[str, Any]) -> _Shape:
    types: set[str] = set()
    nullable = False
    enums: list[Any] = []
    every_branch_enumerated = True
    for branch in _branches(schema):
        own = _own_types(branch)
        values = _enum_of(branch)
        if own == ["null"] or values == [None]:
            nullable = True
            continue
        nullable = nullable or "null" in own or (values is not None and None in values)
        types.update(kind for kind in own if kind != "null")
        if values is None:
            every_branch_enumerated = False
        else:
            enums.extend(value for value in values if value is not None)
    enum = tuple(enums) if every_branch_enumerated and enums else None
    if not types and enum is not None:
        types.update(_enum_types(enum))
    ordered = tuple(kind for kind in _TRY_ORDER if kind in types)
    return _Shape(ordered, nullable, enum)


def _enum_types(values: Sequence[Any]) -> list[str]:
    """The types of an enum's values, for an enum that declares none."""
    kinds = (_ENUM_VALUE_TYPES.get(type(value), "string") for value in values if value is not None)
    return list(dict.fromkeys(kinds))


def _enum_of(schema: Mapping[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    values = schema.get("enum")
    return list(values) if isinstance(values, list) else None


# ---------------------------------------------------------------------------------------------
# Converting parameter text by schema.


class _Mismatch(ValueError):
    """The text does not fit one type; ``detail`` says why when that helps the model."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail)
        self.detail = detail


_INTEGER = re.compile(r"[+-]?[0-9]+(?:\.0*)?")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_FENCE = re.compile(r"```[\w-]*[ \t]*\r?\n(.*?)\r?\n?```", re.DOTALL)
_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}


def _to_integer(text: str) -> int:
    digits = text.strip()
    if not _INTEGER.fullmatch(digits):
        raise _Mismatch
    try:
        return int(digits.split(".")[0])
    except ValueError as error:  # more digits than Python converts
        raise _Mismatch(str(error)) from None


def _to_number(text: str) -> int | float:
    digits = text.strip()
    if not _NUMBER.fullmatch(digits):
        raise _Mismatch
    if not any(mark in digits for mark in ".eE"):
        return _to_integer(digits)  # exact, however large
    value = float(digits)
    if not math.isfinite(value):
        raise _Mismatch("too large")
    return value


def _to_boolean(text: str) -> bool:
    value = _BOOLEANS.get(text.strip().lower())
    if value is None:
        raise _Mismatch
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _parse_json(text: str) -> Any:
    body = text.strip()
    if fenced := _FENCE.fullmatch(body):
        body = fenced.group(1).strip()
    try:
        # strict=False lets raw newlines and tabs stand inside strings, as models write them.
        return json.loads(body, strict=False, parse_constant=_reject_constant)
    except RecursionError:  # a value of 1 MB can nest deeper than Python recurses
        raise ValueError("nested too deeply") from None


def _to_json_of(kind: type) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            value = _parse_json(text)
        except ValueError as error:
            raise _Mismatch(f"invalid JSON: {error}") from None
        if not isinstance(value, kind):
            raise _Mismatch(f"that is {_json_kind(value)}")
        return value

    return convert


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a JSON array"
    return "a JSON object" if isinstance(value, dict) else "a single JSON value"


_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "boolean": _to_boolean,
    "integer": _to_integer,
    "number": _to_number,
    "array": _to_json_of(list),
    "object": _to_json_of(dict),
    "string": str,
}
_TYPE_WORDS = {
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
    "array": "a JSON array",
    "object": "a JSON object",
    "string": "a string",
}


def convert_arguments(
    params: Mapping[str, str], schema: Mapping[str, Any]
) -> tuple[dict[str, Any], ToolCallError | None]:
    """Convert each parameter's text by its type in the tool's JSON ``schema``.

    integer: digits with an optional sign, leading zeros allowed; ``5.0`` is 5 (JSON Schema
    counts it an integer). number: a JSON number, also ``+5``, ``007``, ``.5`` and ``5.``;
    without a fraction or exponent it stays an exact ``int``. boolean: ``true``/``false`` in any
    case, or ``1``/``0``. string: as written. array/object: JSON text, surrounding space and a
    Markdown code fence allowed, raw newlines inside strings allowed. A schema that allows null
    (``anyOf``, a type list, an enum) reads ``null`` as None. Enums are checked. Untyped: JSON if
    it parses, else the text. Refused everywhere: NaN, infinities, ``1_000``, non-ASCII digits,
    hex. Parameters the schema does not know pass through as text.

    Required parameters are not checked here (the executor reports ``MISSING_PARAMETER``).
    Answers every converted value (a value that failed stays text) and, if any failed, one
    ``INVALID_PARAMETER`` error that names each failure and the type it expected.
    """
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    extra = schema.get("additionalProperties")
    converted: dict[str, Any] = {}
    problems: list[str] = []
    for name, text in params.items():
        spec = properties.get(name, extra if isinstance(extra, Mapping) else None)
        if not isinstance(spec, Mapping):
            converted[name] = text
            continue
        converted[name], problem = _convert_value(name, text, spec)
        if problem:
            problems.append(problem)
    error = ToolCallError(INVALID_PARAMETER, "; ".join(problems)) if problems else None
    return converted, error


def _convert_value(name: str, text: str, schema: Mapping[str, Any]) -> tuple[Any, str | None]:
    shape = _shape_of(schema)
    if shape.nullable and text.strip() == "null":
        return None, None
    if not shape.types:
        try:
            value = _parse_json(text)
        except ValueError:
            value = text
    else:
        value, problem = _first_fitting(name, text, shape)
        if problem:
            return text, problem
    if shape.enum is None:
        return value, None
    if isinstance(value, str) and value not in shape.enum:
        value = value.strip()
    if not any(_same_value(value, option) for option in shape.enum):
        options = ", ".join(_json_text(option) for option in shape.enum)
        return text, f'parameter "{name}" must be one of {options}, got {_shown(text)}'
    return value, None


def _first_fitting(name: str, text: str, shape: _Shape) -> tuple[Any, str | None]:
    details: list[str] = []
    for kind in shape.types:
        try:
            return _CONVERTERS[kind](text), None
        except _Mismatch as mismatch:
            if mismatch.detail:
                details.append(mismatch.detail)
    expected = " or ".join([_TYPE_WORDS[kind] for kind in shape.types] + ["null"] * shape.nullable)
    because = f" ({'; '.join(details)})" if details else ""
    return None, f'parameter "{name}" must be {expected}, got {_shown(text)}{because}'


def _same_value(value: Any, option: Any) -> bool:
    # True == 1 in Python, but not in JSON.
    return isinstance(value, bool) == isinstance(option, bool) and value == option


def _shown(text: str) -> str:
    if len(text) > _SHOWN_VALUE_CHARS:
        text = text[: _SHOWN_VALUE_CHARS - 1] + "…"
    return _json_text(text)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# The prompt section.


@dataclass(frozen=True, slots=True)
class _Wording:
    title: str
    intro: str
    rules_title: str
    rules: tuple[str, ...]
    tools_title: str
    parameters: str
    no_parameters: str
    example: str
    required: str
    optional: str
    one_of: str
    default: str
    format: str
    as_json: str
    open: str
    close: str
    comma: str
    colon: str
    list_comma: str


_FORMAT_BLOCK = (
    "<tool_use>\n"
    '<invoke name="TOOL_NAME">\n'
    '<parameter name="PARAMETER_NAME">VALUE</parameter>\n'
    "</invoke>\n"
    "</tool_use>"
)

_ENGLISH = _Wording(
    title="## Tools",
    intro=(
        "You act only by calling tools. To call a tool, write a block in exactly this format "
        "in your reply:"
    ),
    rules_title="### Rules",
    rules=(
        "Write one <tool_use> block per call, holding one <invoke>. To make several calls, "
        "write several blocks: they run one after another, in order.",
        "Write every value as plain text, exactly as meant: no XML escaping (write <, > and & "
        "as they are) and no quotes around strings. A value ends at the first </parameter>, "
        "so never write that tag inside a value.",
        "Write numbers as plain digits and booleans as true or false. Write arrays and "
        "objects as JSON text inside the parameter.",
        "Leave out optional parameters you do not need; never write an empty value for them.",
        "Tools are the only way to act: never print results as JSON or as text instead of "
        "calling a tool, and never write a <tool_result> block yourself.",
        "After your tool blocks, end your reply. The results come back in the next message, "
        'one <tool_result name="TOOL_NAME">JSON</tool_result> per call, in order. Do not '
        "assume a call succeeded before you have read its result; if it failed, read the "
        "error and call again with the fix.",
    ),
    tools_title="### Available tools",
    parameters="Parameters:",
    no_parameters="No parameters.",
    example="Example:",
    required="required",
    optional="optional",
    one_of="one of: ",
    default="default: ",
    format="format: ",
    as_json=" as JSON",
    open=" (",
    close=")",
    comma=", ",
    colon=": ",
    list_comma=", ",
)

_CHINESE = _Wording(
    title="## 工具",
    intro="你只能通过调用工具来完成操作。调用工具时，请在回复中严格按以下格式写出一个块：",
    rules_title="### 规则",
    rules=(
        "每次调用写一个 <tool_use> 块，块内只写一个 <invoke>。需要多次调用时就写多个块，"
        "它们会按顺序逐个执行。",
        "每个参数值都按原样写成纯文本：不要做 XML 转义（<、> 和 & 直接照写），字符串两侧也不要"
        "加引号。参数值在第一个 </parameter> 处结束，因此参数值中绝不能出现这个标签。",
        "数字直接写数字，布尔值写 true 或 false。数组和对象在参数内写成 JSON 文本。",
        "用不到的可选参数直接省略，不要为它写空值。",
        "工具是唯一的操作方式：不要用 JSON 或文字输出结果来代替工具调用，也不要自己编写 "
        "<tool_result> 块。",
        "写完工具块后就结束本次回复。结果会在下一条消息中返回，每个调用对应一个 "
        '<tool_result name="工具名">JSON</tool_result>，顺序与调用相同。读到结果之前不要'
        "假定调用已成功；如果调用失败，请阅读错误信息，修正后重新调用。",
    ),
    tools_title="### 可用工具",
    parameters="参数：",
    no_parameters="无参数。",
    example="示例：",
    required="必填",
    optional="可选",
    one_of="取值之一：",
    default="默认：",
    format="格式：",
    as_json="，写成 JSON",
    open="（",
    close="）",
    comma="，",
    colon="：",
    list_comma="、",
)


def render_tool_prompt(tools: Sequence[ToolSpec], language: str = "en") -> str:
    """The system prompt section that teaches the XML format and describes every tool.

    The wording is Chinese when ``language`` starts with "zh", else English. The same tools
    always give the same text, byte for byte, so provider prompt caches hit.
    """
    words = _CHINESE if language.lower().startswith("zh") else _ENGLISH
    rules = "\n".join(f"{number}. {rule}" for number, rule in enumerate(words.rules, 1))
    parts = [words.title, words.intro, _FORMAT_BLOCK, words.rules_title, rules, words.tools_title]
    parts.extend(_render_tool(tool, words) for tool in tools)
    return "\n\n".join(parts)


def _render_tool(tool: ToolSpec, words: _Wording) -> str:
    parts = [f"#### {tool.name}"]
    if tool.description.strip():
        parts.append(tool.description.strip())
    lines = _parameter_lines(tool.parameters, words, depth=0)
    parts.append(words.parameters + "\n" + "\n".join(lines) if lines else words.no_parameters)
    parts.append(words.example + "\n" + _example_call(tool))
    return "\n\n".join(parts)


def _parameter_lines(schema: Mapping[str, Any], words: _Wording, depth: int) -> list[str]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or depth >= _PROMPT_NESTING_DEPTH:
        return []
    required = set(schema.get("required") or ())
    indent = "  " * depth
    lines: list[str] = []
    for name, spec in properties.items():
        spec = spec if isinstance(spec, Mapping) else {}
        facts = words.comma.join(_parameter_facts(spec, name in required, words))
        line = f"{indent}- `{name}`{words.open}{facts}{words.close}"
        description = str(spec.get("description") or "").strip()
        if description:
            line += words.colon + description.replace("\n", "\n" + indent + "  ")
        lines.append(line)
        lines.extend(_parameter_lines(_members_schema(spec), words, depth + 1))
    return lines


def _parameter_facts(spec: Mapping[str, Any], required: bool, words: _Wording) -> list[str]:
    shape = _shape_of(spec)
    type_fact = _type_label(spec)
    if any(kind in ("array", "object") for kind in shape.types):
        type_fact += words.as_json
    facts = [type_fact, words.required if required else words.optional]
    if shape.enum is not None:
        facts.append(words.one_of + words.list_comma.join(map(_json_text, shape.enum)))
    if spec.get("default") is not None:
        facts.append(words.default + _json_text(spec["default"]))
    if isinstance(spec.get("format"), str):
        facts.append(words.format + spec["format"])
    return facts


def _type_label(schema: Mapping[str, Any]) -> str:
    labels: list[str] = []
    for branch in _branches(schema):
        for kind in _own_types(branch) or _enum_types(_enum_of(branch) or []) or ["any"]:
            label = kind
            if kind == "array" and isinstance(branch.get("items"), Mapping):
                label = f"array<{_type_label(branch['items'])}>"
            if label not in labels:
                labels.append(label)
    nulls = [label for label in labels if label == "null"]
    return " | ".join([label for label in labels if label != "null"] + nulls[:1])


def _members_schema(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema whose properties describe a parameter's parts: an object's, or its items'."""
    for branch in _branches(spec):
        if isinstance(branch.get("properties"), Mapping):
            return branch
        items = branch.get("items")
        if isinstance(items, Mapping):
            for item in _branches(items):
                if isinstance(item.get("properties"), Mapping):
                    return item
    return {}


def _example_call(tool: ToolSpec) -> str:
    properties = tool.parameters.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    names = [name for name in properties if name in set(tool.parameters.get("required") or ())]
    if not names and properties:
        names = [next(iter(properties))]
    arguments = {name: _example_value(properties[name]) for name in names}
    return render_tool_call(ToolCall(id="", name=tool.name, arguments=arguments))


def _example_value(schema: Any, depth: int = 0) -> Any:
    if not isinstance(schema, Mapping):
        return "..."
    for key in ("examples", "enum"):
        values = schema.get(key)
        if isinstance(values, list) and values and values[0] is not None:
            return values[0]
    for key in ("example", "default", "const"):
        if schema.get(key) is not None:
            return schema[key]
    branch = next((b for b in _branches(schema) if _own_types(b) != ["null"]), schema)
    kinds = [kind for kind in _own_types(branch) if kind != "null"]
    kind = kinds[0] if kinds else "string"
    if depth >= _PROMPT_NESTING_DEPTH:
        return "..."
    if kind == "array":
        return [_example_value(branch.get("items"), depth + 1)]
    if kind == "object":
        members = branch.get("properties")
        if not isinstance(members, Mapping):
            return {}
        return {name: _example_value(spec, depth + 1) for name, spec in members.items()}
    return {"integer": 1, "number": 1.5, "boolean": True}.get(kind, "...")


# ---------------------------------------------------------------------------------------------
# History: what the inner provider is sent.


def render_tool_call(call: ToolCall) -> str:
    """A call as the ``<tool_use>`` block a model would write for it (the parser reads it back
    to the same parameter texts)."""
    lines = ["<tool_use>", f'<invoke name="{call.name}">']
    for name, value in call.arguments.items():
        lines.append(f'<parameter name="{name}">{_value_text(value)}</parameter>')
    lines += ["</invoke>", "</tool_use>"]
    return "\n".join(lines)


def _value_text(value: Any) -> str:
    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    # The parser drops one newline at each end of a value; add one where the value has its own.
    if value.startswith(("\n", "\r\n")):
        value = "\n" + value
    if value.endswith("\n"):
        value += "\n"
    return value


def render_tool_results(results: Sequence[ToolResultMessage]) -> str:
    """The text of the one user message that carries a turn's results, in call order."""
    return "\n".join(
        f'<tool_result name="{result.name}">{result.content}</tool_result>' for result in results
    )


def render_history(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The conversation as a provider without tools must see it.

    A reply goes back as its exact text (``replay["xml_text"]``), or, for a reply that came
    another way, as its text followed by its calls as blocks. The results that follow a reply
    become one user message.
    """
    rendered: list[Message] = []
    results: list[ToolResultMessage] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            results.append(message)
            continue
        if results:
            rendered.append(UserMessage(render_tool_results(results)))
            results = []
        if isinstance(message, AssistantMessage):
            rendered.append(_render_reply(message))
        else:
            rendered.append(message)
    if results:
        rendered.append(UserMessage(render_tool_results(results)))
    return tuple(rendered)


def _render_reply(message: AssistantMessage) -> AssistantMessage:
    xml_text = message.replay.get(XML_TEXT_REPLAY_KEY)
    calls = message.tool_calls
    text = message.text
    if isinstance(xml_text, str):
        text = xml_text
        # Calls read from the text are in it already; only native extras need writing out.
        calls = tuple(call for call in calls if not call.id.startswith(XML_CALL_ID_PREFIX))
    blocks = [render_tool_call(call) for call in calls]
    text = "\n\n".join([text, *blocks] if text else blocks)
    replay = {key: value for key, value in message.replay.items() if key != XML_TEXT_REPLAY_KEY}
    return AssistantMessage(text=text, reasoning=message.reasoning, replay=replay)


def render_request(request: ChatRequest, language: str = "en") -> ChatRequest:
    """The request the inner provider gets: rendered history, tool section, no native tools."""
    messages = render_history(request.messages)
    if request.tools:
        messages = _with_tool_section(messages, render_tool_prompt(request.tools, language))
    return ChatRequest(messages=messages, tools=())


def _with_tool_section(messages: tuple[Message, ...], section: str) -> tuple[Message, ...]:
    """Append ``section`` to the first system message, or open the conversation with it."""
    for index, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            text = f"{message.text}\n\n{section}" if message.text else section
            return (*messages[:index], SystemMessage(text), *messages[index + 1 :])
    return (SystemMessage(section), *messages)


# ---------------------------------------------------------------------------------------------
# The provider decorator.


class XmlToolProtocol:
    """A ``ChatProvider`` that gives tools to a model through text, on top of ``inner``.

    ``inner`` is used without native tools. ``language`` picks the prompt section's wording.
    """

    def __init__(self, inner: ChatProvider, *, language: str = "en") -> None:
        self.inner = inner
        self.model = inner.model
        self.language = language

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        turn = sum(isinstance(message, AssistantMessage) for message in request.messages)
        tools = {tool.name: tool for tool in request.tools}
        reply = _ReplyReader(turn, tools)
        async for event in self.inner.stream(render_request(request, self.language)):
            if isinstance(event, TextDelta):
                for text in reply.feed(event.text):
                    yield TextDelta(text)
            elif isinstance(event, Retry):
                reply = _ReplyReader(turn, tools)  # the attempt so far is discarded
                yield event
            elif isinstance(event, Response):
                for text in reply.finish(event.message.text):
                    yield TextDelta(text)
                yield reply.response(event)
            else:
                yield event


class _ReplyReader:
    """One attempt at a reply: its parser, its visible text and its calls so far."""

    def __init__(self, turn: int, tools: Mapping[str, ToolSpec]) -> None:
        self._turn = turn
        self._tools = tools
        self._parser = XmlToolParser()
        self._fed = False
        self._visible: list[str] = []
        self._calls: list[ToolCall] = []

    def feed(self, text: str) -> list[str]:
        self._fed = self._fed or bool(text)
        return self._take(self._parser.feed(text))

    def finish(self, final_text: str) -> list[str]:
        # A provider that never streamed deltas still hands the whole text over here.
        texts = self.feed(final_text) if not self._fed and final_text else []
        return texts + self._take(self._parser.close())

    def response(self, inner: Response) -> Response:
        replay = {**inner.message.replay, XML_TEXT_REPLAY_KEY: self._parser.text}
        message = AssistantMessage(
            text="".join(self._visible),
            tool_calls=(*self._calls, *inner.message.tool_calls),
            reasoning=inner.message.reasoning,
            replay=replay,
        )
        return Response(message, inner.finish_reason, inner.usage)

    def _take(self, events: list[ParserEvent]) -> list[str]:
        texts: list[str] = []
        for event in events:
            if isinstance(event, VisibleText):
                texts.append(event.text)
            else:
                self._calls.append(self._to_call(event))
        self._visible.extend(texts)
        return texts

    def _to_call(self, event: ParsedInvoke | MalformedInvoke | ReplyTooLong) -> ToolCall:
        call_id = f"{XML_CALL_ID_PREFIX}{self._turn}_{len(self._calls) + 1}"
        if isinstance(event, ParsedInvoke):
            tool = self._tools.get(event.name)
            arguments, error = convert_arguments(event.params, tool.parameters if tool else {})
            raw = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
            return ToolCall(call_id, event.name, arguments, raw, error)
        if isinstance(event, MalformedInvoke):
            error = ToolCallError(MALFORMED_TOOL_CALL, f"{event.reason}. {_CALL_FORMAT_HINT}")
            return ToolCall(call_id, event.name or UNNAMED_CALL, {}, event.raw, error)
        message = (
            f"the reply passed {event.limit_chars:,} characters and was not read further; "
            "no call after that point was run. Make several smaller calls instead."
        )
        return ToolCall(call_id, UNNAMED_CALL, {}, "", ToolCallError(REPLY_TOO_LONG, message))
