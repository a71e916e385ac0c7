"""A Gemini API model server on 127.0.0.1, for tests and demos of ``GeminiProvider``.

A real HTTP server (Starlette on uvicorn, in a background thread) that the official SDK talks
to as it talks to Google: ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` and
``:generateContent``. Its answers come from ``ScriptedTranslator``, as ``functionCall`` parts.

It is as strict as Gemini 3 where honyaku could go wrong:

- the first ``functionCall`` part of each reply carries a thought signature, and a request
  whose model turn comes back without it (or with another) is refused with 400;
- a model turn's calls must be answered by as many ``functionResponse`` parts, same names,
  same order (and the same ids, where it gave ids);
- a function declaration must use Gemini's schema subset (known keywords, one upper-case
  type), or the request is refused with 400 as Gemini refuses it;
- a safety setting must name a category the Gemini API adjusts and a known threshold (and
  not ``OFF`` for civic integrity), or the request is refused with 400.

Options make it answer as other Gemini models do: ``call_ids`` gives calls ids (which must come
back on the responses), ``stream_arguments`` streams arguments as Vertex ``partialArgs``. It
answers with ``functionCall`` parts whether or not the request declares tools: it does not
speak the XML protocol.

Given a ``ContentFilter``, it filters as Gemini does: a request whose text it refuses gets
``promptFeedback.blockReason: SAFETY`` and no candidate (its prompt blocked), or the first half
of its reply and then ``finishReason: SAFETY`` (its reply stopped), with the safety rating
that blocked it; each counted in ``filtered``.

Faults are the ones ``FakeLLMServer`` knows (``Fault``/``FaultKind``), each spoiling one
request: 429 with ``Retry-After`` (and Gemini's ``RetryInfo``), 500, a stream cut before its
finish reason, a dropped connection, a slow first byte, a plain JSON body. Every request body
is kept in ``requests``.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from honyaku.llm.demo import FakeCall, Reply, Turn
from honyaku.testing.content_filter import Blocked, ContentFilter
from honyaku.testing.fake_batches import BatchScript, GeminiBatches
from honyaku.testing.fake_llm import DELTA_CHARS, Fault, FaultKind
from honyaku.testing.scripted_models import Mistake, ScriptedTranslator
from honyaku.testing.server import BackgroundServer, Served

MODEL_NAME = "fake-gemini"
CHARS_PER_TOKEN = 2
THOUGHTS_TOKENS = 7
"""Every reply "thinks" this much, so usage shows thinking billed as output."""
_SIGNATURE_SECRET = b"honyaku fake gemini"
_SCHEMA_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}
_FORMATS = {
    "STRING": {"enum", "date-time"},
    "INTEGER": {"int32", "int64"},
    "NUMBER": {"float", "double"},
}
_HARM_CATEGORIES = (
    "HARM_CATEGORY_HATE_SPEECH",
    "HARM_CATEGORY_SEXUALLY_EXPLICIT",
    "HARM_CATEGORY_DANGEROUS_CONTENT",
    "HARM_CATEGORY_HARASSMENT",
    "HARM_CATEGORY_CIVIC_INTEGRITY",
)
"""The categories the Gemini API lets a request adjust, in the order its error names them."""
_THRESHOLDS = {
    "HARM_BLOCK_THRESHOLD_UNSPECIFIED",
    "BLOCK_LOW_AND_ABOVE",
    "BLOCK_MEDIUM_AND_ABOVE",
    "BLOCK_ONLY_HIGH",
    "BLOCK_NONE",
    "OFF",
}
BLOCKING_CATEGORY = "HARM_CATEGORY_DANGEROUS_CONTENT"
"""The category the fake's filter says it blocked for."""
_SCHEMA_KEYS = {
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
}


@dataclass
class FakeGeminiServer(Served):
    translator: ScriptedTranslator = field(default_factory=ScriptedTranslator)
    latency_s: float = 0.0
    """Time to first byte of every reply, like a real model's thinking time."""
    delta_chars: int = DELTA_CHARS
    call_ids: bool = False
    """Give every ``functionCall`` an id, as some Gemini models do; they must come back."""
    stream_arguments: bool = False
    """Stream call arguments as Vertex does: ``partialArgs`` by JSON path, then ``{}``."""
    api_key: str | None = None
    """When set, any other key is refused with Gemini's 400 ``API_KEY_INVALID``."""
    filter: ContentFilter | None = None
    """A provider's content filter: the requests it refuses, answered as Gemini does."""
    filtered: int = 0
    """Requests its filter refused, at their prompt or in their reply."""
    host: str = "127.0.0.1"
    port: int = 0
    faults: deque[Fault] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    batch_script: BatchScript = field(default_factory=BatchScript)
    """How its batch mode (``:batchGenerateContent``, ``batches/…``) behaves."""
    batches: GeminiBatches = field(init=False)
    _server: BackgroundServer | None = None

    def __post_init__(self) -> None:
        self.batches = GeminiBatches(self.batch_script, self.answer, _request_problem)

    @property
    def url(self) -> str:
        """The base URL to give the SDK; it adds ``/v1beta/models/...`` itself."""
        return f"http://{self.host}:{self.port}"

    @property
    def mistakes(self) -> set[Mistake]:
        return self.translator.mistakes

    def app(self) -> Starlette:
        route = Route("/{version}/models/{target}", self._generate, methods=["POST"])
        batch = Route("/{version}/batches/{name}", self._batch, methods=["GET", "POST"])
        return Starlette(routes=[route, batch])

    async def _batch(self, request: Request) -> Response:
        if self.api_key is not None and request.headers.get("x-goog-api-key") != self.api_key:
            return _bad_key()
        name, _, action = request.path_params["name"].partition(":")
        return self.batches.answer_batch(name, cancel=action == "cancel")

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The whole reply ``body`` gets, as ``generateContent`` answers it (a batch line's)."""
        model = str(body.get("model") or MODEL_NAME).removeprefix("models/")
        filtered = self._filters(body)
        if filtered is Blocked.PROMPT:
            prompt = len(json.dumps(body.get("contents", []), ensure_ascii=False))
            feedback = {"blockReason": "SAFETY", "safetyRatings": _ratings()}
            usage = {"promptTokenCount": prompt // CHARS_PER_TOKEN}
            return {"promptFeedback": feedback, "usageMetadata": usage, "modelVersion": model}
        reply = self.translator.reply(*_conversation(body), _offered(body))
        parts = self._parts(reply, body)
        usage = _usage(body, reply)
        if filtered is Blocked.REPLY:
            return _merged(_stopped_by_filter(parts, model, usage))
        return _response(parts, model, usage, finished=True)

    async def _generate(self, request: Request) -> Response:
        # The latency counts from arrival, as a model's time to first byte includes its work.
        first_byte_at = time.monotonic() + self.latency_s
        body = await request.json()
        self.requests.append(body)
        model, _, method = request.path_params["target"].partition(":")
        if method == "batchGenerateContent":
            if self.api_key is not None and request.headers.get("x-goog-api-key") != self.api_key:
                return _bad_key()
            return await self.batches.create(body, f"models/{model}")
        fault = self.faults.popleft() if self.faults else None
        if refusal := self._refusal(request, body, method, fault):
            return refusal
        streamed = method != "generateContent" and not (
            fault and fault.kind is FaultKind.NO_STREAMING
        )
        if (filtered := self._filters(body)) is Blocked.PROMPT:
            return _prompt_blocked(model, body, streamed=streamed)
        reply = self.translator.reply(*_conversation(body), _offered(body))
        parts = self._parts(reply, body)
        if fault and fault.kind is FaultKind.SLOW_FIRST_BYTE:
            first_byte_at += fault.seconds
        usage = _usage(body, reply)
        if filtered is Blocked.REPLY:
            chunks = _stopped_by_filter(parts, model, usage)
        else:
            chunks = _chunks(parts, model, usage)
        if not streamed:
            await asyncio.sleep(first_byte_at - time.monotonic())
            whole = _merged(chunks) if filtered else _response(parts, model, usage, finished=True)
            return JSONResponse(whole)
        return StreamingResponse(
            self._sse(chunks, fault, first_byte_at), media_type="text/event-stream"
        )

    def _refusal(
        self, request: Request, body: dict[str, Any], method: str, fault: Fault | None
    ) -> Response | None:
        """Gemini's answer to a request it will not serve, in the order Gemini checks."""
        if method not in ("streamGenerateContent", "generateContent"):
            return _error(404, f"Method {method!r} is not found.", "NOT_FOUND")
        if self.api_key is not None and request.headers.get("x-goog-api-key") != self.api_key:
            return _bad_key()
        if fault is not None and (refusal := _fault_refusal(fault)):
            return refusal
        if problem := _request_problem(body):
            return _error(400, problem, "INVALID_ARGUMENT")
        return None

    def _filters(self, body: dict[str, Any]) -> Blocked | None:
        """Where its filter refuses this request, if it does (counted in ``filtered``)."""
        if self.filter is None or not self.filter.blocks(_request_text(body)):
            return None
        self.filtered += 1
        return self.filter.blocked

    def _parts(self, reply: Reply, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The reply as streamed parts: text in small pieces, then the calls."""
        parts = [{"text": piece} for piece in _pieces(reply.text, self.delta_chars)]
        turn = sum(content.get("role") == "model" for content in body.get("contents", []))
        for n, call in enumerate(reply.calls):
            call_id = f"fc_{turn}_{n}_{_digest(call)[:6].hex()}" if self.call_ids else None
            whole = _call_parts(call, call_id, self.delta_chars, streamed=self.stream_arguments)
            if n == 0:
                whole[0]["thoughtSignature"] = _signature(call)
            parts += whole
        if not reply.calls:
            # As Gemini does: a text reply's signature rides on a last, empty text part.
            parts.append({"text": "", "thoughtSignature": _encode(_digest(reply.text))})
        return parts

    async def _sse(
        self, chunks: list[dict[str, Any]], fault: Fault | None, first_byte_at: float
    ) -> AsyncIterator[bytes]:
        await asyncio.sleep(first_byte_at - time.monotonic())
        cut = fault is not None and fault.kind in (FaultKind.CUT_STREAM, FaultKind.DROP_CONNECTION)
        for n, chunk in enumerate(chunks):
            if cut and n == len(chunks) // 2:
                if fault is not None and fault.kind is FaultKind.DROP_CONNECTION:
                    raise ConnectionResetError("fake model dropped the connection")
                return
            yield f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()


# -- refusals --------------------------------------------------------------------------------


def _error(
    status: int, message: str, code: str, headers: dict[str, str] | None = None, **more: Any
) -> JSONResponse:
    """An error body as Google APIs write it: code, message, status and details."""
    error = {"code": status, "message": message, "status": code, **more}
    return JSONResponse({"error": error}, status_code=status, headers=headers)


def _bad_key() -> JSONResponse:
    reason = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
    return _error(
        400,
        "API key not valid. Please pass a valid API key.",
        "INVALID_ARGUMENT",
        details=[reason],
    )


def _fault_refusal(fault: Fault) -> Response | None:
    headers = {"retry-after": f"{fault.seconds:g}"}
    if fault.kind is FaultKind.RATE_LIMIT:
        delay = f"{fault.seconds:g}s"
        retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
        message = "You exceeded your current quota, please check your plan."
        return _error(429, message, "RESOURCE_EXHAUSTED", headers, details=[retry])
    if fault.kind is FaultKind.SERVER_ERROR:
        return _error(500, "An internal error has occurred.", "INTERNAL", headers)
    return None


def _request_problem(body: dict[str, Any]) -> str | None:
    """What Gemini would refuse in this request, in its own words; ``None`` if nothing."""
    if problem := _safety_problem(body.get("safetySettings") or []):
        return problem
    for tool in body.get("tools") or ():
        for declaration in tool.get("functionDeclarations") or ():
            where = f"function_declarations[{declaration.get('name')}].parameters"
            if problem := _schema_problem(declaration.get("parameters"), where):
                return problem
    contents = body.get("contents") or []
    for n, content in enumerate(contents):
        calls = [p["functionCall"] for p in content.get("parts", []) if "functionCall" in p]
        if content.get("role") != "model" or not calls:
            continue
        if problem := _signature_problem(content, n):
            return problem
        following = contents[n + 1] if n + 1 < len(contents) else None
        if following is not None and (problem := _responses_problem(calls, following)):
            return problem
    return None


def _safety_problem(settings: list[dict[str, Any]]) -> str | None:
    allowed = ", ".join(f"HarmCategory.{category}" for category in _HARM_CATEGORIES)
    for n, setting in enumerate(settings):
        category, threshold = setting.get("category"), setting.get("threshold")
        if category not in _HARM_CATEGORIES:
            return (
                f"* GenerateContentRequest.safety_settings[{n}]: element predicate failed: "
                f"$.category in ({allowed})"
            )
        if threshold not in _THRESHOLDS:
            return f'Invalid value at "safety_settings[{n}].threshold", {json.dumps(threshold)}'
        if category == "HARM_CATEGORY_CIVIC_INTEGRITY" and threshold == "OFF":
            return "HARM_CATEGORY_CIVIC_INTEGRITY threshold cannot be 5"
    return None


def _schema_problem(schema: Any, where: str) -> str | None:
    """Gemini's parser takes a field's JSON name or its proto name (the SDK sends the latter)."""
    if schema is None:
        return None
    if not isinstance(schema, dict):
        return f"Invalid JSON payload received. {where} must be an object."
    schema = {_camel(key): value for key, value in schema.items()}
    for key in schema:
        if key not in _SCHEMA_KEYS:
            return f"Invalid JSON payload received. Unknown name {key!r} at '{where}'."
    kind = schema.get("type")
    if isinstance(kind, list):
        return (
            f"Invalid JSON payload received. Unknown name 'type' at '{where}': "
            "Proto field is not repeating, cannot start list."
        )
    if kind is not None and kind not in _SCHEMA_TYPES:
        return f"Invalid value at '{where}.type': {json.dumps(kind)}"
    if "enum" in schema and not all(isinstance(v, str) for v in schema["enum"]):
        return f"Invalid value at '{where}.enum': only strings are allowed."
    if "format" in schema and schema["format"] not in _FORMATS.get(kind, ()):
        return f"{where}.format: {schema['format']!r} is not supported for {kind} type"
    children = [
        (f"{where}.properties[{k}]", v) for k, v in (schema.get("properties") or {}).items()
    ]
    children += [(f"{where}.any_of[{n}]", v) for n, v in enumerate(schema.get("anyOf") or ())]
    if "items" in schema:
        children.append((f"{where}.items", schema["items"]))
    return next((p for w, s in children if (p := _schema_problem(s, w))), None)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def _signature_problem(content: dict[str, Any], position: int) -> str | None:
    first = next(p for p in content["parts"] if "functionCall" in p)
    call = FakeCall(first["functionCall"].get("name", ""), first["functionCall"].get("args") or {})
    given = first.get("thoughtSignature")
    if given is None or _decode(given) != _digest(call):
        return (
            f"Function call is missing a thought_signature in functionCall parts. "
            f"Additional data, function call `default_api:{call.name}`, position {position + 1}."
        )
    return None


def _responses_problem(calls: list[dict[str, Any]], following: dict[str, Any]) -> str | None:
    responses = [
        p["functionResponse"] for p in following.get("parts", []) if "functionResponse" in p
    ]
    if len(responses) != len(calls):
        return (
            "Please ensure that the number of function response parts is equal to the number "
            "of function call parts of the function call turn."
        )
    for call, response in zip(calls, responses, strict=True):
        if call.get("name") != response.get("name") or call.get("id") != response.get("id"):
            return (
                f"The function response for {call.get('name')} ({call.get('id')}) does not "
                f"match its function call: got {response.get('name')} ({response.get('id')})."
            )
    return None


# -- reading a request -----------------------------------------------------------------------


def _request_text(body: dict[str, Any]) -> str:
    """What a filter reads of a request: the system instruction and every turn's parts."""
    contents = [body.get("systemInstruction") or {}, *(body.get("contents") or [])]
    return "\n".join(
        part.get("text")
        or json.dumps(part.get("functionCall") or part.get("functionResponse") or "")
        for content in contents
        for part in content.get("parts") or []
    )


def _offered(body: dict[str, Any]) -> tuple[str, ...]:
    """The names of the functions the request declares."""
    return tuple(
        declaration.get("name", "")
        for tool in body.get("tools") or ()
        for declaration in tool.get("functionDeclarations") or ()
    )


def _conversation(body: dict[str, Any]) -> tuple[str, list[Turn]]:
    """The system instruction and the turns, in the translator's wire-neutral form."""
    system_parts = (body.get("systemInstruction") or {}).get("parts") or []
    system = "".join(p.get("text", "") for p in system_parts)
    turns: list[Turn] = []
    for content in body.get("contents") or []:
        parts = content.get("parts") or []
        texts = "".join(p.get("text", "") for p in parts if not p.get("thought"))
        if content.get("role") == "model":
            calls = tuple(
                FakeCall(p["functionCall"].get("name", ""), p["functionCall"].get("args") or {})
                for p in parts
                if "functionCall" in p
            )
            turns.append(Turn("assistant", texts, calls))
            continue
        results = tuple(
            p["functionResponse"].get("response") or {} for p in parts if "functionResponse" in p
        )
        if results:
            turns.append(Turn("tool", results=results))
        if texts or not results:
            turns.append(Turn("user", texts))
    return system, turns


# -- writing a reply -------------------------------------------------------------------------


def _digest(value: FakeCall | str) -> bytes:
    """A signature the server can check without remembering what it sent."""
    if isinstance(value, FakeCall):
        value = json.dumps([value.name, value.arguments], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(_SIGNATURE_SECRET + value.encode()).digest()


def _signature(call: FakeCall) -> str:
    return _encode(_digest(call))


def _encode(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _decode(text: str) -> bytes:
    """Gemini reads either base64 alphabet; the SDK sends the URL-safe one."""
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _call_parts(
    call: FakeCall, call_id: str | None, delta_chars: int, *, streamed: bool
) -> list[dict[str, Any]]:
    head: dict[str, Any] = {"name": call.name}
    if call_id is not None:
        head["id"] = call_id
    if not streamed:
        return [{"functionCall": {**head, "args": call.arguments}}]
    parts = [{"functionCall": {**head, "willContinue": True}}]
    for path, value in _leaves(call.arguments, "$"):
        parts += [
            {"functionCall": {"partialArgs": [piece], "willContinue": True}}
            for piece in _partial_args(path, value, delta_chars)
        ]
    parts.append({"functionCall": {}})
    return parts


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every scalar in the arguments with its JSON path (empty lists and objects vanish)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{index}]")
    else:
        yield path, value


def _partial_args(path: str, value: Any, delta_chars: int) -> list[dict[str, Any]]:
    if isinstance(value, str):
        pieces = [
            {"jsonPath": path, "stringValue": piece, "willContinue": True}
            for piece in _pieces(value, delta_chars)
        ]
        return [*pieces, {"jsonPath": path, "stringValue": ""}]
    if isinstance(value, bool):
        return [{"jsonPath": path, "boolValue": value}]
    if value is None:
        return [{"jsonPath": path, "nullValue": "NULL_VALUE"}]
    return [{"jsonPath": path, "numberValue": value}]


def _response(
    parts: list[dict[str, Any]], model: str, usage: dict[str, int], *, finished: bool
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finished:
        candidate["finishReason"] = "STOP"
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": model,
        "responseId": "fake-gemini-response",
    }


def _merged(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A streamed reply as one body: its chunks' parts in one candidate, as Gemini answers
    ``generateContent``."""
    last = chunks[-1]
    parts = [
        part
        for chunk in chunks
        for candidate in chunk["candidates"]
        for part in (candidate.get("content") or {}).get("parts", [])
    ]
    candidate = {**last["candidates"][0], "content": {"role": "model", "parts": parts}}
    return {**last, "candidates": [candidate]}


def _prompt_blocked(model: str, body: dict[str, Any], *, streamed: bool) -> Response:
    """Gemini's answer to a prompt its filter refuses: feedback, and no candidate."""
    prompt = len(json.dumps(body.get("contents", []), ensure_ascii=False)) // CHARS_PER_TOKEN
    answer = {
        "promptFeedback": {"blockReason": "SAFETY", "safetyRatings": _ratings()},
        "usageMetadata": {"promptTokenCount": prompt, "totalTokenCount": prompt},
        "modelVersion": model,
        "responseId": "fake-gemini-response",
    }
    if not streamed:
        return JSONResponse(answer)
    event = f"data: {json.dumps(answer)}\r\n\r\n"
    return Response(event, media_type="text/event-stream")


def _stopped_by_filter(
    parts: list[dict[str, Any]], model: str, usage: dict[str, int]
) -> list[dict[str, Any]]:
    """The reply's first half, one part a chunk, then a chunk that stops it for ``SAFETY``."""
    chunks = [_response([part], model, usage, finished=False) for part in parts[: len(parts) // 2]]
    stop = {"finishReason": "SAFETY", "index": 0, "safetyRatings": _ratings()}
    chunks.append({**_response([], model, usage, finished=False), "candidates": [stop]})
    return chunks


def _ratings() -> list[dict[str, Any]]:
    return [
        {"category": category, "probability": "HIGH", "blocked": True}
        if category == BLOCKING_CATEGORY
        else {"category": category, "probability": "NEGLIGIBLE"}
        for category in _HARM_CATEGORIES[:4]
    ]


def _chunks(parts: list[dict[str, Any]], model: str, usage: dict[str, int]) -> list[dict]:
    """One part per chunk, then an empty text part with the finish reason, as Gemini ends."""
    chunks = [_response([part], model, usage, finished=False) for part in parts]
    chunks.append(_response([{"text": ""}], model, usage, finished=True))
    return chunks


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, int]:
    prompt = len(json.dumps(body.get("contents", []), ensure_ascii=False)) // CHARS_PER_TOKEN
    output = len(reply.text) + sum(len(json.dumps(c.arguments)) for c in reply.calls)
    candidates = output // CHARS_PER_TOKEN
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "thoughtsTokenCount": THOUGHTS_TOKENS,
        "totalTokenCount": prompt + candidates + THOUGHTS_TOKENS,
    }
