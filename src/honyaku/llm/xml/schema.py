"""Reading the JSON schemas of tool parameters, as far as XML values need them.

A model writes every value as text; what the text should become depends on the parameter's
schema: its types (with the aliases models and servers use), enums, and unions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
TRY_ORDER = ("boolean", "integer", "number", "array", "object", "string")


@dataclass(frozen=True, slots=True)
class Shape:
    types: tuple[str, ...]
    """Allowed types but null, in ``TRY_ORDER``; empty when the schema says nothing."""
    nullable: bool
    enum: tuple[Any, ...] | None


def branches(schema: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The alternatives of a schema: its ``anyOf``/``oneOf`` branches, or itself."""
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(alternatives, list):
        for branch in alternatives:
            if isinstance(branch, Mapping):
                yield from branches(branch)
        return
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
        yield from branches(all_of[0])  # pydantic's wrapper around a described reference
        return
    yield schema


def own_types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared or []
    return [
        _TYPE_ALIASES[str(name).lower()] for name in names if str(name).lower() in _TYPE_ALIASES
    ]


def shape_of(schema: Mapping[str, Any]) -> Shape:
    types: set[str] = set()
    nullable = False
    enums: list[Any] = []
    every_branch_enumerated = True
    for branch in branches(schema):
        own = own_types(branch)
        values = enum_of(branch)
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
        types.update(enum_types(enum))
    ordered = tuple(kind for kind in TRY_ORDER if kind in types)
    return Shape(ordered, nullable, enum)


def enum_types(values: Sequence[Any]) -> list[str]:
    """The types of an enum's values, for an enum that declares none."""
    kinds = (_ENUM_VALUE_TYPES.get(type(value), "string") for value in values if value is not None)
    return list(dict.fromkeys(kinds))


def enum_of(schema: Mapping[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    values = schema.get("enum")
    return list(values) if isinstance(values, list) else None
