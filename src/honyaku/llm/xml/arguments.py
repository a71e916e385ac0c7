"""Converting the text of an XML tool call's parameters by the tool's JSON schema.

A model writes every value as text; the schema says what it should be: integers, numbers,
booleans, arrays and objects (as JSON text), enums, nullable and union types. A value that does
not fit is refused with ``INVALID_PARAMETER``, naming the parameter and the type it needed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from honyaku.llm.messages import ToolCallError
from honyaku.llm.xml.schema import Shape, shape_of

INVALID_PARAMETER = "INVALID_PARAMETER"
_SHOWN_VALUE_CHARS = 60


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
    shape = shape_of(schema)
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
        options = ", ".join(json_text(option) for option in shape.enum)
        return text, f'parameter "{name}" must be one of {options}, got {_shown(text)}'
    return value, None


def _first_fitting(name: str, text: str, shape: Shape) -> tuple[Any, str | None]:
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
    return json_text(text)


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
