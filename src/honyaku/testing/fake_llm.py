"""An OpenAI-compatible model server on 127.0.0.1 for tests, the demo and the benchmarks.

A real HTTP server (Starlette on uvicorn, in a background thread): honyaku talks to it exactly
as it talks to OpenAI or vLLM. It serves ``/v1/models`` and ``/v1/chat/completions``, streamed
and not, with native tool calls, or with XML tool blocks in the text when the request carries
no tools (the XML protocol). Its answers come from ``FakeTranslator``.

Faults are queued and each spoils one request: 429 with ``Retry-After``, 500, a stream cut
before its finish reason, a dropped connection, a slow first byte. Every request body is kept
in ``requests`` for tests and benchmarks to inspect.

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
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from honyaku.llm.demo import (
    FakeCall,
    FakeTranslator,
    Mistake,
    Reply,
    read_conversation,
    reply_text,
)
from honyaku.testing.server import BackgroundServer, Served

MODEL_NAME = "fake-translator"
DELTA_CHARS = 24
CHARS_PER_TOKEN = 2


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


@dataclass(frozen=True, slots=True)
class Fault:
    kind: FaultKind
    seconds: float = 0.0
    """Retry-After for 429/500, the delay for a slow first byte."""


@dataclass
class FakeLLMServer(Served):
    translator: FakeTranslator = field(default_factory=FakeTranslator)
    latency_s: float = 0.0
    """Time to first byte of every reply, like a real model's thinking time."""
    delta_chars: int = DELTA_CHARS
    tool_support: ToolSupport = ToolSupport.NATIVE
    streaming: bool = True
    """False: a streamed request gets 400, as from servers that cannot stream."""
    host: str = "127.0.0.1"
    port: int = 0
    faults: deque[Fault] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    """The HTTP headers of each request, in order."""
    _server: BackgroundServer | None = None

    @property
    def url(self) -> str:
        """The base URL to give a client: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def mistakes(self) -> set[Mistake]:
        return self.translator.mistakes

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/models", self._models),
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
            ]
        )

    async def _models(self, _request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": MODEL_NAME, "object": "model"}]})

    async def _chat(self, request: Request) -> Response:
        # The latency counts from arrival, as a model's time to first byte includes its work.
        first_byte_at = time.monotonic() + self.latency_s
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if refusal := self._refusal(body):
            return refusal
        fault = self.faults.popleft() if self.faults else None
        if fault is not None and (refusal := _refusal(fault)):
            return refusal
        if self.tool_support is ToolSupport.IGNORED:
            body = {key: value for key, value in body.items() if key != "tools"}
        offered = tuple(t["function"]["name"] for t in body.get("tools") or ())
        reply = self.translator.reply(*read_conversation(body.get("messages", [])), offered)
        xml = not body.get("tools")
        chunks = _chunks(reply, body, xml=xml, delta_chars=self.delta_chars)
        if fault and fault.kind is FaultKind.SLOW_FIRST_BYTE:
            first_byte_at += fault.seconds
        if not body.get("stream") or (fault and fault.kind is FaultKind.NO_STREAMING):
            await asyncio.sleep(first_byte_at - time.monotonic())
            return JSONResponse(_completion(reply, body, xml=xml))
        with_usage = body.get("stream_options", {}).get("include_usage")
        return StreamingResponse(
            self._sse(chunks, fault, with_usage, first_byte_at), media_type="text/event-stream"
        )

    def _refusal(self, body: dict[str, Any]) -> Response | None:
        if body.get("tools") and self.tool_support is ToolSupport.REJECTED:
            return _error(400, "This model does not support tools", "invalid_request_error")
        if body.get("stream") and not self.streaming:
            return _error(400, "Streaming is not supported by this server", "invalid_request_error")
        return None

    async def _sse(
        self,
        chunks: list[dict[str, Any]],
        fault: Fault | None,
        with_usage: bool,
        first_byte_at: float,
    ) -> AsyncIterator[bytes]:
        await asyncio.sleep(first_byte_at - time.monotonic())
        cut = fault is not None and fault.kind in (FaultKind.CUT_STREAM, FaultKind.DROP_CONNECTION)
        for n, chunk in enumerate(chunks if with_usage else chunks[:-1]):
            if cut and n == len(chunks) // 2:
                if fault is not None and fault.kind is FaultKind.DROP_CONNECTION:
                    raise ConnectionResetError("fake model dropped the connection")
                return
            yield f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()
        yield b"data: [DONE]\n\n"


def _refusal(fault: Fault) -> Response | None:
    headers = {"retry-after": f"{fault.seconds:g}"}
    if fault.kind is FaultKind.RATE_LIMIT:
        return _error(429, "Rate limit reached, slow down", "rate_limit_exceeded", headers)
    if fault.kind is FaultKind.SERVER_ERROR:
        return _error(500, "The server had an error", "server_error", headers)
    return None


def _error(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse({"error": {"message": message, "type": kind}}, status, headers)


# -- writing a reply -------------------------------------------------------------------------


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _chunks(
    reply: Reply, body: dict[str, Any], *, xml: bool, delta_chars: int
) -> list[dict[str, Any]]:
    """The reply as stream chunks: role, text, calls in small argument deltas, finish, usage."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": piece} for piece in _pieces(reply_text(reply, xml=xml), delta_chars)]
    if not xml:
        for index, call in enumerate(reply.calls):
            deltas += _call_deltas(index, call, delta_chars)
    finish = "tool_calls" if reply.calls and not xml else "stop"
    chunks = [_chunk(body, [{"index": 0, "delta": d, "finish_reason": None}]) for d in deltas]
    chunks.append(_chunk(body, [{"index": 0, "delta": {}, "finish_reason": finish}]))
    chunks.append(_chunk(body, [], usage=_usage(body, reply, xml=xml)))
    return chunks


def _call_deltas(index: int, call: FakeCall, delta_chars: int) -> list[dict[str, Any]]:
    arguments = json.dumps(call.arguments, ensure_ascii=False)
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


def _completion(reply: Reply, body: dict[str, Any], *, xml: bool) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply_text(reply, xml=xml) or None}
    if reply.calls and not xml:
        message["tool_calls"] = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": json.dumps(c.arguments, ensure_ascii=False),
                },
            }
            for n, c in enumerate(reply.calls)
        ]
    finish = "tool_calls" if reply.calls and not xml else "stop"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", MODEL_NAME),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _usage(body, reply, xml=xml),
    }


def _usage(body: dict[str, Any], reply: Reply, *, xml: bool) -> dict[str, int]:
    prompt = len(json.dumps(body.get("messages", []), ensure_ascii=False)) // CHARS_PER_TOKEN
    output = len(reply_text(reply, xml=xml)) + sum(
        len(json.dumps(c.arguments)) for c in reply.calls
    )
    return {
        "prompt_tokens": prompt,
        "completion_tokens": output // CHARS_PER_TOKEN,
        "total_tokens": prompt + output // CHARS_PER_TOKEN,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Run honyaku's fake model server.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--delta-chars", type=int, default=DELTA_CHARS, help="characters per delta")
    parser.add_argument(
        "--mistake", action="append", default=[], choices=[m.value for m in Mistake]
    )
    args = parser.parse_args()
    translator = FakeTranslator(mistakes={Mistake(m) for m in args.mistake})
    server = FakeLLMServer(
        translator, latency_s=args.latency, delta_chars=args.delta_chars, port=args.port
    )
    with server:
        print(f"fake model {MODEL_NAME!r} at {server.url}  (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
