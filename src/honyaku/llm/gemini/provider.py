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

A prompt Gemini's checks blocked, or a reply they stopped (``reply.py`` reads which), raises
``ContentFilteredError`` in place of the ``Response``: the text streamed before the stop is
not an answer, and none of the calls that came with it runs. Every request carries the
loosest safety settings the model takes (``request.safety_settings``).

As for Chat Completions, the reply runs under its first-byte and idle bounds (``timeouts``),
and every error leaves through one exit that masks the key, the extra headers and the URL's
secrets (``redaction``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from typing import cast

import httpx2
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from honyaku.errors import (
    ConfigError,
    CutStreamError,
    ProviderError,
    TransientProviderError,
)
from honyaku.llm.events import Response, StreamEvent
from honyaku.llm.gemini.reply import GeminiReplyAssembler, gemini_usage
from honyaku.llm.gemini.request import function_declaration, gemini_contents, safety_settings
from honyaku.llm.http_errors import error_for_status, unreachable_error
from honyaku.llm.messages import (
    ChatRequest,
    ToolSpec,
)
from honyaku.llm.redaction import Redactor
from honyaku.llm.retry import retry_after_s
from honyaku.llm.timeouts import (
    CONNECT_TIMEOUT_S,
    FIRST_BYTE_TIMEOUT_S,
    IDLE_TIMEOUT_S,
    ReplyClock,
)

API_VERSION = "v1beta"
"""Thought signatures, function call ids and ``anyOf`` schemas need the beta surface."""
GEMINI_URL = "https://generativelanguage.googleapis.com"


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


_READ_ERRORS: tuple[type[Exception], ...] = (
    *_transport_errors(),
    genai_errors.UnknownApiResponseError,
)


class GeminiProvider:
    """One streamed ``generateContent`` request per ``stream`` call; retries live elsewhere."""

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
    ) -> None:
        """``read_timeout_s``, where given, is both the first-byte and the idle bound."""
        if not api_key and base_url is None:
            raise ConfigError("Gemini needs an API key (e.g. from GEMINI_API_KEY); none was given")
        self.model = model
        self.first_byte_timeout_s = read_timeout_s or first_byte_timeout_s
        self.idle_timeout_s = read_timeout_s or idle_timeout_s
        self._url = base_url or GEMINI_URL
        self._redactor = Redactor.for_connection(
            api_key=api_key, base_url=base_url, headers=headers
        )
        backstop_s = max(self.first_byte_timeout_s, self.idle_timeout_s) + CONNECT_TIMEOUT_S
        self._client = genai.Client(
            # A local stand-in needs no key, but the SDK insists on one.
            api_key=api_key or "no-key",
            # Explicit, so that GOOGLE_GENAI_USE_VERTEXAI in the environment changes nothing.
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=base_url,
                api_version=API_VERSION,
                headers=dict(headers or {}),
                # A backstop only: the reply's clock enforces its bounds.
                timeout=round(backstop_s * 1000),
                # No retry_options: the SDK then makes one attempt, and RetryingProvider decides.
                # A redirect could carry the key to another host: none is followed.
                client_args={"follow_redirects": False},
                async_client_args={"follow_redirects": False},
            ),
        )

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        return self._redactor.exit_of(self._stream(request))

    async def _stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        turn = request.turn
        assembler = GeminiReplyAssembler(turn)
        try:
            async for event in self._events(request, assembler):
                yield event
        except genai_errors.APIError as exc:
            raise _api_error(exc, self.model) from exc
        except _READ_ERRORS as exc:
            if assembler.chunks:
                raise CutStreamError(f"the reply broke off: {exc}") from exc
            if unreachable := unreachable_error(exc, self._url):
                raise unreachable from exc
            raise TransientProviderError(f"connection to the model failed: {exc}") from exc
        if filtered := assembler.filtered():
            raise filtered  # before the Response: no text of it is an answer, no call runs
        if assembler.finish_reason is None:
            raise CutStreamError("the reply was cut off before it finished")
        message = assembler.message()
        yield Response(
            message, assembler.finish_reason, gemini_usage(request, message, assembler.usage)
        )

    async def _events(
        self, request: ChatRequest, assembler: GeminiReplyAssembler
    ) -> AsyncIterator[StreamEvent]:
        system, contents = gemini_contents(request.messages)
        clock = ReplyClock(self.first_byte_timeout_s, self.idle_timeout_s)
        stream = await clock.wait(
            self._client.aio.models.generate_content_stream(
                model=self.model,
                contents=contents,
                config=_config(self.model, system, request.tools),
            )
        )
        # Closed explicitly, so that a reader who stops early releases the connection now. The
        # SDK declares an iterator; what it returns is an async generator, which can close.
        generator = cast(AsyncGenerator[types.GenerateContentResponse, None], stream)
        async with contextlib.aclosing(generator) as chunks:
            async for chunk in clock.chunks_of(chunks):
                clock.heard()  # Gemini sends no chunk without some of its answer
                for event in assembler.add_chunk(chunk):
                    yield event

    async def aclose(self) -> None:
        await self._client.aio.aclose()
        self._client.close()


def _config(model: str, system: str, tools: Sequence[ToolSpec]) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        system_instruction=system or None,
        safety_settings=safety_settings(model),
        tools=[types.Tool(function_declarations=[function_declaration(t) for t in tools])]
        if tools
        else None,
        # The loop runs the tools itself, checking every call.
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )


def _api_error(exc: genai_errors.APIError, model: str) -> ProviderError:
    return error_for_status(
        exc.code or 0,
        str(exc.message or exc),
        model=model,
        retry_after_s=_retry_after_s(exc),
        bad_key=_is_bad_key(exc),
        body=exc.details,
    )


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
