"""Anthropic's Messages API, on the official ``anthropic`` SDK, with native tool use and
explicit prompt caching.

The SDK carries the key (``x-api-key``), the API version header and the errors; the stream is
read here, one ``json.loads`` an event, as for Chat Completions (``openai_compat``), under the
reply's first-byte and idle bounds at the pace the model keeps (``llm.pace``). Every response's
headers go to ``on_headers``: a rate limiter reads its ``anthropic-ratelimit-*``.

What Anthropic says is read as honyaku reads every provider: 429 and ``overloaded_error``
(529) are worth a retry after the server's ``retry-after``, also when an ``error`` event comes
mid-stream; a key refused is ``AuthError``; "prompt is too long" a context overflow;
``stop_reason: "refusal"`` ``ContentFilteredError``; ``max_tokens`` a cut reply. Every error
leaves through one exit that masks the key and the extra headers (``redaction``).

Thinking is asked for with ``thinking_tokens`` (its budget); its blocks stream as reasoning and
go back with their signatures (``request``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import anthropic
import httpx2

from honyaku.errors import (
    ConfigError,
    CutStreamError,
    ProviderError,
    TransientProviderError,
)
from honyaku.llm.anthropic.reply import AnthropicReplyAssembler, anthropic_usage
from honyaku.llm.anthropic.request import max_reply_tokens, request_body
from honyaku.llm.events import Response, StreamEvent, Waiting
from honyaku.llm.http_errors import error_for_status, unreachable_error
from honyaku.llm.messages import ChatRequest, request_tokens
from honyaku.llm.openai_stream import sse_data
from honyaku.llm.pace import ServerPace
from honyaku.llm.redaction import Redactor
from honyaku.llm.retry import retry_after_s
from honyaku.llm.timeouts import (
    CONNECT_TIMEOUT_S,
    FIRST_BYTE_TIMEOUT_S,
    IDLE_TIMEOUT_S,
    ReplyClock,
    Timeouts,
)

ANTHROPIC_URL = "https://api.anthropic.com"
RETRIED_ERRORS = frozenset({"overloaded_error", "rate_limit_error", "api_error"})
"""The ``error`` events mid-stream that a new attempt may not meet."""


class AnthropicProvider:
    """One streamed Messages request per ``stream`` call; retries live elsewhere."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        first_byte_timeout_s: float = FIRST_BYTE_TIMEOUT_S,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        read_timeout_s: float | None = None,
        pace: ServerPace | None = None,
        max_tokens: int | None = None,
        thinking_tokens: int | None = None,
        cache: bool = True,
        on_headers: Callable[[Mapping[str, str]], None] | None = None,
    ) -> None:
        """``read_timeout_s``, where given, is both the first-byte and the idle bound;
        ``max_tokens`` bounds every reply (by default the model's own bound, as far as
        honyaku knows it); ``cache=False`` sends no breakpoint (to measure what they save)."""
        if not api_key and base_url is None:
            raise ConfigError(
                "Anthropic needs an API key (e.g. from ANTHROPIC_API_KEY); none was given"
            )
        self.model = model
        self.max_tokens = max_tokens or max_reply_tokens(model)
        self.thinking_tokens = thinking_tokens
        self.cache = cache
        self.on_headers = on_headers
        first_byte_s = read_timeout_s or first_byte_timeout_s
        idle_s = read_timeout_s or idle_timeout_s
        self.pace = pace or ServerPace(Timeouts(first_byte_s, idle_s))
        self._url = base_url or ANTHROPIC_URL
        self._redactor = Redactor.for_connection(
            api_key=api_key, base_url=base_url, headers=headers
        )
        self._client = anthropic.AsyncAnthropic(
            # A local stand-in needs no key, but the SDK would look for one elsewhere.
            api_key=api_key or "no-key",
            base_url=self._url,
            default_headers=dict(headers or {}),
            max_retries=0,  # RetryingProvider decides
            timeout=_backstop(self.pace.floor.first_byte_s, self.pace.floor.idle_s),
            # A redirect could carry the key to another host: none is followed.
            http_client=anthropic.DefaultAsyncHttpxClient(follow_redirects=False),
        )

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        return self._redactor.exit_of(self._stream(request))

    async def _stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        assembler = AnthropicReplyAssembler()
        prompt_tokens = request_tokens(request)
        yield Waiting(self.pace.expected_s(prompt_tokens))
        clock = self.pace.clock(prompt_tokens)
        async for event in self._events(request, assembler, clock):
            yield event
        if assembler.error is not None:
            raise _stream_error(assembler)
        if filtered := assembler.filtered():
            raise filtered  # before the Response: no text of it is an answer, no call runs
        if assembler.finish_reason is None:
            raise CutStreamError("the reply was cut off before it finished")
        message = assembler.message()
        usage = anthropic_usage(request, message, assembler.usage)
        timing = clock.timing(prompt_tokens, usage.output_tokens or usage.estimated_output_tokens)
        await self.pace.observe(timing)
        yield Response(message, assembler.finish_reason, usage, timing)

    async def _events(
        self, request: ChatRequest, assembler: AnthropicReplyAssembler, clock: ReplyClock
    ) -> AsyncIterator[StreamEvent]:
        try:
            async for event in self._http_events(request, assembler, clock):
                yield event
        except anthropic.APIStatusError as exc:
            raise status_error(exc, self.model) from exc
        except (anthropic.APIError, httpx2.HTTPError) as exc:
            if assembler.events:
                raise CutStreamError(f"the reply broke off: {exc}") from exc
            if unreachable := unreachable_error(exc, self._url):
                raise unreachable from exc
            raise TransientProviderError(f"connection to the model failed: {exc}") from exc

    async def _http_events(
        self, request: ChatRequest, assembler: AnthropicReplyAssembler, clock: ReplyClock
    ) -> AsyncIterator[StreamEvent]:
        body = request_body(
            request,
            model=self.model,
            max_tokens=self.max_tokens,
            thinking_tokens=self.thinking_tokens,
            cache=self.cache,
        )
        # The SDK's raw post: its auth, headers and errors, without its typed events.
        response = await clock.wait(
            self._client.post(
                "/v1/messages",
                cast_to=httpx2.Response,
                body=body | {"stream": True},
                options={"timeout": _backstop(clock.first_byte_s, clock.idle_s)},
                stream=True,
            )
        )
        if self.on_headers is not None:
            self.on_headers(response.headers)
        try:
            async for data in clock.chunks_of(sse_data(response.aiter_lines())):
                events = assembler.add_event(_json(data))
                if assembler.heard:
                    clock.heard()
                for event in events:
                    yield event
                if assembler.error is not None:
                    return
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        await self._client.close()


def _backstop(first_byte_s: float, idle_s: float) -> httpx2.Timeout:
    """The HTTP client's own timeout, a backstop only: the reply's clock enforces its bounds."""
    return httpx2.Timeout(max(first_byte_s, idle_s) + CONNECT_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TransientProviderError(f"the server sent unreadable JSON: {exc.msg}") from exc
    return value if isinstance(value, dict) else {}


def _stream_error(assembler: AnthropicReplyAssembler) -> ProviderError:
    """The error an ``error`` event mid-stream stands for."""
    error = assembler.error or {}
    kind, said = str(error.get("type", "error")), str(error.get("message", "")).strip()
    text = f"{kind}: {said}" if said else kind
    if kind in RETRIED_ERRORS or kind.endswith("overloaded_error"):
        if assembler.heard:
            return CutStreamError(f"the reply broke off: {text}")
        return TransientProviderError(f"the server failed mid-reply: {text}")
    status = {"invalid_request_error": 400, "permission_error": 403, "not_found_error": 404}
    return error_for_status(status.get(kind, 500), text, model="", body={"error": error})


def status_error(exc: anthropic.APIStatusError, model: str) -> ProviderError:
    """An HTTP refusal as honyaku's error, the server's own message kept."""
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body)
    message = error.get("message") if isinstance(error, dict) else None
    return error_for_status(
        exc.status_code,
        str(message or exc.message or exc),
        model=model,
        retry_after_s=retry_after_s(exc.response.headers),
        body=body,
    )
