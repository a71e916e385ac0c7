"""Servers that never answer, go quiet or refuse: every wait is bounded, over real sockets.

Each test measures how long honyaku waited and checks it against the bound it set; the
bounds here are small, the defaults serve a local server on a CPU (minutes before a first
token on a long prompt).
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from honyaku.errors import (
    ConfigError,
    CutStreamError,
    ProviderError,
    TransientProviderError,
    UnreachableError,
)
from honyaku.llm.events import ChatProvider, Retry
from honyaku.llm.gemini import GeminiProvider
from honyaku.llm.messages import ChatRequest, UserMessage
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.llm.timeouts import (
    FIRST_BYTE_TIMEOUT_S,
    IDLE_TIMEOUT_S,
    REQUEST_BUDGET_S,
    Timeouts,
)
from honyaku.testing import Silence, SilentServer
from honyaku.testing.server import BackgroundServer

FIRST_BYTE_S = 0.5
IDLE_S = 0.3
SLACK_S = 1.0
"""Scheduling on a busy machine; any bound missed by more than this is a bound not kept."""
REQUEST = ChatRequest((UserMessage("Translate: 吾輩は猫である。"),))

MakeProvider = Callable[..., ChatProvider]


def openai_provider(url: str, **bounds: float) -> ChatProvider:
    return OpenAICompatibleProvider(model="silent", base_url=url, api_key="sk-test", **bounds)


def gemini_provider(url: str, **bounds: float) -> ChatProvider:
    origin = url.removesuffix("/v1")
    return GeminiProvider(model="gemini-silent", api_key="AIza-test", base_url=origin, **bounds)


PROVIDERS = pytest.mark.parametrize(
    "make", [openai_provider, gemini_provider], ids=["openai", "gemini"]
)


async def failure(provider: ChatProvider) -> tuple[BaseException, float, list[Retry]]:
    """Stream ``REQUEST`` to its failure: the error, the seconds it took, the retries."""
    retries: list[Retry] = []
    started = time.monotonic()
    try:
        with pytest.raises(ProviderError) as failed:
            await _drain(provider, retries)
    finally:
        await provider.aclose()
    return failed.value, time.monotonic() - started, retries


async def _drain(provider: ChatProvider, retries: list[Retry]) -> None:
    async for event in provider.stream(REQUEST):
        if isinstance(event, Retry):
            retries.append(event)


@pytest.fixture
def silent() -> Iterator[Callable[[Silence], SilentServer]]:
    servers: list[SilentServer] = []

    def start(silence: Silence) -> SilentServer:
        servers.append(SilentServer(silence).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def free_port() -> int:
    """A port that nothing listens on: bound, then released."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.anyio
@PROVIDERS
@pytest.mark.parametrize("silence", [Silence.NEVER_ANSWERS, Silence.HEADERS_ONLY])
async def test_a_server_that_never_replies_is_given_up_on_at_the_first_byte_bound(
    silent, make: MakeProvider, silence: Silence
):
    server = silent(silence)

    error, seconds, _ = await failure(
        make(server.url, first_byte_timeout_s=FIRST_BYTE_S, idle_timeout_s=60)
    )

    assert type(error) is TransientProviderError
    assert "within 0.5 s" in str(error)
    assert "HONYAKU_FIRST_BYTE_TIMEOUT_S" in str(error)
    assert FIRST_BYTE_S <= seconds < FIRST_BYTE_S + SLACK_S


@pytest.mark.anyio
@PROVIDERS
async def test_a_reply_that_stalls_midway_is_cut_at_the_idle_bound(silent, make: MakeProvider):
    server = silent(Silence.STALLS_MID_REPLY)

    error, seconds, _ = await failure(
        make(server.url, first_byte_timeout_s=60, idle_timeout_s=IDLE_S)
    )

    assert isinstance(error, CutStreamError)
    assert "nothing for 0.3 s" in str(error)
    assert "HONYAKU_IDLE_TIMEOUT_S" in str(error)
    assert IDLE_S <= seconds < IDLE_S + SLACK_S


@pytest.mark.anyio
async def test_keep_alive_comments_are_no_reply():
    async def pinging(_request: Request) -> StreamingResponse:
        async def pings() -> AsyncIterator[bytes]:
            while True:
                yield b": keep-alive\n\n"
                await asyncio.sleep(0.05)

        return StreamingResponse(pings(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/v1/chat/completions", pinging, methods=["POST"])])
    with BackgroundServer(app) as server:
        error, seconds, _ = await failure(
            openai_provider(f"{server.origin}/v1", first_byte_timeout_s=FIRST_BYTE_S)
        )

    assert "within 0.5 s" in str(error)
    assert seconds < FIRST_BYTE_S + SLACK_S


@pytest.mark.anyio
async def test_retries_stop_when_the_request_budget_is_spent(silent):
    server = silent(Silence.NEVER_ANSWERS)
    budget_s = 1.2
    provider = RetryingProvider(
        openai_provider(server.url, first_byte_timeout_s=0.4),
        RetryPolicy(base_s=0.01, max_attempts=100, budget_s=budget_s),
    )

    error, seconds, retries = await failure(provider)

    assert "HONYAKU_REQUEST_BUDGET_S" in str(error)
    assert "within 0.4 s" in str(error)
    # No retry starts past the budget; the one running then is held to its own bound.
    assert budget_s <= seconds < budget_s + 0.4 + SLACK_S
    assert server.connections == len(retries) + 1 < 100


@pytest.mark.anyio
@PROVIDERS
async def test_a_refused_connection_gives_up_at_once_with_one_quick_retry_and_says_where(
    make: MakeProvider,
):
    port = free_port()
    url = f"http://user:hunter22@127.0.0.1:{port}/v1"
    # The default policy: a dead server must not cost the backoff of six attempts.
    provider = RetryingProvider(make(url), RetryPolicy())

    error, seconds, retries = await failure(provider)

    assert isinstance(error, UnreachableError)
    assert f"at http://127.0.0.1:{port}" in str(error)
    assert "refuses connections" in str(error)
    assert "hunter22" not in str(error)
    assert len(retries) == 1
    assert seconds < RetryPolicy().base_s + SLACK_S


@pytest.mark.anyio
async def test_a_host_that_does_not_resolve_is_unreachable():
    provider = RetryingProvider(
        openai_provider("http://no-such-host.invalid/v1"), RetryPolicy(base_s=0.01)
    )

    error, seconds, retries = await failure(provider)

    assert isinstance(error, UnreachableError)
    assert "cannot be resolved" in str(error)
    assert len(retries) == 1
    assert seconds < SLACK_S


def test_the_default_bounds_serve_a_local_server_on_a_cpu():
    assert Timeouts() == Timeouts(600, 120, 1800)
    assert (FIRST_BYTE_TIMEOUT_S, IDLE_TIMEOUT_S) == (600, 120)
    assert RetryPolicy().budget_s == REQUEST_BUDGET_S == 1800
    provider = OpenAICompatibleProvider(model="m", base_url="http://127.0.0.1:1/v1")
    assert (provider.first_byte_timeout_s, provider.idle_timeout_s) == (600, 120)


def test_the_bounds_are_read_from_the_environment():
    environ = {
        "HONYAKU_FIRST_BYTE_TIMEOUT_S": "1200",
        "HONYAKU_IDLE_TIMEOUT_S": " 30.5 ",
        "HONYAKU_REQUEST_BUDGET_S": "",
    }

    assert Timeouts.from_environment(environ) == Timeouts(1200, 30.5, REQUEST_BUDGET_S)
    assert Timeouts.from_environment({}) == Timeouts()


@pytest.mark.parametrize("setting", ["soon", "0", "-5", "inf", "nan"])
def test_a_bound_that_is_not_a_positive_number_of_seconds_is_refused_by_name(setting: str):
    with pytest.raises(ConfigError, match=f"HONYAKU_IDLE_TIMEOUT_S .*{setting!r}"):
        Timeouts.from_environment({"HONYAKU_IDLE_TIMEOUT_S": setting})
