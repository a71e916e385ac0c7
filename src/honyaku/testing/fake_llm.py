"""An OpenAI-compatible model server on 127.0.0.1 for the tests and the benchmarks.

A real HTTP server (Starlette on uvicorn, in a background thread): honyaku talks to it exactly
as it talks to OpenAI or vLLM. It serves ``/v1/models`` and ``/v1/chat/completions``, streamed
and not, with native tool calls, or with XML tool blocks in the text when the request carries
no tools (the XML protocol). Its answers come from ``ScriptedTranslator``.

Given ``thinking``, it is a reasoning model: every reply thinks first, and drafts there the
calls it then makes otherwise (``drafted_calls``: a title and translations marked
``DRAFT_MARK``). The thought comes as ``<think>…</think>`` in the text, as from a server
without a reasoning parser (natively, the drafts also stream as calls in the middle of it, as
from a server whose tool parser reads the thinking too), or in ``reasoning_content``; with
only its closer, as when the chat template put the opener in the prompt; in ``<thinking>``
or ``<reasoning>``. Its usage then reports ``completion_tokens_details.reasoning_tokens``.

Given a ``ContextLimit``, it has a context window as local servers do: a prompt too long is
refused in llama.cpp's words or OpenAI's, a reply that runs past the window is cut with
``length``, and the window may be said at llama.cpp's, Ollama's or vLLM's endpoints.

Given a ``ContentFilter``, it filters as Azure OpenAI does: a request whose messages it
refuses gets a 400 with code ``content_filter`` (its prompt blocked), or the first half of its
reply and then ``finish_reason: "content_filter"`` (its reply cut); either way with Azure's
``content_filter_results``, and counted in ``filtered``.

Faults are queued and each spoils one request: 429 with ``Retry-After``, 500, a stream cut
before its finish reason, a dropped connection, a slow first byte, a reply that thinks and
never stops, a reply that loops, a reply that stops short; or a rule (``fault_of``) picks
the requests it spoils by their body. Every request body is kept in ``requests`` for tests and
benchmarks to inspect, and what it was billed in ``bills``: its tokens estimated script by
script, those it shares with an earlier request's prefix reported as cached, as a provider's
prompt cache would.

A request with no tools and no honyaku chunk in it (another translator's plain "translate
this" prompt) gets a plain pseudo-translation, so other tools can be measured against it.

Run it alone with ``python -m honyaku.testing --port 8765``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from honyaku.domain.tokens import SCRIPT_RATIO, TokenCounter
from honyaku.llm.demo import (
    FakeCall,
    Reply,
    arguments_json,
    read_conversation,
    render_xml_call,
    reply_text,
)
from honyaku.testing.billing import (
    Bill,
    Exchange,
    PromptCache,
    bill_for,
    request_parts,
    request_text,
)
from honyaku.testing.content_filter import Blocked, ContentFilter
from honyaku.testing.context_limit import ContextLimit, Introspection
from honyaku.testing.fake_batches import BatchScript, OpenAIBatches
from honyaku.testing.scripted_models import Mistake, ScriptedTranslator, drafted_calls
from honyaku.testing.server import BackgroundServer, Served

MODEL_NAME = "fake-translator"
LOOP_SENTENCE = "そして彼はまた同じことを言った。"
LOOP_REPEATS = 20_000
DELTA_CHARS = 24
AZURE_VERDICT = {
    "hate": {"filtered": False, "severity": "safe"},
    "self_harm": {"filtered": False, "severity": "safe"},
    "sexual": {"filtered": False, "severity": "safe"},
    "violence": {"filtered": True, "severity": "high"},
}
"""Azure's ``content_filter_results`` for whatever the fake's filter refuses."""
AZURE_PROMPT_REFUSED = (
    "The response was filtered due to the prompt triggering Azure OpenAI's content management "
    "policy. Please modify your prompt and retry."
)


class ToolSupport(StrEnum):
    """How the server treats ``tools`` in a request, as real servers do."""

    NATIVE = "native"
    IGNORED = "ignored"
    """Drops them silently, like a model served without a tool parser."""
    REJECTED = "rejected"
    """Answers 400, like servers whose model has no tool template."""


class FaultKind(StrEnum):
    RATE_LIMIT = "rate_limit"
    SERVER_ERROR = "server_error"
    CUT_STREAM = "cut_stream"
    DROP_CONNECTION = "drop_connection"
    SLOW_FIRST_BYTE = "slow_first_byte"
    NO_STREAMING = "no_streaming"
    """Answers a streamed request with a plain JSON body, as some proxies do."""
    UNCLOSED_THINKING = "unclosed_thinking"
    """The reply opens a think block in its text, drafts calls in it and never closes it, so
    it has no answer (``FakeLLMServer`` only)."""
    OVERLOADED = "overloaded"
    """529 ``overloaded_error`` with ``retry-after`` (``FakeAnthropicServer`` only)."""
    STREAM_ERROR = "stream_error"
    """An ``error`` event (``overloaded_error``) halfway through the stream
    (``FakeAnthropicServer`` only)."""
    LOOPING = "looping"
    """The reply degenerates: its first translation (in a call's arguments, or in the text
    where it makes no batch) repeats one sentence ``LOOP_REPEATS`` times."""
    STOPS = "stops"
    """The reply says it is working on it and makes no call: a model that stops short."""


class ThoughtPlace(StrEnum):
    CONTENT = "content"
    """``<think>…</think>`` in the reply text; natively the drafts also stream as calls."""
    FIELD = "field"
    """The ``reasoning_content`` field, as from a server with a reasoning parser."""


@dataclass(frozen=True, slots=True)
class Thinking:
    """How the fake model thinks before each reply (see the module docstring)."""

    place: ThoughtPlace = ThoughtPlace.CONTENT
    element: str = "think"
    """The tag it thinks in: ``think``, ``thinking`` or ``reasoning``."""
    opened_in_prompt: bool = False
    """Only the closer is written, as when the chat template put the opener in the prompt."""


@dataclass(frozen=True, slots=True)
class Fault:
    kind: FaultKind
    seconds: float = 0.0
    """Retry-After for 429/500, the delay for a slow first byte."""


def _answering() -> threading.Event:
    event = threading.Event()
    event.set()
    return event


@dataclass
class FakeLLMServer(Served):
    translator: ScriptedTranslator = field(default_factory=ScriptedTranslator)
    thinking: Thinking | None = None
    latency_s: float = 0.0
    """Time to first byte of every reply, like a real model's thinking time."""
    answering: threading.Event = field(default_factory=_answering)
    """Replies wait while it is clear: a test keeps a job running until it has looked."""
    delta_chars: int = DELTA_CHARS
    delta_delay_s: float = 0.0
    """Time between two stream chunks: a slow model, whose reply can be stopped midway."""
    silent_writing_s: float = 0.0
    """Silence after the first chunk (the role alone) before the rest comes at once, like
    llama.cpp's grammar-forced function calling, which sends a call only once it is whole."""
    tool_support: ToolSupport = ToolSupport.NATIVE
    streaming: bool = True
    """False: a streamed request gets 400, as from servers that cannot stream."""
    reports_usage: bool = True
    """False: no usage in any reply, as from servers that count no tokens."""
    api_key: str | None = None
    """The key it takes (``Authorization: Bearer …``); any other is refused with 401."""
    requests_per_minute: int | None = None
    """A provider's limit: past it in the last minute, 429 with ``Retry-After``."""
    rate_limited: int = 0
    """Requests refused for ``requests_per_minute``."""
    filter: ContentFilter | None = None
    """A provider's content filter: the requests it refuses, answered as Azure does."""
    filtered: int = 0
    """Requests its filter refused, at their prompt or in their reply."""
    host: str = "127.0.0.1"
    port: int = 0
    faults: deque[Fault] = field(default_factory=deque)
    fault_of: Callable[[dict[str, Any]], Fault | None] | None = None
    """A rule that spoils the requests it picks, by their body, beside the queued faults: a
    test's random failures, the same for every request of a conversation."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)
    """When each request arrived (``time.monotonic``)."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """The HTTP headers of each request, in order."""
    abandoned: int = 0
    """Streams whose client went away before their end."""
    open_streams: int = 0
    """Streams being answered now: a client killed meanwhile is killed mid-reply."""
    tokens: TokenCounter = SCRIPT_RATIO
    """How the server counts tokens, for its bills and its context window."""
    context: ContextLimit | None = None
    """Its context window, where it has one."""
    cache: PromptCache = field(init=False)
    """The provider's prompt cache: what each request shares with earlier ones is billed as
    cached (``prompt_tokens_details.cached_tokens``)."""
    bills: list[Bill] = field(default_factory=list)
    """What each answered request was billed, in order, as its usage reported it."""
    _answered: list[float] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    """Each answered request and its reply as text, to bill again in another tokenizer."""
    batch_script: BatchScript = field(default_factory=BatchScript)
    """How its Batch API (``/v1/files``, ``/v1/batches``) behaves."""
    batches: OpenAIBatches = field(init=False)
    _server: BackgroundServer | None = None

    def __post_init__(self) -> None:
        self.cache = PromptCache(self.tokens)
        self.batches = OpenAIBatches(self.batch_script, self.answer, self._line_problem)

    def expire_cache(self) -> None:
        """Forget every prompt seen, as a provider's cache does after some minutes."""
        self.cache = PromptCache(self.tokens)

    @property
    def url(self) -> str:
        """The base URL to give a client: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def results_of(self, tool: str, *, latest: bool = False) -> list[dict[str, Any]]:
        """The results of ``tool`` as the model received them, in either protocol, in every
        request that carried them (``latest``: in the last request only, each once)."""
        found = []
        for body in self.requests[-1:] if latest else self.requests:
            for message in body["messages"]:
                content = message.get("content") or ""
                if message["role"] == "tool" and _called(body, message) == tool:
                    found.append(json.loads(content))
                elif message["role"] == "user" and f'<tool_result name="{tool}">' in content:
                    result = content.split(f'<tool_result name="{tool}">', 1)[1]
                    found.append(json.loads(result.split("</tool_result>", 1)[0]))
        return found

    @property
    def mistakes(self) -> set[Mistake]:
        return self.translator.mistakes

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/models", self._models),
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/props", self._props),
                Route("/api/ps", self._ollama_running),
                *self.batches.routes(self._refused_key),
            ]
        )

    def _refused_key(self, request: Request) -> Response | None:
        authorization = request.headers.get("authorization", "")
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided", "invalid_request_error")
        return None

    def _line_problem(self, body: dict[str, Any]) -> str | None:
        if body.get("tools") and self.tool_support is ToolSupport.REJECTED:
            return "This model does not support tools"
        return None

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The whole reply ``body`` gets, not streamed, as a batch line gets it; billed with
        the cache, its filter applied (a refused prompt is answered ``content_filter``)."""
        offered = tuple(t["function"]["name"] for t in body.get("tools") or ())
        reply = self.translator.reply(*read_conversation(body.get("messages", [])), offered)
        written = _written(reply, self.thinking, xml=not body.get("tools"), unclosed=False)
        exchange = Exchange(
            request_parts(body), written.output, written.reasoning + written.thought
        )
        bill = bill_for(self.cache, exchange)
        self.exchanges.append(exchange)
        self.bills.append(bill)
        if self._filters(body) is not None:
            chunks = _chunks(written, body, bill.usage(), delta_chars=self.delta_chars)
            kept, output = _cut_by_filter(chunks, body)
            bill = self._billed_again(bill, output)
            return _filtered_completion(kept[:-2], body, bill.usage())
        return _completion(written, body, bill.usage())

    async def _models(self, _request: Request) -> Response:
        entry: dict[str, Any] = {"id": MODEL_NAME, "object": "model"}
        if self.context and self.context.says is Introspection.VLLM:
            entry |= {"owned_by": "vllm", "max_model_len": self.context.tokens}
        return JSONResponse({"object": "list", "data": [entry]})

    async def _props(self, _request: Request) -> Response:
        if self.context is None or self.context.says is not Introspection.LLAMA_CPP:
            return _error(404, "File Not Found", "not_found_error")
        return JSONResponse(self.context.props(MODEL_NAME))

    async def _ollama_running(self, _request: Request) -> Response:
        if self.context is None or self.context.says is not Introspection.OLLAMA:
            return _error(404, "404 page not found", "not_found_error")
        return JSONResponse(self.context.ollama_running(MODEL_NAME))

    async def _chat(self, request: Request) -> Response:
        # The latency counts from arrival, as a model's time to first byte includes its work.
        arrived = time.monotonic()
        first_byte_at = arrived + self.latency_s
        body = await request.json()
        self.requests.append(body)
        self.arrivals.append(arrived)
        self.headers.append(dict(request.headers))
        # A threading.Event: the test sets it from its own thread, outside this loop.
        while not self.answering.is_set():  # noqa: ASYNC110
            await asyncio.sleep(0.02)
        if refusal := self._refusal(body, request.headers.get("authorization", "")):
            return refusal
        fault = self.faults.popleft() if self.faults else None
        if fault is None and self.fault_of is not None:
            fault = self.fault_of(body)
        if fault is not None and (refusal := _refusal(fault)):
            return refusal
        if (filtered := self._filters(body)) is Blocked.PROMPT:
            return _prompt_filtered()
        if self.tool_support is ToolSupport.IGNORED:
            body = {key: value for key, value in body.items() if key != "tools"}
        prompt_tokens = 0
        if self.context is not None:
            prompt_tokens = self.context.prompt_tokens(self.tokens, request_text(body))
            if prompt_tokens > self.context.tokens:
                return self.context.refuse(prompt_tokens)
        offered = tuple(t["function"]["name"] for t in body.get("tools") or ())
        reply = self.translator.reply(*read_conversation(body.get("messages", [])), offered)
        if fault is not None and fault.kind is FaultKind.LOOPING:
            reply = _looping(reply)
        if fault is not None and fault.kind is FaultKind.STOPS:
            reply = Reply("I am working on it.")
        unclosed = fault is not None and fault.kind is FaultKind.UNCLOSED_THINKING
        written = _written(reply, self.thinking, xml=not body.get("tools"), unclosed=unclosed)
        exchange = Exchange(
            request_parts(body), written.output, written.reasoning + written.thought
        )
        bill = bill_for(self.cache, exchange)
        self.exchanges.append(exchange)
        self.bills.append(bill)
        chunks = _chunks(written, body, bill.usage(), delta_chars=self.delta_chars)
        if filtered is Blocked.REPLY:
            chunks, output = _cut_by_filter(chunks, body)
            bill = self._billed_again(bill, output)
            chunks[-1] = {**chunks[-1], "usage": bill.usage()}
        elif self.context is not None:
            room, fails = self.context.room(prompt_tokens, body.get("max_tokens"))
            if cut := self.context.cut(chunks, self.tokens, room):
                if fails:
                    self.bills.pop()
                    self.exchanges.pop()
                    return self.context.fail_full()
                chunks, output = cut
                bill = self._billed_again(bill, output)
                chunks[-1] = {**chunks[-1], "usage": bill.usage()}
        if fault and fault.kind is FaultKind.SLOW_FIRST_BYTE:
            first_byte_at += fault.seconds
        if not body.get("stream") or (fault and fault.kind is FaultKind.NO_STREAMING):
            await asyncio.sleep(first_byte_at - time.monotonic())
            usage = bill.usage() if self.reports_usage else None
            if filtered is Blocked.REPLY:
                return JSONResponse(_filtered_completion(chunks, body, usage))
            return JSONResponse(_completion(written, body, usage))
        with_usage = self.reports_usage and body.get("stream_options", {}).get("include_usage")
        return StreamingResponse(
            self._sse(request, chunks, fault, with_usage, first_byte_at),
            media_type="text/event-stream",
        )

    def _filters(self, body: dict[str, Any]) -> Blocked | None:
        """Where its filter refuses this request, if it does (counted in ``filtered``)."""
        if self.filter is None or not self.filter.blocks(_messages_text(body)):
            return None
        self.filtered += 1
        return self.filter.blocked

    def _billed_again(self, bill: Bill, output: str) -> Bill:
        """The last request's bill, for a reply cut short to ``output``."""
        output_tokens = round(self.tokens.count(output))
        bill = replace(bill, output_chars=len(output), output_tokens=output_tokens)
        self.bills[-1] = bill
        self.exchanges[-1] = replace(self.exchanges[-1], output=output)
        return bill

    def _refusal(self, body: dict[str, Any], authorization: str) -> Response | None:
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided", "invalid_request_error")
        if limited := self._over_limit():
            return limited
        if body.get("tools") and self.tool_support is ToolSupport.REJECTED:
            return _error(400, "This model does not support tools", "invalid_request_error")
        if body.get("stream") and not self.streaming:
            return _error(400, "Streaming is not supported by this server", "invalid_request_error")
        return None

    def _over_limit(self) -> Response | None:
        """A 429 when the requests answered in the last minute already reach the limit."""
        rpm = self.requests_per_minute
        if rpm is None:
            return None
        now = self.arrivals[-1]
        answered = [t for t in self._answered if t > now - 60]
        self._answered = answered
        if len(answered) < rpm:
            answered.append(now)
            return None
        self.rate_limited += 1
        wait = f"{answered[-rpm] + 60 - now:.1f}"
        return _error(429, "Rate limit reached", "rate_limit_error", {"retry-after": wait})

    async def _sse(
        self,
        request: Request,
        chunks: list[dict[str, Any]],
        fault: Fault | None,
        with_usage: bool,
        first_byte_at: float,
    ) -> AsyncIterator[bytes]:
        finished = False
        self.open_streams += 1
        try:
            await asyncio.sleep(first_byte_at - time.monotonic())
            cut = fault is not None and fault.kind in (
                FaultKind.CUT_STREAM,
                FaultKind.DROP_CONNECTION,
            )
            for n, chunk in enumerate(chunks if with_usage else chunks[:-1]):
                if n == 1 and self.silent_writing_s:
                    await asyncio.sleep(self.silent_writing_s)
                if cut and n == len(chunks) // 2:
                    finished = True
                    if fault is not None and fault.kind is FaultKind.DROP_CONNECTION:
                        raise ConnectionResetError("fake model dropped the connection")
                    return
                yield f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()
                if self.delta_delay_s:
                    await asyncio.sleep(self.delta_delay_s)
                    if await request.is_disconnected():
                        return
            yield b"data: [DONE]\n\n"
            finished = True
        finally:
            self.open_streams -= 1
            if not finished:
                self.abandoned += 1


def _called(body: dict[str, Any], tool_message: dict[str, Any]) -> str:
    """The name of the call a native tool result answers."""
    for message in body["messages"]:
        for call in message.get("tool_calls") or ():
            if call["id"] == tool_message["tool_call_id"]:
                return str(call["function"]["name"])
    return ""


def _refusal(fault: Fault) -> Response | None:
    headers = {"retry-after": f"{fault.seconds:g}"}
    if fault.kind is FaultKind.RATE_LIMIT:
        return _error(429, "Rate limit reached, slow down", "rate_limit_exceeded", headers)
    if fault.kind is FaultKind.SERVER_ERROR:
        return _error(500, "The server had an error", "server_error", headers)
    return None


def _error(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse({"error": {"message": message, "type": kind}}, status, headers)


# -- a content filter ------------------------------------------------------------------------


def _messages_text(body: dict[str, Any]) -> str:
    """What a filter reads of a request: its messages, not its tool schemas."""
    return request_text({key: value for key, value in body.items() if key != "tools"})


def _prompt_filtered() -> Response:
    """Azure's 400 for a prompt its filter refuses."""
    error = {
        "message": AZURE_PROMPT_REFUSED,
        "type": None,
        "param": "prompt",
        "code": "content_filter",
        "status": 400,
        "innererror": {
            "code": "ResponsibleAIPolicyViolation",
            "content_filter_result": AZURE_VERDICT,
        },
    }
    return JSONResponse({"error": error}, 400)


def _cut_by_filter(
    chunks: list[dict[str, Any]], body: dict[str, Any]
) -> tuple[list[dict[str, Any]], str]:
    """The reply's first half, then the filter's finish reason, then its usage; and what the
    model wrote of it, as billed."""
    begun = chunks[:-2]  # without the finish and the usage
    kept = begun[: max(1, len(begun) // 2)]
    output = "".join(_written_in(chunk) for chunk in kept)
    finish = {
        "index": 0,
        "delta": {},
        "finish_reason": "content_filter",
        "content_filter_results": AZURE_VERDICT,
    }
    return [*kept, _chunk(body, [finish]), chunks[-1]], output


def _written_in(chunk: dict[str, Any]) -> str:
    delta = chunk["choices"][0]["delta"]
    calls = "".join(
        call["function"].get("name", "") + call["function"].get("arguments", "")
        for call in delta.get("tool_calls") or ()
    )
    return (delta.get("reasoning_content") or "") + (delta.get("content") or "") + calls


def _filtered_completion(
    chunks: list[dict[str, Any]], body: dict[str, Any], usage: dict[str, Any] | None
) -> dict[str, Any]:
    """A reply cut by the filter in one body: the text it had, no call."""
    deltas = [choice["delta"] for chunk in chunks for choice in chunk["choices"]]
    content = "".join(delta.get("content") or "" for delta in deltas)
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": content or None},
        "finish_reason": "content_filter",
        "content_filter_results": AZURE_VERDICT,
    }
    completion = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", MODEL_NAME),
        "choices": [choice],
    }
    return completion | ({"usage": usage} if usage else {})


# -- writing a reply -------------------------------------------------------------------------


def _looping(reply: Reply) -> Reply:
    loop = LOOP_SENTENCE * LOOP_REPEATS
    calls = list(reply.calls)
    for n, call in enumerate(calls):
        if call.name == "add_translation_batch":
            items = [dict(item) for item in call.arguments["paragraphs"]]
            items[0]["translated_text"] = loop
            calls[n] = FakeCall(call.name, {"paragraphs": items})
            return Reply(reply.text, tuple(calls))
    return Reply(f"{reply.text}{loop}", reply.calls)


@dataclass(frozen=True, slots=True)
class _Written:
    """A reply as the server sends it, in stream order."""

    reasoning: str = ""
    """The ``reasoning_content`` field."""
    thought: str = ""
    """The text before the answer: the think block as written."""
    drafts: tuple[FakeCall, ...] = ()
    """Native calls streamed in the middle of ``thought``."""
    answer: str = ""
    calls: tuple[FakeCall, ...] = ()
    """Native calls."""
    output: str = ""
    """Everything the model wrote, as billed: thought, answer and call arguments."""


def _written(reply: Reply, thinking: Thinking | None, *, xml: bool, unclosed: bool) -> _Written:
    answer = reply_text(reply, xml=xml)
    calls = () if xml else reply.calls
    output = answer + "".join(c.name + arguments_json(c.arguments) for c in calls)
    if thinking is None and not unclosed:
        return _Written(answer=answer, calls=calls, output=output)
    thinking = thinking or Thinking()
    drafts = drafted_calls(reply.calls)
    thought = thought_text(drafts)
    native_drafts = () if xml else drafts
    if unclosed:
        thought = f"<{thinking.element}>{thought}"
        return _Written(thought=thought, drafts=native_drafts, output=thought)
    if thinking.place is ThoughtPlace.FIELD:
        return _Written(thought, "", (), answer, calls, thought + output)
    opener = "" if thinking.opened_in_prompt else f"<{thinking.element}>"
    block = f"{opener}{thought}</{thinking.element}>\n\n"
    return _Written("", block, native_drafts, answer, calls, block + output)


def thought_text(drafts: tuple[FakeCall, ...]) -> str:
    """What a thinking model thinks before a reply: its ``drafts``, written as XML blocks."""
    if not drafts:
        return "\nNothing to call yet; a short answer will do.\n"
    calls = "".join(render_xml_call(call) for call in drafts)
    return (
        f"\nThe chunk is in front of me. A first draft of my calls:\n{calls}"
        "No: the title and the wording can be better. The real calls follow.\n"
    )


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _chunks(
    written: _Written, body: dict[str, Any], usage: dict[str, Any], *, delta_chars: int
) -> list[dict[str, Any]]:
    """The reply as stream chunks: role, reasoning, thought (with the drafts as calls in its
    middle), answer, calls in small argument deltas, finish, usage."""
    half = len(written.thought) // 2
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"reasoning_content": p} for p in _pieces(written.reasoning, delta_chars)]
    deltas += [{"content": p} for p in _pieces(written.thought[:half], delta_chars)]
    for index, call in enumerate(written.drafts):
        deltas += _call_deltas(index, call, delta_chars)
    deltas += [{"content": p} for p in _pieces(written.thought[half:], delta_chars)]
    deltas += [{"content": p} for p in _pieces(written.answer, delta_chars)]
    for index, call in enumerate(written.calls, start=len(written.drafts)):
        deltas += _call_deltas(index, call, delta_chars)
    finish = "tool_calls" if written.calls or written.drafts else "stop"
    chunks = [_chunk(body, [{"index": 0, "delta": d, "finish_reason": None}]) for d in deltas]
    chunks.append(_chunk(body, [{"index": 0, "delta": {}, "finish_reason": finish}]))
    chunks.append(_chunk(body, [], usage=usage))
    return chunks


def _call_deltas(index: int, call: FakeCall, delta_chars: int) -> list[dict[str, Any]]:
    arguments = arguments_json(call.arguments)
    call_id = f"call_{index}_{abs(hash(arguments)) % 10**8:08d}"
    first = {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": ""},
    }
    rest = [
        {"index": index, "function": {"arguments": piece}}
        for piece in _pieces(arguments, delta_chars)
    ]
    return [{"tool_calls": [first]}] + [{"tool_calls": [delta]} for delta in rest]


def _chunk(body: dict[str, Any], choices: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body.get("model", MODEL_NAME),
        "choices": choices,
        **more,
    }


def _completion(
    written: _Written, body: dict[str, Any], usage: dict[str, Any] | None
) -> dict[str, Any]:
    """The reply in one body; a body has no order, so the drafts are not among its calls."""
    content = written.thought + written.answer
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if written.reasoning:
        message["reasoning_content"] = written.reasoning
    if written.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": arguments_json(c.arguments),
                },
            }
            for n, c in enumerate(written.calls)
        ]
    finish = "tool_calls" if written.calls else "stop"
    completion = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", MODEL_NAME),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    return completion | ({"usage": usage} if usage else {})


def main() -> None:
    parser = argparse.ArgumentParser(description="Run honyaku's fake model server.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--delta-chars", type=int, default=DELTA_CHARS, help="characters per delta")
    parser.add_argument(
        "--mistake", action="append", default=[], choices=[m.value for m in Mistake]
    )
    parser.add_argument(
        "--thinking", choices=[p.value for p in ThoughtPlace], help="think before each reply"
    )
    parser.add_argument(
        "--behaviour",
        choices=["eager", "stepwise", "careful"],
        default="eager",
        help="every call of a step in one reply, one call a reply, or one call a reply with a "
        "few paragraphs a batch",
    )
    parser.add_argument("--context-window", type=int, help="tokens its context holds")
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="WORD",
        help="refuse, as a provider's content filter does, any request holding WORD",
    )
    args = parser.parse_args()
    mistakes = {Mistake(m) for m in args.mistake}
    make: dict[str, Callable[..., ScriptedTranslator]] = {
        "eager": ScriptedTranslator,
        "stepwise": ScriptedTranslator.stepwise,
        "careful": ScriptedTranslator.careful,
    }
    translator = make[args.behaviour](mistakes=mistakes)
    thinking = Thinking(ThoughtPlace(args.thinking)) if args.thinking else None
    server = FakeLLMServer(
        translator,
        thinking,
        latency_s=args.latency,
        delta_chars=args.delta_chars,
        port=args.port,
        context=ContextLimit(args.context_window) if args.context_window else None,
        filter=ContentFilter(words=args.filter) if args.filter else None,
    )
    with server:
        print(f"fake model {MODEL_NAME!r} at {server.url}  (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
