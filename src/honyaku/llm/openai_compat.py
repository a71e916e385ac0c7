"""Chat Completions with native tools, on the official SDK, for any OpenAI-compatible server.

OpenAI, DeepSeek, Ollama, vLLM, llama.cpp and LM Studio all speak this API, each with its own
accent; ``openai_stream`` reads the chunks. This module owns the HTTP side: the request under
its time bounds (``timeouts``), the server's errors translated into honyaku's with every secret
masked (``redaction``), and the fallback to a plain request for servers whose streaming is
broken.

A reply's reasoning is not part of its answer and is not sent back next turn, as chat
templates drop earlier reasoning and it costs tokens, except to servers that require it:
``replay_reasoning=True`` sends each reasoning field back exactly as it came. DeepSeek's
thinking mode (V3.1 and later) with tool calls and Moonshot's Kimi thinking models need their
``reasoning_content`` back within the same tool loop; DeepSeek-reasoner (R1) answered 400 when
it was sent. Reasoning split out of ``content`` is never sent back.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import httpx2
import openai

from honyaku.domain.tokens import TokenCounter
from honyaku.errors import (
    CutStreamError,
    FatalProviderError,
    ProviderError,
    TransientProviderError,
)
from honyaku.llm.events import Response, StreamEvent, Usage, Waiting
from honyaku.llm.http_errors import (
    content_filtered,
    context_overflow,
    error_for_status,
    unreachable_error,
)
from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    message_chars,
    message_tokens,
    request_chars,
    request_tokens,
)
from honyaku.llm.openai_stream import ReplyAssembler, field_of, sse_data
from honyaku.llm.openai_wire import wire_message, wire_tool
from honyaku.llm.pace import ServerPace
from honyaku.llm.reasoning import ReplyOpening
from honyaku.llm.redaction import Redactor
from honyaku.llm.retry import retry_after_s
from honyaku.llm.timeouts import (
    CONNECT_TIMEOUT_S,
    FIRST_BYTE_TIMEOUT_S,
    IDLE_TIMEOUT_S,
    ReplyClock,
    Timeouts,
)
from honyaku.llm.tokenizers import token_counter

MAX_STREAM_FAILURES = 2


class OpenAICompatibleProvider:
    """One streamed Chat Completions request per ``stream`` call; retries live elsewhere."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        first_byte_timeout_s: float = FIRST_BYTE_TIMEOUT_S,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        read_timeout_s: float | None = None,
        pace: ServerPace | None = None,
        streaming: bool = True,
        replay_reasoning: bool = False,
        service_tier: str | None = None,
        on_headers: Callable[[Mapping[str, str]], None] | None = None,
    ) -> None:
        """``read_timeout_s``, where given, is both the first-byte and the idle bound; a
        ``pace`` lengthens them as the server's pace says, and learns from every reply."""
        self.model = model
        self.tokens = token_counter(model)
        """Counts the tokens of what is sent, to set beside what the server reports."""
        self.service_tier = service_tier
        """Sent with every request where set (OpenAI's ``flex``, ``priority``…)."""
        self.on_headers = on_headers
        """Told every response's headers: a rate limiter reads its ``x-ratelimit-*``."""
        self.streaming = streaming
        self.replay_reasoning = replay_reasoning
        """Send a reply's reasoning fields back in the history (see the module docstring)."""
        self.opening = ReplyOpening()
        """Whether this server's replies begin inside ``<think>`` (``honyaku.llm.reasoning``)."""
        self._stream_failures = 0
        self.first_byte_timeout_s = read_timeout_s or first_byte_timeout_s
        self.idle_timeout_s = read_timeout_s or idle_timeout_s
        self.pace = pace or ServerPace(Timeouts(self.first_byte_timeout_s, self.idle_timeout_s))
        self._redactor = Redactor.for_connection(
            api_key=api_key, base_url=base_url, headers=headers
        )
        self._client = openai.AsyncOpenAI(
            # Local servers need no key, but the SDK insists on one.
            api_key=api_key or "no-key",
            base_url=base_url,
            default_headers=dict(headers or {}),
            max_retries=0,
            timeout=_backstop(self.pace.floor.first_byte_s, self.pace.floor.idle_s),
            # A redirect could carry the key to another host: none is followed.
            http_client=openai.DefaultAsyncHttpxClient(follow_redirects=False),
        )

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        return self._redactor.exit_of(self._stream(request))

    async def _stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        assembler = ReplyAssembler(opening=None if request.raw_text else self.opening)
        prompt_tokens = request_tokens(request, self.tokens)
        yield Waiting(self.pace.expected_s(prompt_tokens))
        clock = self.pace.clock(prompt_tokens)
        try:
            async for event in self._events(request, assembler, clock):
                yield event
        except FatalProviderError as exc:
            if not self._streaming_refused(exc):
                raise
            self.streaming = False
            async for event in self._stream(request):
                yield event
            return
        except CutStreamError:
            self._note_stream_failure()
            raise
        if assembler.finish_reason is None:
            self._note_stream_failure()
            raise CutStreamError("the reply was cut off before it finished")
        self._stream_failures = 0
        if filtered := assembler.filtered():
            raise filtered  # before the Response: no text of it is an answer, no call runs
        for delta in assembler.finish():
            yield delta
        message = assembler.message(request.turn)
        usage = chat_usage(request, message, assembler.usage, self.tokens)
        # The prompt as honyaku counts it, as that is what the next request's bounds are set from.
        timing = clock.timing(prompt_tokens, usage.output_tokens or usage.estimated_output_tokens)
        await self.pace.observe(timing)
        yield Response(message, assembler.finish_reason, usage, timing)

    def _streaming_refused(self, exc: FatalProviderError) -> bool:
        return self.streaming and exc.status_code in (400, 422) and "stream" in str(exc).lower()

    def _note_stream_failure(self) -> None:
        """Streams that keep breaking (a buffering proxy, a flaky server): stop streaming."""
        if self.streaming:
            self._stream_failures += 1
            if self._stream_failures >= MAX_STREAM_FAILURES:
                self.streaming = False

    async def _events(
        self, request: ChatRequest, assembler: ReplyAssembler, clock: ReplyClock
    ) -> AsyncIterator[StreamEvent]:
        try:
            async for event in self._http_events(request, assembler, clock):
                yield event
        except openai.APIStatusError as exc:
            raise _status_error(exc, self.model) from exc
        except (openai.APIError, httpx2.HTTPError) as exc:
            if assembler.chunks:
                raise CutStreamError(f"the reply broke off: {_brief(exc)}") from exc
            if unreachable := unreachable_error(exc, str(self._client.base_url)):
                raise unreachable from exc
            raise TransientProviderError(f"connection to the model failed: {_brief(exc)}") from exc

    async def _http_events(
        self, request: ChatRequest, assembler: ReplyAssembler, clock: ReplyClock
    ) -> AsyncIterator[StreamEvent]:
        body = _body(self, request)
        if self.streaming:
            body |= {"stream": True, "stream_options": {"include_usage": True}}
        # The SDK's raw post: its auth, headers and errors, without re-walking the whole
        # history through its typed transform on every turn.
        response = await clock.wait(
            self._client.post(
                "/chat/completions",
                cast_to=httpx2.Response,
                body=body,
                options={"timeout": _backstop(clock.first_byte_s, clock.idle_s)},
                stream=True,
            )
        )
        if self.on_headers is not None:
            self.on_headers(response.headers)
        try:
            if "json" in response.headers.get("content-type", ""):
                # Not streamed after all: some proxies and servers answer with one body, whose
                # first byte comes when the whole reply is ready.
                raw = await clock.wait(response.aread())
                clock.heard()
                for event in assembler.add_chunk(_chunk(raw.decode())):
                    yield event
                return
            async for data in clock.chunks_of(sse_data(response.aiter_lines())):
                events = assembler.add_chunk(_chunk(data))
                if assembler.heard:
                    clock.heard()
                for event in events:
                    yield event
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        await self._client.close()


def _backstop(first_byte_s: float, idle_s: float) -> httpx2.Timeout:
    """The HTTP client's own timeout, a backstop only: the reply's clock enforces its bounds,
    which a server's pace may make longer than any default."""
    return httpx2.Timeout(max(first_byte_s, idle_s) + CONNECT_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TransientProviderError(f"the server sent unreadable JSON: {exc.msg}") from exc


def _chunk(data: str) -> Any:
    chunk = _json(data)
    if isinstance(error := field_of(chunk, "error"), dict):
        message = str(error.get("message", error))
        if filtered := content_filtered(400, message, error, prompt=False):
            raise filtered
        if overflow := context_overflow(400, message, error):
            raise overflow
        raise TransientProviderError(f"the server failed mid-reply: {message}")
    return chunk


def _body(provider: OpenAICompatibleProvider, request: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": provider.model,
        "messages": [
            wire_message(m, replay_reasoning=provider.replay_reasoning) for m in request.messages
        ],
    }
    if request.tools:
        body["tools"] = [wire_tool(t) for t in request.tools]
    if provider.service_tier:
        body["service_tier"] = provider.service_tier
    if request.max_reply_tokens:
        body["max_tokens"] = request.max_reply_tokens
    return body


def chat_usage(
    request: ChatRequest, message: AssistantMessage, usage: Any, tokens: TokenCounter
) -> Usage:
    """A Chat Completions ``usage`` object as honyaku's, beside honyaku's own counts."""
    return Usage(
        input_chars=request_chars(request),
        output_chars=message_chars(message),
        input_tokens=field_of(usage, "prompt_tokens"),
        output_tokens=field_of(usage, "completion_tokens"),
        cached_tokens=field_of(field_of(usage, "prompt_tokens_details"), "cached_tokens"),
        reasoning_tokens=field_of(field_of(usage, "completion_tokens_details"), "reasoning_tokens"),
        estimated_input_tokens=request_tokens(request, tokens),
        estimated_output_tokens=message_tokens(message, tokens),
    )


def _status_error(exc: openai.APIStatusError, model: str) -> ProviderError:
    return error_for_status(
        exc.status_code,
        _brief(exc),
        model=model,
        retry_after_s=retry_after_s(exc.response.headers),
        body=field_of(exc, "body"),
    )


def _brief(exc: BaseException) -> str:
    """The server's own message where it sent one, else the exception's; ``stream`` masks
    secrets in it and cuts it to one line."""
    body = field_of(exc, "body")
    message = field_of(body, "message") if isinstance(body, dict) else None
    if isinstance(field_of(body, "error"), dict):
        message = body["error"].get("message")
    return str(message or exc)
