"""Servers that echo secrets: no error, retry line or traceback ever holds one, over real HTTP.

A misbehaving gateway answers 200 and an event stream, then an error event that repeats
everything secret it was sent: the API key, a token from an extra header, the password in
the base URL.
"""

from __future__ import annotations

import base64
import json
import traceback
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from honyaku.errors import ProviderError
from honyaku.llm.events import ChatProvider, Retry
from honyaku.llm.gemini import GeminiProvider
from honyaku.llm.messages import ChatRequest, UserMessage
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.redaction import MASK, Redactor, url_without_secrets
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.testing.server import BackgroundServer

KEY = "sk-live-0123456789abcdefSECRET"
GATEWAY_TOKEN = "gw-tok-9876543210ZYXW"
URL_PASSWORD = "pa55-w0rd-in-url"
BASIC_CREDENTIAL = base64.b64encode(f"gw-user:{URL_PASSWORD}".encode()).decode()
"""What HTTP clients send in ``Authorization: Basic`` for the base URL's user and password."""
SECRETS = (KEY, GATEWAY_TOKEN, URL_PASSWORD, BASIC_CREDENTIAL)
REQUEST = ChatRequest((UserMessage("Translate: 吾輩は猫である。"),))
ATTEMPTS = 3


def echoed(request: Request) -> str:
    """What a careless server says: every secret it was sent, and the one it knows of."""
    sent = " ".join(f"{name}={value}" for name, value in request.headers.items())
    return f"key {KEY} revoked; you sent {sent}; upstream http://u:{URL_PASSWORD}@gw/v1"


async def openai_stream_error(request: Request) -> Response:
    chunk = {"choices": [{"index": 0, "delta": {"content": "Once"}}]}
    body = (
        f"data: {json.dumps(chunk)}\n\n"
        + "data: "
        + json.dumps({"error": {"message": echoed(request), "type": "invalid_request_error"}})
    )
    return Response(body + "\n\n", media_type="text/event-stream")


async def gemini_stream_error(request: Request) -> Response:
    error = {"error": {"code": 500, "message": echoed(request), "status": "INTERNAL"}}
    return Response(f"data: {json.dumps(error)}\n\n", media_type="text/event-stream")


async def refusal_with_secrets(request: Request) -> Response:
    # Long enough that a message cut before masking would keep half of the key.
    padding = "." * 280
    return JSONResponse({"error": {"message": padding + echoed(request)}}, status_code=400)


def serving(route: str, endpoint: Callable[[Request], Any]) -> BackgroundServer:
    return BackgroundServer(Starlette(routes=[Route(route, endpoint, methods=["POST"])]))


@pytest.fixture
def gateway() -> Iterator[Callable[[str, Callable[[Request], Any]], str]]:
    servers: list[BackgroundServer] = []

    def start(route: str, endpoint: Callable[[Request], Any]) -> str:
        servers.append(serving(route, endpoint).start())
        port = servers[-1].port
        return f"http://gw-user:{URL_PASSWORD}@127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop()


async def failure(provider: ChatProvider) -> tuple[ProviderError, list[str]]:
    """The error that ends a retried request, and the reason of every retry on the way."""
    reasons: list[str] = []
    retrying = RetryingProvider(provider, RetryPolicy(base_s=0.01, max_attempts=ATTEMPTS))
    try:
        with pytest.raises(ProviderError) as failed:
            await _drain(retrying, reasons)
    finally:
        await retrying.aclose()
    return failed.value, reasons


async def _drain(provider: ChatProvider, reasons: list[str]) -> None:
    async for event in provider.stream(REQUEST):
        if isinstance(event, Retry):
            reasons.append(event.reason)


def leaked(text: str) -> list[str]:
    """Every piece of a secret, eight characters or more, that ``text`` holds."""
    return [
        secret[start : start + 8]
        for secret in SECRETS
        for start in range(len(secret) - 7)
        if secret[start : start + 8] in text
    ]


def openai_provider(url: str) -> ChatProvider:
    return OpenAICompatibleProvider(
        model="gpt-test",
        base_url=f"{url}/v1",
        api_key=KEY,
        headers={"X-Gateway-Token": GATEWAY_TOKEN, "X-Title": "honyaku"},
    )


def gemini_provider(url: str) -> ChatProvider:
    return GeminiProvider(
        model="gemini-test",
        base_url=url,
        api_key=KEY,
        headers={"X-Gateway-Token": f"Bearer {GATEWAY_TOKEN}"},
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("route", "endpoint", "make"),
    [
        ("/v1/chat/completions", openai_stream_error, openai_provider),
        ("/v1beta/models/{target}", gemini_stream_error, gemini_provider),
    ],
    ids=["openai", "gemini"],
)
async def test_an_error_event_mid_stream_that_echoes_secrets_never_shows_them(
    gateway, route: str, endpoint: Callable[[Request], Any], make: Callable[[str], ChatProvider]
):
    error, reasons = await failure(make(gateway(route, endpoint)))

    assert len(reasons) == ATTEMPTS - 1
    for text in (str(error), *reasons):
        assert "revoked" in text
        assert MASK in text
        assert leaked(text) == []
    assert leaked("".join(traceback.format_exception(error))) == []


@pytest.mark.anyio
async def test_a_refusal_whose_secrets_straddle_the_cut_leaves_no_half_of_them(gateway):
    url = gateway("/v1/chat/completions", refusal_with_secrets)

    error, _ = await failure(openai_provider(url))

    assert "rejected the request (400)" in str(error)
    assert "\n" not in str(error)
    assert leaked(str(error)) == []
    assert leaked("".join(traceback.format_exception(error))) == []


def test_the_redactor_masks_key_header_tokens_and_url_secrets_but_not_short_headers():
    redactor = Redactor.for_connection(
        api_key=KEY,
        base_url="https://tok%2Fen-as-user@gw.example/v1?api-key=query-secret-1",
        headers={"Authorization": f"Bearer {GATEWAY_TOKEN}", "X-Title": "honyaku"},
    )

    text = redactor.text(
        f"{KEY} {GATEWAY_TOKEN} tok/en-as-user tok%2Fen-as-user query-secret-1 honyaku"
    )

    assert text == f"{MASK} {MASK} {MASK} {MASK} {MASK} honyaku"


def test_an_address_is_shown_without_its_user_password_and_query():
    shown = url_without_secrets(f"http://user:{URL_PASSWORD}@127.0.0.1:8080/v1?key=abc")

    assert shown == "http://127.0.0.1:8080/v1"
    assert url_without_secrets("http://[::1/v1") == "http://[::1/v1"
