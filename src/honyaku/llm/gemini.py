"""Gemini's own API, on the official ``google-genai`` SDK, with native function calling.

Gemini differs from Chat Completions in ways the rest of honyaku must not see:

- Tool schemas go as Gemini's OpenAPI ``Schema`` (``gemini_schema``): upper-case single types,
  ``nullable`` instead of a ``null`` branch, string-only enums. Unknown keywords are refused
  with a 400, so anything outside the subset is dropped or folded into the description.
- A model turn carries opaque *thought signatures* that must come back byte for byte, or
  Gemini 3 refuses the next request. The model's parts, merged from the stream, are kept in
  ``AssistantMessage.replay["gemini_parts"]`` and sent back as they came.
- Calls have no ids (some models send one; it is kept and returned): honyaku makes stable
  ones, ``gemini_<turn>_<n>``. Results go back as ``functionResponse`` parts in one user
  turn, in call order.
- Vertex can stream a call's arguments as ``partialArgs`` (a JSON path and a value each);
  they are assembled here, and a call still open when the stream ends is finalized.

Thought parts (``thought: true``, sent when thought summaries are on) are the reply's
reasoning: shown as ``ReasoningDelta`` and kept apart from the reader's text.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from honyaku.errors import (
    ConfigError,
    CutStreamError,
    FatalProviderError,
    ProviderError,
    RateLimitedError,
    TransientProviderError,
)
from honyaku.llm.events import ReasoningDelta, Response, StreamEvent, TextDelta, Usage
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
    message_chars,
)
from honyaku.llm.openai_compat import retry_after_s

API_VERSION = "v1beta"
"""Thought signatures, function call ids and ``anyOf`` schemas need the beta surface."""
READ_TIMEOUT_S = 300.0
MAX_ERROR_CHARS = 300
REPLAY_KEY = "gemini_parts"
"""``AssistantMessage.replay`` key: the model's parts as JSON, sent back unchanged."""
CALL_ID_PREFIX = "gemini_"
FOREIGN_SIGNATURE = base64.urlsafe_b64decode("skip_thought_signature_validator")
"""Gemini's documented signature for calls it did not write (history from another model)."""
_TRANSIENT_STATUS = {408, 409, 425}


def _transport_errors() -> tuple[type[Exception], ...]:
    """What the SDK's HTTP stack raises: httpx2 by default; httpx or aiohttp where chosen."""
    errors: tuple[type[Exception], ...] = (httpx2.HTTPError, TimeoutError)
    with contextlib.suppress(ImportError):
        import httpx

        errors += (httpx.HTTPError,)
    with contextlib.suppress(ImportError):
        import aiohttp

        errors += (aiohttp.ClientError,)
    return errors


_TRANSPORT_ERRORS = _transport_errors()


class GeminiProvider:
    """One streamed ``generateContent`` request per ``stream`` call; retries live elsewhere."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        read_timeout_s: float = READ_TIMEOUT_S,
    ) -> None:
        if not api_key and base_url is None:
            raise ConfigError("Gemini needs an API key (e.g. from GEMINI_API_KEY); none was given")
        self.model = model
        self._api_key = api_key or ""
        self._client = genai.Client(
            # A local stand-in needs no key, but the SDK insists on one.
            api_key=api_key or "no-key",
            # Explicit, so that GOOGLE_GENAI_USE_VERTEXAI in the environment changes nothing.
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=base_url,
                api_version=API_VERSION,
                timeout=round(read_timeout_s * 1000),
                # No retry_options: the SDK then makes one attempt, and RetryingProvider decides.
            ),
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        turn = sum(isinstance(m, AssistantMessage) for m in request.messages)
        assembler = GeminiReplyAssembler(turn)
        try:
            async for event in self._events(request, assembler):
                yield event
        except genai_errors.APIError as exc:
            raise _api_error(exc, self.model, self._api_key) from exc
        except (*_TRANSPORT_ERRORS, genai_errors.UnknownApiResponseError) as exc:
            detail = _scrub(_first_line(exc), self._api_key)
            if assembler.chunks:
                raise CutStreamError(f"the reply broke off: {detail}") from exc
            raise TransientProviderError(f"connection to the model failed: {detail}") from exc
        if assembler.finish_reason is None:
            raise CutStreamError("the reply was cut off before it finished")
        message = assembler.message()
        yield Response(message, assembler.finish_reason, _usage(request, message, assembler.usage))

    async def _events(
        self, request: ChatRequest, assembler: GeminiReplyAssembler
    ) -> AsyncIterator[StreamEvent]:
        system, contents = gemini_contents(request.messages)
        stream = await self._client.aio.models.generate_content_stream(
            model=self.model, contents=contents, config=_config(system, request.tools)
        )
        # Closed explicitly, so that a reader who stops early releases the connection now.
        async with contextlib.aclosing(stream) as chunks:
            async for chunk in chunks:
                for event in assembler.add_chunk(chunk):
                    yield event

    async def aclose(self) -> None:
        await self._client.aio.aclose()
        self._client.close()


def _config(system: str, tools: Sequence[ToolSpec]) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        system_instruction=system or None,
        tools=[types.Tool(function_declarations=[function_declaration(t) for t in tools])]
        if tools
        else None,
        # The loop runs the tools itself, checking every call.
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )


# -- the request -----------------------------------------------------------------------------


def function_declaration(tool: ToolSpec) -> types.FunctionDeclaration:
    """A tool as Gemini declares it; a tool without parameters declares none (Gemini refuses
    an ``OBJECT`` without properties)."""
    parameters = gemini_schema(tool.parameters) if tool.parameters.get("properties") else None
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
        return [types.Part.model_validate(part) for part in replayed]
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


# -- the reply -------------------------------------------------------------------------------


_PATH_STEP = re.compile(
    r"\.([^.\[\]]+)|\[(\d+)\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*\"((?:[^\"\\]|\\.)*)\"\s*\]"
)
MAX_TOKENS = "MAX_TOKENS"
_CUT_CALL = ToolCallError(
    "INVALID_PARAMETER",
    "the reply reached the output token limit before these arguments were complete; "
    "nothing was run. Send fewer paragraphs per call.",
)


def json_path_steps(path: str) -> list[str | int] | None:
    """``$.operations[1].price`` as ``["operations", 1, "price"]``; ``None`` if unreadable."""
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    position = 1
    while position < len(path):
        match = _PATH_STEP.match(path, position)
        if match is None:
            return None
        name, index, single, double = match.groups()
        steps.append(int(index) if index is not None else name or single or double or "")
        position = match.end()
    return steps


@dataclass
class _Call:
    name: str
    id: str | None = None
    signature: bytes | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    growing: set[str] = field(default_factory=set)
    """JSON paths whose string value is still streaming."""
    open: bool = True
    unreadable: str | None = None

    def add(self, call: types.FunctionCall) -> None:
        self.id = self.id or call.id
        if call.args:
            self.arguments |= call.args
        for piece in call.partial_args or ():
            self._add_partial(piece)
        self.open = bool(call.will_continue)

    def _add_partial(self, piece: types.PartialArg) -> None:
        path = piece.json_path or ""
        steps = json_path_steps(path)
        try:
            if not steps:
                raise ValueError(path)
            self._set(piece, path, steps)
        except (ValueError, TypeError, KeyError, IndexError):
            self.unreadable = f"the arguments Gemini streamed could not be assembled at {path!r}"

    def _set(self, piece: types.PartialArg, path: str, steps: list[str | int]) -> None:
        if piece.string_value is not None:
            if path in self.growing:
                _set_at(
                    self.arguments, steps, _value_at(self.arguments, steps) + piece.string_value
                )
            else:
                _set_at(self.arguments, steps, piece.string_value)
            (self.growing.add if piece.will_continue else self.growing.discard)(path)
        elif piece.number_value is not None:
            number = piece.number_value
            _set_at(self.arguments, steps, int(number) if number.is_integer() else number)
        elif piece.bool_value is not None:
            _set_at(self.arguments, steps, piece.bool_value)
        elif piece.null_value is not None:
            _set_at(self.arguments, steps, None)


def _value_at(root: Any, steps: list[str | int]) -> Any:
    for step in steps:
        root = root[step]
    return root


def _set_at(root: dict[str, Any], steps: list[str | int], value: Any) -> None:
    """Set a value at a JSON path, making the objects and arrays on the way."""
    container: Any = root
    for step, following in zip(steps, [*steps[1:], None], strict=True):
        if following is None:
            break
        empty: Any = [] if isinstance(following, int) else {}
        container = _slot(container, step, empty)
    if isinstance(steps[-1], int):
        _slot(container, steps[-1], None)
    container[steps[-1]] = value


def _slot(container: Any, step: str | int, empty: Any) -> Any:
    if isinstance(step, int):
        container.extend([None] * (step + 1 - len(container)))
        if container[step] is None:
            container[step] = empty
        return container[step]
    if container.get(step) is None:
        container[step] = empty
    return container[step]


@dataclass
class _TextRun:
    """Consecutive text of one kind, merged as one part (a non-streamed reply has one)."""

    thought: bool
    pieces: list[str] = field(default_factory=list)
    signature: bytes | None = None

    def part(self) -> types.Part | None:
        text = "".join(self.pieces)
        if not text and self.signature is None:
            return None
        return types.Part(text=text, thought=self.thought or None, thought_signature=self.signature)


@dataclass
class GeminiReplyAssembler:
    """Feed it every chunk of one reply; it yields display deltas and builds the message."""

    turn: int
    finish_reason: str | None = None
    usage: types.GenerateContentResponseUsageMetadata | None = None
    chunks: int = 0
    _parts: list[types.Part | _Call] = field(default_factory=list)
    _run: _TextRun | None = None
    _call: _Call | None = None

    def add_chunk(self, chunk: types.GenerateContentResponse) -> list[TextDelta | ReasoningDelta]:
        self.chunks += 1
        self.usage = chunk.usage_metadata or self.usage
        feedback = chunk.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            # A refused prompt is a finished reply without content: the loop nudges, then
            # fails this chunk, rather than the job retrying what will be refused again.
            self.finish_reason = _raw(feedback.block_reason)
        events: list[TextDelta | ReasoningDelta] = []
        for candidate in (chunk.candidates or ())[:1]:
            if candidate.finish_reason is not None:
                self.finish_reason = _raw(candidate.finish_reason)
            for part in (candidate.content.parts if candidate.content else None) or ():
                events.extend(self._add_part(part))
        return events

    def _add_part(self, part: types.Part) -> list[TextDelta | ReasoningDelta]:
        if part.function_call is not None:
            self._add_call_part(part)
            return []
        if part.text is None and part.thought_signature is None:
            self._end_text_run()
            self._end_call()
            self._parts.append(part)  # images, code: kept to go back, never shown
            return []
        return self._add_text_part(part)

    def _add_text_part(self, part: types.Part) -> list[TextDelta | ReasoningDelta]:
        self._end_call()
        thought = bool(part.thought)
        run = self._run
        if run is None or run.thought != thought or run.signature is not None:
            self._end_text_run()
            run = self._run = _TextRun(thought)
        text = part.text or ""
        run.pieces.append(text)
        run.signature = part.thought_signature or run.signature
        if not text:
            return []
        return [ReasoningDelta(text) if thought else TextDelta(text)]

    def _add_call_part(self, part: types.Part) -> None:
        self._end_text_run()
        call = part.function_call
        assert call is not None
        if call.name and self._call is not None and self._call.name:
            self._end_call()  # a new call while the last was still open: that one is done
        if self._call is None:
            if not (call.name or call.args or call.partial_args):
                return  # a closing ``functionCall: {}`` with nothing open
            self._call = _Call(call.name or "", signature=part.thought_signature)
        self._call.signature = self._call.signature or part.thought_signature
        self._call.add(call)
        if not self._call.open:
            self._end_call()

    def _end_text_run(self) -> None:
        if self._run is not None and (part := self._run.part()) is not None:
            self._parts.append(part)
        self._run = None

    def _end_call(self) -> None:
        if self._call is not None:
            self._parts.append(self._call)
        self._call = None

    def message(self) -> AssistantMessage:
        """The finished reply, with its parts kept for the next request."""
        self._end_text_run()
        self._end_call()
        calls = [p for p in self._parts if isinstance(p, _Call)]
        tool_calls = tuple(self._tool_call(call, n) for n, call in enumerate(calls))
        parts = [p if isinstance(p, types.Part) else _call_part(p) for p in self._parts]
        return AssistantMessage(
            text=_text_of(parts, thought=False),
            tool_calls=tool_calls,
            reasoning=_text_of(parts, thought=True) or None,
            replay={REPLAY_KEY: [p.model_dump(mode="json", exclude_none=True) for p in parts]},
        )

    def _tool_call(self, call: _Call, n: int) -> ToolCall:
        raw = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
        call_id = call.id or f"{CALL_ID_PREFIX}{self.turn}_{n}"
        error = None
        if call.unreadable:
            error = ToolCallError("INVALID_PARAMETER", call.unreadable)
        elif self.finish_reason == MAX_TOKENS and (call.open or call.growing):
            error = _CUT_CALL
        return ToolCall(call_id, call.name, call.arguments, raw, error)


def _call_part(call: _Call) -> types.Part:
    function_call = types.FunctionCall(id=call.id, name=call.name, args=call.arguments)
    return types.Part(function_call=function_call, thought_signature=call.signature)


def _text_of(parts: Iterable[types.Part], *, thought: bool) -> str:
    return "".join(p.text or "" for p in parts if bool(p.thought) == thought)


def _raw(value: Any) -> str:
    """Gemini's own word (``STOP``, ``MAX_TOKENS``), whether the SDK knew it as an enum or not."""
    return str(getattr(value, "value", value))


def _usage(
    request: ChatRequest,
    message: AssistantMessage,
    usage: types.GenerateContentResponseUsageMetadata | None,
) -> Usage:
    tool_chars = sum(
        len(json.dumps([t.name, t.description, t.parameters], ensure_ascii=False))
        for t in request.tools
    )
    output_tokens = None
    counts = (usage.candidates_token_count, usage.thoughts_token_count) if usage else ()
    if any(count is not None for count in counts):
        output_tokens = sum(count or 0 for count in counts)  # thinking is billed as output
    return Usage(
        input_chars=sum(message_chars(m) for m in request.messages) + tool_chars,
        output_chars=message_chars(message),
        input_tokens=usage.prompt_token_count if usage else None,
        output_tokens=output_tokens,
        cached_tokens=usage.cached_content_token_count if usage else None,
    )


# -- errors ----------------------------------------------------------------------------------


def _api_error(exc: genai_errors.APIError, model: str, api_key: str) -> ProviderError:
    status = exc.code or 0
    detail = _scrub(_first_line(exc.message or exc), api_key)
    if status == 429:
        wait = _retry_after_s(exc)
        return RateLimitedError(
            f"rate limited (429): {detail}", retry_after_s=wait, status_code=status
        )
    if status >= 500 or status in _TRANSIENT_STATUS:
        wait = _retry_after_s(exc)
        return TransientProviderError(
            f"server error ({status}): {detail}", retry_after_s=wait, status_code=status
        )
    if status == 401 or _is_bad_key(exc):
        return FatalProviderError(
            f"the server refused the API key ({status}); check the key in your environment",
            status_code=status,
        )
    messages = {
        403: f"access denied (403): {detail}",
        404: f"not found (404): is the model name {model!r} and the base URL right? {detail}",
    }
    message = messages.get(status, f"the server rejected the request ({status}): {detail}")
    return FatalProviderError(message, status_code=status)


def _is_bad_key(exc: genai_errors.APIError) -> bool:
    """Gemini answers a wrong key with 400 INVALID_ARGUMENT and reason API_KEY_INVALID."""
    return "API_KEY_INVALID" in json.dumps(exc.details, default=str) or "API key not valid" in (
        exc.message or ""
    )


def _retry_after_s(exc: genai_errors.APIError) -> float | None:
    """The ``Retry-After`` header, else the ``RetryInfo`` detail Gemini puts in the body."""
    headers = getattr(exc.response, "headers", None)
    if headers is not None and (wait := retry_after_s(headers)) is not None:
        return wait
    error = exc.details.get("error", exc.details) if isinstance(exc.details, dict) else {}
    for detail in error.get("details") or ():
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        if isinstance(delay, str) and delay.endswith("s"):
            with contextlib.suppress(ValueError):
                return max(0.0, float(delay[:-1]))
    return None


def _first_line(value: object) -> str:
    lines = str(value).strip().splitlines()
    return lines[0][:MAX_ERROR_CHARS] if lines else type(value).__name__


def _scrub(text: str, api_key: str) -> str:
    """Servers echo keys in errors now and then; a message is printed and logged."""
    return text.replace(api_key, "***") if api_key else text
