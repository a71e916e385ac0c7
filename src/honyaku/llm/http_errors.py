"""What a model server's HTTP refusal means for honyaku, the same for every provider.

Rate limits and server errors are worth retrying; a refused key, a forbidden model or an
unknown one are not, and each gets a message that says what to check. A connection that no
server takes (refused, or a host that does not resolve) is not worth retrying either, nor a
request a provider's filter refused (``content_filtered``): sent again, it meets the same
filter. Servers now and then echo the key in an error: the provider's ``Redactor`` takes it
out of every error it raises, so the messages built here need not.
"""

from __future__ import annotations

import re
import socket
from typing import Any

from honyaku.errors import (
    AuthError,
    ContentFilteredError,
    ContextOverflowError,
    FatalProviderError,
    ProviderError,
    RateLimitedError,
    TransientProviderError,
    UnreachableError,
)
from honyaku.llm.redaction import exception_chain, url_without_secrets

TRANSIENT_STATUS = frozenset({408, 409, 425})
BAD_KEY = "the server refused the API key ({status}); check the key in your environment"


def error_for_status(
    status: int,
    detail: str,
    *,
    model: str,
    retry_after_s: float | None = None,
    bad_key: bool = False,
    body: Any = None,
) -> ProviderError:
    """The error for an HTTP ``status`` whose server said ``detail`` (in ``body``, its error
    object as sent, where there is one)."""
    if filtered := content_filtered(status, detail, body):
        return filtered
    # Before the status: llama.cpp has answered a request too long for it with a 500.
    if overflow := context_overflow(status, detail, body):
        return overflow
    if status == 429:
        return RateLimitedError(
            f"rate limited (429): {detail}", retry_after_s=retry_after_s, status_code=status
        )
    if status >= 500 or status in TRANSIENT_STATUS:
        return TransientProviderError(
            f"server error ({status}): {detail}", retry_after_s=retry_after_s, status_code=status
        )
    if status == 401 or bad_key:
        return AuthError(BAD_KEY.format(status=status), status_code=status)
    messages = {
        403: f"access denied (403): {detail}",
        404: f"not found (404): is the model name {model!r} and the base URL right? {detail}",
    }
    message = messages.get(status, f"the server rejected the request ({status}): {detail}")
    return FatalProviderError(message, status_code=status)


_FILTER_CODES = frozenset(
    {
        "content_filter",  # Azure OpenAI (its ``code``), Moonshot (its ``type``)
        "ResponsibleAIPolicyViolation",  # Azure OpenAI, the ``innererror``'s code
        "data_inspection_failed",  # Alibaba's DashScope (Qwen)
        "1301",  # Zhipu's GLM
    }
)
_FILTER_WORDS = re.compile(
    r"content management policy"  # Azure OpenAI
    r"|Content Exists Risk"  # DeepSeek, whose code says only invalid_request_error
    r"|DataInspectionFailed"  # DashScope's native wording
    r"|flagged as potentially violating our usage policy",  # OpenAI's ``invalid_prompt``
    re.IGNORECASE,
)


def content_filtered(
    status: int, detail: str, body: Any = None, *, prompt: bool = True
) -> ContentFilteredError | None:
    """The error for a request a provider's filter refused, if that is what the server said
    (``prompt``: before any of the reply came; else in an error event midway).

    Only the codes and wordings providers are known to use count: a 400 for anything else
    (a bad parameter, a missing field) is not mistaken for a refusal.
    """
    if not 400 <= status < 500:
        return None
    error = body.get("error", body) if isinstance(body, dict) else {}
    error = error if isinstance(error, dict) else {}
    inner = error.get("innererror")
    inner = inner if isinstance(inner, dict) else {}
    codes = [str(c) for c in (error.get("code"), error.get("type"), inner.get("code")) if c]
    found = next((c for c in codes if c in _FILTER_CODES), None)
    if found is None and (said := _FILTER_WORDS.search(detail)):
        found = said[0]
    if found is None:
        return None
    return ContentFilteredError(
        found,
        categories=filtered_categories(inner.get("content_filter_result")),
        said=detail,
        prompt=prompt,
        status_code=status if prompt else None,
    )


def filtered_categories(results: Any) -> list[str]:
    """The categories Azure marks ``filtered: true`` in its ``content_filter_result(s)``."""
    if not isinstance(results, dict):
        return []
    return [
        name
        for name, verdict in results.items()
        if isinstance(verdict, dict) and verdict.get("filtered") is True
    ]


_OVERFLOW_WORDS = re.compile(
    r"context[ _](length|size|window)|maximum number of tokens allowed|exceed_context_size"
    r"|prompt is too long",
    re.IGNORECASE,
)
_WINDOW_PATTERNS = (
    re.compile(r"maximum context length is (\d+)"),  # OpenAI, vLLM, DeepSeek
    re.compile(r"exceeds? context window of (\d+)"),  # llama-cpp-python
    re.compile(r"context length of only (\d+)"),  # LM Studio
    re.compile(r"maximum number of tokens allowed \((\d+)\)"),  # Gemini
    re.compile(r"tokens > (\d+) maximum"),  # Anthropic
)
_PROMPT_PATTERNS = (
    re.compile(r"(?:resulted in|requested|request has) (\d+)(?: input)? tokens"),
    re.compile(r"Requested tokens \((\d+)\)"),
    re.compile(r"input token count \((\d+)\)"),
    re.compile(r"prompt is too long: (\d+) tokens"),  # Anthropic
)


def context_overflow(status: int, detail: str, body: Any = None) -> ContextOverflowError | None:
    """The error for a request its model's context window cannot hold, if that is what the
    server said: llama.cpp's ``exceed_context_size_error`` (with ``n_ctx`` and
    ``n_prompt_tokens``), OpenAI's ``context_length_exceeded`` and the wordings of vLLM,
    llama-cpp-python, LM Studio, Gemini and Anthropic, which name the window in their
    message."""
    error = body.get("error", body) if isinstance(body, dict) else {}
    error = error if isinstance(error, dict) else {}
    said = " ".join(str(part) for part in (detail, error.get("type"), error.get("code")) if part)
    if status < 400 or not _OVERFLOW_WORDS.search(said):
        return None
    window = _number(error.get("n_ctx")) or _first_number(_WINDOW_PATTERNS, detail)
    prompt = _number(error.get("n_prompt_tokens")) or _first_number(_PROMPT_PATTERNS, detail)
    where = f"{window:,} tokens" if window else "it"
    return ContextOverflowError(
        f"the request is longer than the model's context window ({where}): {detail}",
        window=window,
        prompt_tokens=prompt,
        status_code=status,
    )


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _first_number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        if found := pattern.search(text):
            return int(found[1])
    return None


def unreachable_error(exc: BaseException, url: str) -> UnreachableError | None:
    """The error for a connection to ``url`` that no server took, if ``exc`` is one."""
    shown = url_without_secrets(url).rstrip("/")
    for cause in exception_chain(exc):
        if isinstance(cause, ConnectionRefusedError):
            return UnreachableError(
                f"the model server at {shown} refuses connections: is it running, and is the "
                "address right?"
            )
        if isinstance(cause, socket.gaierror):
            return UnreachableError(
                f"the host of the model server at {shown} cannot be resolved: is the address right?"
            )
    return None
