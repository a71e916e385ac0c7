"""The system-prompt section that teaches a model the XML tool format and the tools."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from honyaku.llm.messages import ToolCall, ToolSpec
from honyaku.llm.xml.arguments import json_text
from honyaku.llm.xml.schema import branches, enum_of, enum_types, own_types, shape_of

_PROMPT_NESTING_DEPTH = 3


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
    shape = shape_of(spec)
    type_fact = _type_label(spec)
    if any(kind in ("array", "object") for kind in shape.types):
        type_fact += words.as_json
    facts = [type_fact, words.required if required else words.optional]
    if shape.enum is not None:
        facts.append(words.one_of + words.list_comma.join(map(json_text, shape.enum)))
    if spec.get("default") is not None:
        facts.append(words.default + json_text(spec["default"]))
    if isinstance(spec.get("format"), str):
        facts.append(words.format + spec["format"])
    return facts


def _type_label(schema: Mapping[str, Any]) -> str:
    labels: list[str] = []
    for branch in branches(schema):
        for kind in own_types(branch) or enum_types(enum_of(branch) or []) or ["any"]:
            label = kind
            if kind == "array" and isinstance(branch.get("items"), Mapping):
                label = f"array<{_type_label(branch['items'])}>"
            if label not in labels:
                labels.append(label)
    nulls = [label for label in labels if label == "null"]
    return " | ".join([label for label in labels if label != "null"] + nulls[:1])


def _members_schema(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema whose properties describe a parameter's parts: an object's, or its items'."""
    for branch in branches(spec):
        if isinstance(branch.get("properties"), Mapping):
            return branch
        items = branch.get("items")
        if isinstance(items, Mapping):
            for item in branches(items):
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
    branch = next((b for b in branches(schema) if own_types(b) != ["null"]), schema)
    kinds = [kind for kind in own_types(branch) if kind != "null"]
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
