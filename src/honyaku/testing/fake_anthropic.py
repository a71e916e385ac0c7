"""An Anthropic Messages API model server on 127.0.0.1, for tests and demos of
``AnthropicProvider``.

A real HTTP server (Starlette on uvicorn, in a background thread) that the official SDK talks
to as it talks to Anthropic: ``POST /v1/messages`` (streamed or not), ``GET /v1/models/{id}``
and the Message Batches endpoints (``fake_batches``). Its answers come from
``ScriptedTranslator``: ``tool_use`` blocks where the request offers tools, XML blocks in the
text where it does not (the XML protocol).

Its prompt cache works as Anthropic's does (``BreakpointCache``): only a prefix ending at a
``cache_control`` breakpoint is written, and a request reads the longest prefix an earlier one
wrote that ends at one of its own breakpoints or up to ``LOOKBACK_BLOCKS`` blocks before one;
a prefix shorter than ``min_cacheable_tokens`` is never cached. Usage reports
``cache_creation_input_tokens`` and ``cache_read_input_tokens`` beside ``input_tokens``, and
every bill is kept in ``bills``.

It is as strict as Anthropic where honyaku could go wrong: ``max_tokens`` is required; at most
four breakpoints; an empty text block is refused; every ``tool_use`` needs its ``tool_result``
in the next message; with thinking on (``thinking: {"type": "enabled"}``), a reply with tool
use must come back starting with its thinking block, its signature intact. With thinking on,
the model thinks before each reply, drafting there the calls it then makes otherwise
(``drafted_calls``, marked ``DRAFT_MARK``), and with ``redacts`` its thinking also holds a
``redacted_thinking`` block.

Faults (``Fault``) each spoil one request: 429 ``rate_limit_error`` and 529
``overloaded_error`` with ``retry-after``, 500, a stream cut halfway (``CUT_STREAM``), an
``error`` event mid-stream (``STREAM_ERROR``), a dropped connection, a slow first byte. A
``ContentFilter`` makes it refuse as Claude's classifiers do: ``stop_reason: "refusal"``
(after half the reply, or at once). A reply longer than the request's ``max_tokens`` stops
there with ``stop_reason: "max_tokens"``. ``requests_left`` sends the
``anthropic-ratelimit-requests-*`` headers with each answer.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from honyaku.domain.tokens import SCRIPT_RATIO, TokenCounter
from honyaku.llm.demo import FakeCall, Reply, arguments_json, read_conversation, reply_text
from honyaku.testing.content_filter import Blocked, ContentFilter
from honyaku.testing.fake_batches import AnthropicBatches, BatchScript
from honyaku.testing.fake_llm import DELTA_CHARS, Fault, FaultKind, thought_text
from honyaku.testing.scripted_models import Mistake, ScriptedTranslator, drafted_calls
from honyaku.testing.server import BackgroundServer, Served

MODEL_NAME = "claude-fake-4"
CONTEXT_TOKENS = 200_000
MAX_BREAKPOINTS = 4
LOOKBACK_BLOCKS = 20
"""How far before a breakpoint Anthropic looks for a prefix an earlier request wrote."""
MIN_CACHEABLE_TOKENS = 1024
"""The shortest prefix Anthropic caches (Sonnet's; Haiku's is longer)."""
_SIGNATURE_SECRET = b"honyaku fake anthropic"
REFUSAL_EXPLANATION = "This request was refused by the fake's classifier."


@dataclass(frozen=True, slots=True)
class CacheBill:
    """One request's input as Anthropic bills it, and its output."""

    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    output_tokens: int = 0
    thinking_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def usage(self) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "output_tokens": self.output_tokens,
        }
        if self.thinking_tokens:
            usage["output_tokens_details"] = {"thinking_tokens": self.thinking_tokens}
        return usage


@dataclass
class BreakpointCache:
    """Anthropic's prompt cache: prefixes written at breakpoints, read by later requests."""

    tokens: TokenCounter = SCRIPT_RATIO
    min_cacheable_tokens: int = MIN_CACHEABLE_TOKENS
    lookback_blocks: int = LOOKBACK_BLOCKS
    written: set[str] = field(default_factory=set)

    def bill(self, body: dict[str, Any]) -> CacheBill:
        """What ``body``'s prompt costs, given what earlier ones wrote; then write its own."""
        blocks = prompt_blocks(body)
        sizes = [round(self.tokens.count(_canonical(block))) for block in blocks]
        ends = [sum(sizes[: n + 1]) for n in range(len(sizes))]
        keys = _prefix_keys(blocks)
        marks = [n for n, block in enumerate(blocks) if block.get("cache_control")]
        read_at = -1
        for mark in marks:
            for at in range(mark, max(-1, mark - self.lookback_blocks), -1):
                if keys[at] in self.written and at > read_at:
                    read_at = at
                    break
        read = ends[read_at] if read_at >= 0 else 0
        wrote_to = read_at
        for mark in marks:
            if mark > read_at and ends[mark] >= self.min_cacheable_tokens:
                self.written.add(keys[mark])
                wrote_to = max(wrote_to, mark)
        written = ends[wrote_to] - read if wrote_to >= 0 else 0
        total = ends[-1] if ends else 0
        return CacheBill(total - read - written, written, read)


def prompt_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The prompt in the order Anthropic caches it: tools, system, then each message's
    blocks, each labelled with its role."""
    blocks = [{"tool": tool} for tool in body.get("tools") or ()]
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    blocks += [{"system": block} for block in system]
    for message in body.get("messages") or ():
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks += [{message.get("role", "user"): block} for block in content or ()]
    return [_with_mark(block) for block in blocks]


def _with_mark(labelled: dict[str, Any]) -> dict[str, Any]:
    """The block, its breakpoint lifted out beside it (it is not part of the prefix)."""
    ((label, block),) = labelled.items()
    inner = {k: v for k, v in block.items() if k != "cache_control"}
    return {label: inner, "cache_control": block.get("cache_control")}


def _canonical(block: dict[str, Any]) -> str:
    return json.dumps(
        {k: v for k, v in block.items() if k != "cache_control"},
        ensure_ascii=False,
        sort_keys=True,
    )


def _prefix_keys(blocks: list[dict[str, Any]]) -> list[str]:
    digest = hashlib.sha256()
    keys = []
    for block in blocks:
        digest.update(_canonical(block).encode())
        keys.append(digest.copy().hexdigest())
    return keys


@dataclass
class FakeAnthropicServer(Served):
    translator: ScriptedTranslator = field(default_factory=ScriptedTranslator)
    latency_s: float = 0.0
    delta_chars: int = DELTA_CHARS
    redacts: bool = False
    """With thinking on, each reply's thinking also holds a ``redacted_thinking`` block."""
    api_key: str | None = None
    """When set, any other ``x-api-key`` is refused with 401."""
    filter: ContentFilter | None = None
    """Claude's classifiers: the requests refused with ``stop_reason: "refusal"``."""
    filtered: int = 0
    requests_left: int | None = None
    """Sent as ``anthropic-ratelimit-requests-remaining`` (one less each answer, down to 0),
    with a reset ``reset_s`` from now."""
    reset_s: float = 1.0
    models: tuple[str, ...] = (MODEL_NAME,)
    """The names ``GET /v1/models/{id}`` knows."""
    tokens: TokenCounter = SCRIPT_RATIO
    cache: BreakpointCache = field(default_factory=BreakpointCache)
    batch_script: BatchScript = field(default_factory=BatchScript)
    host: str = "127.0.0.1"
    port: int = 0
    faults: deque[Fault] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    bills: list[CacheBill] = field(default_factory=list)
    """What each answered request was billed, in order."""
    batches: AnthropicBatches = field(init=False)
    _server: BackgroundServer | None = None

    def __post_init__(self) -> None:
        self.batches = AnthropicBatches(self.batch_script, self.answer, request_problem)

    @property
    def url(self) -> str:
        """The base URL to give the SDK; it adds ``/v1/messages`` itself."""
        return f"http://{self.host}:{self.port}"

    @property
    def mistakes(self) -> set[Mistake]:
        return self.translator.mistakes

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/messages", self._messages, methods=["POST"]),
                Route("/v1/models/{model}", self._model),
                *self.batches.routes(self._refused_key),
            ]
        )

    async def _model(self, request: Request) -> Response:
        model = request.path_params["model"]
        if model not in self.models:
            return _error(404, "not_found_error", f"model: {model}")
        created = "2025-09-29T00:00:00Z"
        info = {"type": "model", "id": model, "display_name": model, "created_at": created}
        return JSONResponse(info | {"max_input_tokens": CONTEXT_TOKENS, "max_tokens": 64_000})

    def _refused_key(self, request: Request) -> Response | None:
        if self.api_key is not None and request.headers.get("x-api-key") != self.api_key:
            return _error(401, "authentication_error", "invalid x-api-key")
        return None

    async def _messages(self, request: Request) -> Response:
        first_byte_at = time.monotonic() + self.latency_s
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if refused := self._refused_key(request):
            return refused
        fault = self.faults.popleft() if self.faults else None
        if fault is not None and (refusal := _fault_refusal(fault)):
            return refusal
        if problem := request_problem(body):
            return _error(400, "invalid_request_error", problem)
        message = self.answer(body)
        if fault and fault.kind is FaultKind.SLOW_FIRST_BYTE:
            first_byte_at += fault.seconds
        headers = self._rate_headers()
        if not body.get("stream"):
            await asyncio.sleep(first_byte_at - time.monotonic())
            return JSONResponse(message, headers=headers)
        events = list(stream_events(message, self.delta_chars))
        return StreamingResponse(
            self._sse(events, fault, first_byte_at),
            media_type="text/event-stream",
            headers=headers,
        )

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The whole reply ``body`` gets (a message, as a non-streamed request or a batch
        line gets it), billed with the cache."""
        system, turns = read_conversation(_openai_shaped(body))
        offered = tuple(tool.get("name", "") for tool in body.get("tools") or ())
        reply = self.translator.reply(system, turns, offered)
        thinking = (body.get("thinking") or {}).get("type") == "enabled"
        content = self._content(reply, xml=not offered, thinking=thinking)
        refused = self.filter is not None and self.filter.blocks(_conversation_text(body))
        if refused:
            self.filtered += 1
            assert self.filter is not None
            kept = 0 if self.filter.blocked is Blocked.PROMPT else len(content) // 2
            content = content[:kept]
        bill = self.cache.bill(body)
        content, output, stop = _within(content, body.get("max_tokens"), self.tokens)
        thought = "".join(b["thinking"] for b in content if b["type"] == "thinking")
        bill = CacheBill(
            bill.input_tokens,
            bill.cache_creation_input_tokens,
            bill.cache_read_input_tokens,
            output,
            round(self.tokens.count(thought)),
        )
        self.bills.append(bill)
        if refused:
            stop = "refusal"
        elif stop is None:
            stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        message: dict[str, Any] = {
            "id": f"msg_fake_{len(self.bills):04d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", MODEL_NAME),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": bill.usage(),
        }
        if refused:
            message["stop_details"] = {
                "type": "refusal",
                "category": "cyber",
                "explanation": REFUSAL_EXPLANATION,
            }
        return message

    def _content(self, reply: Reply, *, xml: bool, thinking: bool) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        if thinking:
            thought = thought_text(drafted_calls(reply.calls))
            content.append(
                {"type": "thinking", "thinking": thought, "signature": _signature(thought)}
            )
            if self.redacts:
                content.append({"type": "redacted_thinking", "data": _redacted(thought)})
        text = reply_text(reply, xml=xml)
        if text:
            content.append({"type": "text", "text": text})
        if not xml:
            turn = len(self.bills)
            content += [
                {
                    "type": "tool_use",
                    "id": f"toolu_fake_{turn:04d}_{n}",
                    "name": call.name,
                    "input": call.arguments,
                }
                for n, call in enumerate(reply.calls)
            ]
        return content

    def _rate_headers(self) -> dict[str, str]:
        if self.requests_left is None:
            return {}
        left = self.requests_left
        self.requests_left = max(0, left - 1)
        reset = datetime.now(UTC) + timedelta(seconds=self.reset_s)
        return {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": str(max(0, left - 1)),
            "anthropic-ratelimit-requests-reset": reset.isoformat().replace("+00:00", "Z"),
        }

    async def _sse(
        self, events: list[dict[str, Any]], fault: Fault | None, first_byte_at: float
    ) -> AsyncIterator[bytes]:
        await asyncio.sleep(first_byte_at - time.monotonic())
        kind = fault.kind if fault is not None else None
        for n, event in enumerate(events):
            if n == len(events) // 2:
                if kind is FaultKind.CUT_STREAM:
                    return
                if kind is FaultKind.DROP_CONNECTION:
                    raise ConnectionResetError("fake model dropped the connection")
                if kind is FaultKind.STREAM_ERROR:
                    yield _sse_event({"type": "error", "error": _overloaded()})
                    return
            yield _sse_event(event)


# -- refusals --------------------------------------------------------------------------------


def _error(
    status: int, kind: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return JSONResponse(body, status, headers={"request-id": "req_fake"} | (headers or {}))


def _overloaded() -> dict[str, str]:
    return {"type": "overloaded_error", "message": "Overloaded"}


def _fault_refusal(fault: Fault) -> Response | None:
    headers = {"retry-after": f"{fault.seconds:g}"}
    if fault.kind is FaultKind.RATE_LIMIT:
        message = "This request would exceed the rate limit for your organization."
        return _error(429, "rate_limit_error", message, headers)
    if fault.kind is FaultKind.OVERLOADED:
        return _error(529, "overloaded_error", "Overloaded", headers)
    if fault.kind is FaultKind.SERVER_ERROR:
        return _error(500, "api_error", "Internal server error", headers)
    return None


def request_problem(body: dict[str, Any]) -> str | None:
    """What Anthropic would refuse in this request, in its words; ``None`` if nothing."""
    if not isinstance(body.get("max_tokens"), int):
        return "max_tokens: Field required"
    blocks = prompt_blocks(body)
    marks = sum(1 for block in blocks if block.get("cache_control"))
    if marks > MAX_BREAKPOINTS:
        return (
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {marks}."
        )
    thinking = body.get("thinking") or {}
    if thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens", 0)
        if budget < 1024:
            return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        if budget >= body["max_tokens"]:
            return "`max_tokens` must be greater than `thinking.budget_tokens`."
    messages = body.get("messages") or []
    if messages and messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    for n, message in enumerate(messages):
        if problem := _message_problem(message, n, messages, thinking.get("type") == "enabled"):
            return problem
    return None


def _message_problem(
    message: dict[str, Any], n: int, messages: Sequence[dict[str, Any]], thinking: bool
) -> str | None:
    content = message.get("content")
    if not content:
        return f"messages.{n}: all messages must have non-empty content"
    if isinstance(content, str):
        return None
    for block in content:
        if block.get("type") == "text" and not block.get("text"):
            return f"messages.{n}: text content blocks must be non-empty"
    calls = [b["id"] for b in content if b.get("type") == "tool_use"]
    if not calls:
        return None
    following = messages[n + 1]["content"] if n + 1 < len(messages) else []
    answered = {b.get("tool_use_id") for b in following if isinstance(b, dict)}
    if missing := [call for call in calls if call not in answered]:
        return (
            f"messages.{n + 1}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message."
        )
    if thinking:
        first = content[0]
        if first.get("type") not in ("thinking", "redacted_thinking"):
            return (
                f"messages.{n}.content.0.type: Expected `thinking` or `redacted_thinking`, but "
                f"found `{first.get('type')}`. When `thinking` is enabled, a final `assistant` "
                "message must start with a thinking block."
            )
        for m, block in enumerate(content):
            if block.get("type") == "thinking" and block.get("signature") != _signature(
                block.get("thinking", "")
            ):
                return f"messages.{n}.content.{m}: Invalid `signature` in `thinking` block"
            if block.get("type") == "redacted_thinking" and not _redaction_holds(block):
                return f"messages.{n}.content.{m}: Invalid `data` in `redacted_thinking` block"
    return None


# -- reading a request -----------------------------------------------------------------------


def _openai_shaped(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's turns as Chat Completions messages, which the scripted models read."""
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "".join(b.get("text", "") for b in system)}
    ]
    for message in body.get("messages") or ():
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        if message.get("role") == "assistant":
            calls = [
                {"function": {"name": b["name"], "arguments": arguments_json(b["input"])}}
                for b in content
                if b.get("type") == "tool_use"
            ]
            messages.append({"role": "assistant", "content": text, "tool_calls": calls})
            continue
        for block in content:
            if block.get("type") == "tool_result":
                messages.append({"role": "tool", "content": _result_text(block)})
        if text:
            messages.append({"role": "user", "content": text})
    return messages


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def _conversation_text(body: dict[str, Any]) -> str:
    """What the classifiers read: every message, not the tools."""
    return json.dumps([body.get("system"), body.get("messages")], ensure_ascii=False)


# -- writing a reply -------------------------------------------------------------------------


def _digest(text: str) -> bytes:
    return hashlib.sha256(_SIGNATURE_SECRET + text.encode()).digest()


def _signature(thought: str) -> str:
    return base64.b64encode(_digest(thought)).decode()


def _redacted(thought: str) -> str:
    return base64.b64encode(b"redacted:" + _digest(thought)).decode()


def _redaction_holds(block: dict[str, Any]) -> bool:
    try:
        return base64.b64decode(block.get("data", "")).startswith(b"redacted:")
    except ValueError:
        return False


def _within(
    content: list[dict[str, Any]], max_tokens: int | None, tokens: TokenCounter
) -> tuple[list[dict[str, Any]], int, str | None]:
    """The reply as far as ``max_tokens`` lets it go, its output tokens, and ``max_tokens``
    as its stop reason where it was cut."""
    kept: list[dict[str, Any]] = []
    spent = 0
    for block in content:
        cost = round(tokens.count(_block_text(block)))
        if max_tokens is not None and spent + cost > max_tokens:
            room = max_tokens - spent
            if block["type"] == "text" and room > 0:
                text = block["text"]
                kept.append({**block, "text": text[: max(1, len(text) * room // max(cost, 1))]})
            return kept, max_tokens, "max_tokens"
        kept.append(block)
        spent += cost
    return kept, spent, None


def _block_text(block: dict[str, Any]) -> str:
    match block["type"]:
        case "text":
            return str(block["text"])
        case "thinking":
            return str(block["thinking"])
        case "tool_use":
            return str(block["name"]) + arguments_json(block["input"])
    return ""


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def stream_events(message: dict[str, Any], delta_chars: int) -> Iterator[dict[str, Any]]:
    """A whole message as Anthropic streams it: start, each block (its text, thinking or
    input in small deltas, a signature at the end of a thought), the stop, and its usage."""
    usage = message["usage"]
    start_usage = {**usage, "output_tokens": 1}
    start_usage.pop("output_tokens_details", None)
    yield {
        "type": "message_start",
        "message": {**message, "content": [], "stop_reason": None, "usage": start_usage},
    }
    for index, block in enumerate(message["content"]):
        yield from _block_events(index, block, delta_chars)
        if index == 0:
            yield {"type": "ping"}
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    if "stop_details" in message:
        delta["stop_details"] = message["stop_details"]
    yield {"type": "message_delta", "delta": delta, "usage": usage}
    yield {"type": "message_stop"}


def _block_events(index: int, block: dict[str, Any], delta_chars: int) -> Iterator[dict]:
    kind = block["type"]
    delta: dict[str, Any] = {"type": "content_block_delta", "index": index}
    start: dict[str, Any]
    if kind == "text":
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        }
        for piece in _pieces(block["text"], delta_chars):
            yield delta | {"delta": {"type": "text_delta", "text": piece}}
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        yield {"type": "content_block_start", "index": index, "content_block": start}
        for piece in _pieces(block["thinking"], delta_chars):
            yield delta | {"delta": {"type": "thinking_delta", "thinking": piece}}
        yield delta | {"delta": {"type": "signature_delta", "signature": block["signature"]}}
    elif kind == "tool_use":
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        yield {"type": "content_block_start", "index": index, "content_block": start}
        arguments = arguments_json(block["input"])
        for piece in ["", *_pieces(arguments, delta_chars)]:
            yield delta | {"delta": {"type": "input_json_delta", "partial_json": piece}}
    else:
        yield {"type": "content_block_start", "index": index, "content_block": block}
    yield {"type": "content_block_stop", "index": index}


def _sse_event(event: dict[str, Any]) -> bytes:
    # Anthropic pads its JSON with spaces before the closing brace; a reader must not mind.
    data = json.dumps(event, ensure_ascii=False)
    return f"event: {event['type']}\ndata: {data[:-1]}   }}\n\n".encode()


def reply_calls(message: dict[str, Any]) -> list[FakeCall]:
    """The calls a message holds, for tests."""
    return [FakeCall(b["name"], b["input"]) for b in message["content"] if b["type"] == "tool_use"]
