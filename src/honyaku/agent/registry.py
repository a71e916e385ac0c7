"""Tools as typed functions, and the executor that runs a model's call on one of them.

A tool is a plain function whose first parameter is its context (a chunk's dependencies, a
chat session's…) and whose other parameters are what the model sends. Name, description and
JSON schema come from the signature and the docstring. The context's type is read from the
annotation when the tool is made, and a registry refuses, when it is built, a tool whose
context its own context type does not provide: a tool set and its context belong together.

Whatever happens, ``ToolRegistry.run`` returns a JSON object with ``success``: a wrong call is
a result the model reads and fixes, never an exception out of the loop. Error codes are those
of the XML tool protocol.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic_core import ErrorDetails

from honyaku.agent.broker import ApprovalPolicy, Broker, QuestionParked
from honyaku.errors import ClaimLost, StoreError, ToolError, UserError
from honyaku.llm.messages import ToolCall, ToolSpec

TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
MISSING_PARAMETER = "MISSING_PARAMETER"
INVALID_PARAMETER = "INVALID_PARAMETER"
EXECUTION_FAILED = "EXECUTION_FAILED"
API_ERROR = "API_ERROR"
DENIED = "DENIED"

Result = dict[str, Any]
Handler = Callable[..., Result] | Callable[..., Awaitable[Result]]


@dataclass
class ToolContext:
    """What every tool's context offers: the way to a person, and who is asking, in words
    for that person ("translation of chapter 2…")."""

    broker: Broker
    asker: str


C = TypeVar("C", bound=ToolContext)


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    parameters: type[BaseModel]
    handler: Handler
    context_type: type[ToolContext]
    needs_approval: bool = False

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, inline_schema(self.parameters))


def tool(*, needs_approval: bool = False) -> Callable[[Handler], Tool]:
    """Make a ``Tool`` of a function: ``@tool()`` above ``def name(context: Ctx, ...) -> dict``,
    where ``Ctx`` is a ``ToolContext``."""

    def wrap(handler: Handler) -> Tool:
        return Tool(
            name=handler.__name__,
            description=inspect.getdoc(handler) or "",
            parameters=_parameters_model(handler),
            handler=handler,
            context_type=_context_type(handler),
            needs_approval=needs_approval,
        )

    return wrap


def _context_type(handler: Handler) -> type[ToolContext]:
    first = next(iter(inspect.signature(handler).parameters), None)
    wanted = get_type_hints(handler).get(first) if first else None
    if not (isinstance(wanted, type) and issubclass(wanted, ToolContext)):
        raise TypeError(
            f"tool {handler.__name__}: its first parameter must be annotated with a "
            f"ToolContext type, not {wanted!r}"
        )
    return wanted


def _parameters_model(handler: Handler) -> type[BaseModel]:
    hints = get_type_hints(handler, include_extras=True)
    fields: dict[str, Any] = {}
    for parameter in list(inspect.signature(handler).parameters.values())[1:]:
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hints[parameter.name], default)
    name = "".join(part.title() for part in handler.__name__.split("_"))
    return create_model(f"{name}Parameters", __config__=ConfigDict(extra="ignore"), **fields)


_CHECKED_ONLY = frozenset(
    {"default", "minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength"}
)
"""Schema keywords left out of what the model reads: every call is checked against the full
model, whose error says what is wrong, and a schema's every token goes with every request."""


def inline_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema with ``$ref`` resolved, and titles, defaults and bounds dropped.

    Gemini and many local servers reject ``$ref``; titles only cost tokens, and so do defaults
    and bounds, which the executor checks (``_CHECKED_ONLY``).
    """
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(definitions[node["$ref"].rsplit("/", 1)[-1]])
            # A "title" string is schema metadata; a "title" dict is a property of that name.
            return {
                k: resolve(v)
                for k, v in node.items()
                if not (k == "title" and isinstance(v, str))
                and not (k in _CHECKED_ONLY and not isinstance(v, dict))
            }
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    resolved = resolve(schema)
    resolved.pop("additionalProperties", None)
    return resolved


def failure(code: str, message: str, **details: Any) -> Result:
    return {"success": False, "error": message, "error_code": code, **details}


class ToolRegistry(Generic[C]):
    """The tools of one kind of conversation, all working on a context of ``context_type``.

    ``hidden`` tools are not offered to the model but still answered if it calls them (a
    book that turned questions off answers ``ask_user`` with "cancelled"). Calls that need
    the person's approval go through ``approval`` first.
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        context_type: type[C],
        *,
        hidden: Iterable[str] = (),
        approval: ApprovalPolicy | None = None,
    ) -> None:
        tools = tuple(tools)
        for t in tools:
            if not issubclass(context_type, t.context_type):
                raise TypeError(
                    f"tool {t.name} works on {t.context_type.__name__}, which "
                    f"{context_type.__name__} is not"
                )
        self.context_type = context_type
        self._tools = {t.name: t for t in tools}
        offered = [t for t in self._tools.values() if t.name not in set(hidden)]
        self.specs: tuple[ToolSpec, ...] = tuple(t.spec for t in offered)
        self._approval = approval

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def hiding(self, names: Iterable[str]) -> ToolRegistry[C]:
        """The same tools with ``names`` hidden too: a conversation that cannot use them is
        not sent their schemas, and a call made anyway is still answered."""
        hidden = set(names)
        narrowed = copy.copy(self)
        narrowed.specs = tuple(spec for spec in self.specs if spec.name not in hidden)
        return narrowed

    async def run(self, call: ToolCall, context: C) -> Result:
        """Run one call; every outcome is a JSON-ready result with ``success``."""
        if call.error is not None:
            return failure(call.error.code, call.error.message)
        found = self._tools.get(call.name)
        if found is None:
            return failure(
                TOOL_NOT_FOUND,
                f"there is no tool named {call.name!r}",
                available_tools=self.names,
            )
        try:
            arguments = found.parameters.model_validate(call.arguments)
        except ValidationError as exc:
            return _validation_failure(exc)
        if refusal := await self._refusal(found, call, context):
            return failure(DENIED, refusal)
        return await _execute(found, context, arguments)

    async def _refusal(self, found: Tool, call: ToolCall, context: C) -> str | None:
        if self._approval is None or not self._approval.needs_approval(
            found.name, found.needs_approval
        ):
            return None
        return await self._approval.refusal(found.name, call.arguments, context.asker)


async def _execute(found: Tool, context: ToolContext, arguments: BaseModel) -> Result:
    values = {name: getattr(arguments, name) for name in type(arguments).model_fields}
    try:
        if inspect.iscoroutinefunction(found.handler):
            result = await found.handler(context, **values)
        else:
            # Sync tools write to the database: off the event loop, the other conversations
            # keep streaming meanwhile.
            result = await asyncio.to_thread(found.handler, context, **values)
        if not isinstance(result, dict):
            raise TypeError(f"returned {type(result).__name__}, not a result object")
    except ToolError as exc:
        return failure(exc.code, str(exc), **exc.details)
    except (ClaimLost, QuestionParked):
        raise  # not the model's to fix: the conversation ends here, its chunk another's or parked
    except UserError as exc:  # what was asked cannot be done: an unknown id, a refused text
        return failure(INVALID_PARAMETER, str(exc))
    except StoreError as exc:
        return failure(API_ERROR, f"the library could not do it: {exc}")
    except Exception as exc:  # a bug in a tool must not end the conversation
        return failure(EXECUTION_FAILED, f"{found.name} failed: {type(exc).__name__}: {exc}")
    return result if "success" in result else {"success": True, **result}


def _validation_failure(exc: ValidationError) -> Result:
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    code = _error_code(first)
    messages = [_describe(error) for error in errors]
    return failure(code, "; ".join(messages))


def _error_code(error: ErrorDetails) -> str:
    if error["type"] == "missing":
        return MISSING_PARAMETER
    if error["type"].isupper():
        return error["type"]
    return INVALID_PARAMETER


def _describe(error: ErrorDetails) -> str:
    where = _path(error["loc"])
    if error["type"] == "missing":
        return f"missing parameter {where}"
    if error["type"] == "extra_forbidden":
        return f"unknown parameter {where}"
    if error["type"].isupper():
        return f"{where}: {error['msg']}"
    return f"parameter {where}: {error['msg']}"


def _path(location: Iterable[int | str]) -> str:
    path = ""
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(arguments)"


def result_summary(result: Mapping[str, Any]) -> str:
    """One short line for logs and progress: ``ok`` or the error code and message."""
    if result.get("success"):
        return "ok"
    return f"{result.get('error_code', 'ERROR')}: {result.get('error', '')}"[:200]
