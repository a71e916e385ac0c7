"""The "test" button of a model profile: one cheap request, and what works in plain words.

Against the fake model server over real HTTP, as it behaves like real servers: tools native,
ignored or refused, a key refused, a server error, nobody listening; and as an attacker would
use it: a variable no terminal named, a saved key asked to go elsewhere, a redirect, a server
that refuses everything. (A listener on another port hears no secret whatever is asked:
``tests/web/test_keys_go_only_where_saved.py``.)
"""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from honyaku.application import Honyaku
from honyaku.domain.model_profile import ModelProfile
from honyaku.errors import ConfigError
from honyaku.store import Stores
from honyaku.testing import FakeLLMServer, Fault, FaultKind, ToolSupport
from honyaku.testing.server import BackgroundServer

# The database has no part in this.
pytestmark = pytest.mark.backends("sqlite")


def profile(server_url: str, **more: object) -> ModelProfile:
    return ModelProfile.model_validate(
        {"name": "checked", "model": "fake-translator", "base_url": server_url, **more}
    )


def declared(honyaku: Honyaku, saved: ModelProfile) -> ModelProfile:
    """``saved`` as ``honyaku models add`` saves it: its key variable named at a terminal."""
    return asyncio.run(honyaku.models.save(saved, declared=True))


def test_a_model_that_calls_tools_natively_is_reachable_takes_the_key_and_calls_tools(
    honyaku: Honyaku, stores: Stores, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("FAKE_KEY", "right")
    with FakeLLMServer(api_key="right") as server:
        saved = declared(honyaku, profile(server.url, api_key_env="FAKE_KEY"))
        found = asyncio.run(honyaku.models.check(saved))
        sent = len(server.requests)

    assert (found.reachable, found.key_accepted, found.native_tools) == (True, True, True)
    assert found.works
    assert found.problem is None
    assert found.key_variable == "FAKE_KEY"
    assert sent == 1
    remembered = stores.learned.protocol(server.url.rstrip("/"), "fake-translator")
    assert remembered == "native"


@pytest.mark.parametrize("support", [ToolSupport.IGNORED, ToolSupport.REJECTED])
def test_a_model_without_native_tools_works_once_it_answered_its_tool_in_xml(
    honyaku: Honyaku, support: ToolSupport
):
    with FakeLLMServer(tool_support=support) as server:
        found = asyncio.run(honyaku.models.check(profile(server.url)))
        sent = [bool(request.get("tools")) for request in server.requests]

    assert (found.reachable, found.key_accepted, found.native_tools) == (True, True, False)
    assert found.works
    assert sent == [True, False]  # the tool natively, then described in the prompt


def test_a_refused_key_is_said_and_the_key_never_shown(
    honyaku: Honyaku, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("FAKE_KEY", "sk-wrong-secret")
    with FakeLLMServer(api_key="right") as server:
        saved = declared(honyaku, profile(server.url, api_key_env="FAKE_KEY"))
        found = asyncio.run(honyaku.models.check(saved))

    assert (found.reachable, found.key_accepted) == (True, False)
    assert not found.works
    assert "refused the API key" in (found.problem or "")
    assert "sk-wrong-secret" not in repr(found)


def test_a_key_variable_that_is_not_set_is_said_before_any_request(honyaku: Honyaku):
    with FakeLLMServer() as server:
        saved = declared(honyaku, profile(server.url, api_key_env="NOT_SET_KEY"))
        found = asyncio.run(honyaku.models.check(saved))
        sent = len(server.requests)

    assert found.problem == "the environment variable NOT_SET_KEY is not set"
    assert sent == 0


def test_a_server_error_is_reported_once_without_retries(honyaku: Honyaku):
    with FakeLLMServer() as server:
        server.faults.append(Fault(FaultKind.SERVER_ERROR))
        found = asyncio.run(honyaku.models.check(profile(server.url)))
        sent = len(server.requests)

    assert found.reachable is True
    assert found.native_tools is None
    assert "server error (500)" in (found.problem or "")
    assert sent == 1


def test_an_address_nobody_listens_at_is_unreachable(honyaku: Honyaku):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]

    found = asyncio.run(honyaku.models.check(profile(f"http://127.0.0.1:{port}/v1")))

    assert found.reachable is False
    assert found.problem == (
        f"no model server answered at http://127.0.0.1:{port}/v1: is it running, and is the "
        "address right?"
    )


@pytest.mark.backends("sqlite")
def test_unreachable_addresses_are_told_in_one_neutral_line(honyaku: Honyaku):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with socket.socket() as other:  # listens, and answers as an SSH server does
        other.bind(("127.0.0.1", 0))
        other.listen()
        other_port = other.getsockname()[1]

        def greet_and_hang_up() -> None:
            while True:
                try:
                    connection, _ = other.accept()
                except OSError:  # closed: the test is over
                    return
                with connection:
                    connection.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")

        greeter = threading.Thread(target=greet_and_hang_up, daemon=True)
        greeter.start()
        found = [
            asyncio.run(honyaku.models.check(profile(url)))
            for url in (
                f"http://127.0.0.1:{port}/v1",
                "http://no-such-host.invalid/v1",
                f"http://127.0.0.1:{other_port}/v1",
            )
        ]

    lines = {(f.problem or "").split(": ", 1)[1] for f in found}
    assert lines == {"is it running, and is the address right?"}
    assert not any(f.reachable or f.works for f in found)


def test_the_check_sends_no_variable_no_terminal_named(
    honyaku: Honyaku, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("HONYAKU_HOME", "/home/someone/secret-place")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not-for-a-model-server")
    with FakeLLMServer() as server:
        for variable in ("HONYAKU_HOME", "GITHUB_TOKEN"):
            found = asyncio.run(honyaku.models.check(profile(server.url, api_key_env=variable)))
            assert found.problem
            assert f"name ${variable} for http://127.0.0.1:" in found.problem
        with pytest.raises(ConfigError, match=r"read only for the servers a terminal named"):
            asyncio.run(honyaku.models.save(profile(server.url, api_key_env="PATH")))
        sent = len(server.requests)

    assert sent == 0


def test_a_variable_declared_in_a_terminal_is_a_key_variable_for_its_server(
    honyaku: Honyaku, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MY_DEEPSEEK", "right")
    with FakeLLMServer(api_key="right") as server:
        declared = profile(server.url, api_key_env="MY_DEEPSEEK")
        asyncio.run(honyaku.models.save(declared, declared=True))
        found = asyncio.run(honyaku.models.check(declared))

    assert found.works


def test_a_saved_key_is_sent_to_no_other_server(honyaku: Honyaku, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-the-real-one")
    with FakeLLMServer(api_key="sk-the-real-one") as real, FakeLLMServer() as listener:
        declared(honyaku, profile(real.url, api_key_env="DEEPSEEK_API_KEY"))
        for named in ({"api_key_env": "DEEPSEEK_API_KEY"}, {"key_name": "DEEPSEEK_API_KEY"}):
            elsewhere = profile(listener.url, **named)
            found = asyncio.run(honyaku.models.check(elsewhere))
            assert (found.problem or "").startswith(
                ("an environment variable is read only", "the key DEEPSEEK_API_KEY goes only to")
            )
            with pytest.raises(ConfigError):
                asyncio.run(honyaku.models.save(elsewhere.model_copy(update={"name": "other"})))
        heard = len(listener.requests)

    assert heard == 0


@pytest.mark.backends("sqlite")
def test_a_redirect_is_not_followed_and_the_key_stays_home(
    honyaku: Honyaku, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("REDIRECTED_KEY", "sk-not-for-them")
    with FakeLLMServer() as elsewhere:

        async def moved(request: Request) -> Response:
            return RedirectResponse(f"{elsewhere.url}/chat/completions", status_code=307)

        routes = [Route("/v1/chat/completions", moved, methods=["POST"])]
        with BackgroundServer(Starlette(routes=routes)) as redirecting:
            url = f"{redirecting.origin}/v1"
            saved = declared(honyaku, profile(url, api_key_env="REDIRECTED_KEY"))
            found = asyncio.run(honyaku.models.check(saved))
        heard = len(elsewhere.requests)

    assert heard == 0
    assert not found.works


@pytest.mark.backends("sqlite")
@pytest.mark.parametrize("status", [400, 404])
def test_a_server_that_refuses_every_request_does_not_work(honyaku: Honyaku, status: int):
    async def refuse(request: Request) -> JSONResponse:
        return JSONResponse({"error": {"message": "no"}}, status_code=status)

    routes = [Route("/v1/chat/completions", refuse, methods=["POST"])]
    with BackgroundServer(Starlette(routes=routes)) as refusing:
        found = asyncio.run(honyaku.models.check(profile(f"{refusing.origin}/v1")))

    assert not found.works
    assert found.problem


def test_the_demo_model_works_without_a_request(honyaku: Honyaku):
    found = asyncio.run(honyaku.models.check(ModelProfile(name="d", model="demo")))

    assert found.works
    assert found.native_tools
