"""The "test" button of a model profile: one cheap request, and what works in plain words.

Against the fake model server over real HTTP, as it behaves like real servers: tools native,
ignored or refused, a key refused, a server error, nobody listening.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from honyaku.application import Honyaku
from honyaku.domain.model_profile import ModelProfile
from honyaku.store import Stores
from honyaku.testing import FakeLLMServer, Fault, FaultKind, ToolSupport


def profile(server_url: str, **more: object) -> ModelProfile:
    return ModelProfile.model_validate(
        {"name": "checked", "model": "fake-translator", "base_url": server_url, **more}
    )


def test_a_model_that_calls_tools_natively_is_reachable_takes_the_key_and_calls_tools(
    honyaku: Honyaku, stores: Stores, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("FAKE_KEY", "right")
    with FakeLLMServer(api_key="right") as server:
        found = asyncio.run(honyaku.models.check(profile(server.url, api_key_env="FAKE_KEY")))
        sent = len(server.requests)

    assert (found.reachable, found.key_accepted, found.native_tools) == (True, True, True)
    assert found.works
    assert found.problem is None
    assert found.key_variable == "FAKE_KEY"
    assert sent == 1
    remembered = stores.learned.protocol(server.url.rstrip("/"), "fake-translator")
    assert remembered == "native"


@pytest.mark.parametrize("support", [ToolSupport.IGNORED, ToolSupport.REJECTED])
def test_a_model_without_native_tools_is_told_apart_in_one_request(
    honyaku: Honyaku, support: ToolSupport
):
    with FakeLLMServer(tool_support=support) as server:
        found = asyncio.run(honyaku.models.check(profile(server.url)))
        sent = len(server.requests)

    assert (found.reachable, found.key_accepted, found.native_tools) == (True, True, False)
    assert found.works
    assert sent == 1


def test_a_refused_key_is_said_and_the_key_never_shown(
    honyaku: Honyaku, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("FAKE_KEY", "sk-wrong-secret")
    with FakeLLMServer(api_key="right") as server:
        found = asyncio.run(honyaku.models.check(profile(server.url, api_key_env="FAKE_KEY")))

    assert (found.reachable, found.key_accepted) == (True, False)
    assert not found.works
    assert "refused the API key" in (found.problem or "")
    assert "sk-wrong-secret" not in repr(found)


def test_a_key_variable_that_is_not_set_is_said_before_any_request(honyaku: Honyaku):
    with FakeLLMServer() as server:
        found = asyncio.run(honyaku.models.check(profile(server.url, api_key_env="NOT_SET_KEY")))
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
    assert "refuses connections" in (found.problem or "")


def test_the_demo_model_works_without_a_request(honyaku: Honyaku):
    found = asyncio.run(honyaku.models.check(ModelProfile(name="d", model="demo")))

    assert found.works
    assert found.native_tools
