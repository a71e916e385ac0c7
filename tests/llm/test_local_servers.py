"""Local servers say whether their model is there to answer: llama.cpp while it loads and when
every slot is busy, Ollama of a model never pulled, vLLM of a name it does not serve. A model
that cannot answer stops a job before its first request, in one line that says what to do.
Each server is a small app over real HTTP, answering as the real one does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from honyaku.errors import ModelUnavailableError
from honyaku.llm.messages import ChatRequest, UserMessage, request_tokens
from honyaku.llm.models import ModelChoice, ToolProtocol, open_model
from honyaku.llm.reply_cap import reply_room
from honyaku.llm.server_info import LLAMA_CPP, OLLAMA, VLLM, ServerInfo, ask_server
from honyaku.llm.tokenizers import token_counter
from honyaku.store import Stores
from honyaku.testing.server import BackgroundServer

LOADING = {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}
PROPS = {
    "default_generation_settings": {"n_ctx": 8192},
    "total_slots": 2,
    "model_path": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
}


def serving(routes: dict[str, Any]) -> BackgroundServer:
    """A server answering each path with its JSON (and status, given as a pair)."""

    def answer(found: Any) -> Any:
        async def respond(_request: Request) -> JSONResponse:
            body, status = found if isinstance(found, tuple) else (found, 200)
            return JSONResponse(body, status)

        return respond

    methods = ["GET", "POST"]
    return BackgroundServer(
        Starlette(
            routes=[Route(path, answer(body), methods=methods) for path, body in routes.items()]
        )
    )


def ask(routes: dict[str, Any], model: str) -> tuple[ServerInfo, str]:
    with serving(routes) as server:
        url = f"{server.origin}/v1"
        return asyncio.run(ask_server(url, model)), url


def test_a_llama_cpp_still_loading_its_model_is_told_in_one_line():
    info, url = ask({"/health": (LOADING, 503), "/props": (LOADING, 503)}, "qwen")

    assert info.server == LLAMA_CPP
    assert info.absence(url, "qwen") == (
        f"llama.cpp at {url} is still loading its model: try again once it has"
    )


@pytest.mark.parametrize(
    ("slots", "busy"),
    [
        ([{"id": 0, "is_processing": True}, {"id": 1, "is_processing": True}], True),
        ([{"id": 0, "is_processing": True}, {"id": 1, "is_processing": False}], False),
        ([{"id": 0, "state": 1}], True),
        (({"error": {"message": "This server does not support slots endpoint."}}, 501), None),
    ],
    ids=["every slot working", "a slot free", "before is_processing", "slots closed"],
)
def test_a_llama_cpp_says_its_model_window_and_whether_every_slot_is_busy(slots, busy):
    info, url = ask({"/health": {"status": "ok"}, "/props": PROPS, "/slots": slots}, "any")

    assert info.loaded_model == "qwen2.5-7b-instruct-q4_k_m.gguf"
    assert info.context_window == 8192
    assert info.busy is busy
    assert info.absence(url, "any") is None


def test_ollama_without_the_model_says_which_it_has_and_how_to_get_it():
    routes = {
        "/api/ps": {"models": [{"name": "llama3.2:3b", "context_length": 4096}]},
        "/api/show": ({"error": "model 'qwen3:8b' not found"}, 404),
    }

    info, url = ask(routes, "qwen3:8b")

    assert info.server == OLLAMA
    assert info.served == ("llama3.2:3b",)
    assert info.absence(url, "qwen3:8b") == (
        f"Ollama at {url} has no model 'qwen3:8b' (loaded: llama3.2:3b): ollama pull qwen3:8b"
    )


def test_ollama_with_the_model_pulled_but_not_loaded_lets_it_load_on_the_first_request():
    routes = {"/api/ps": {"models": []}, "/api/show": {"parameters": "num_ctx 16384"}}

    info, url = ask(routes, "qwen3:8b")

    assert (info.server, info.context_window, info.served) == (OLLAMA, 16384, ())
    assert info.absence(url, "qwen3:8b") is None


def test_vllm_serving_other_models_names_them():
    listed = {"data": [{"id": "Qwen/Qwen3-8B", "owned_by": "vllm", "max_model_len": 32768}]}

    info, url = ask({"/v1/models": listed}, "qwen3")

    assert info.server == VLLM
    assert info.absence(url, "qwen3") == (
        f"vLLM at {url} serves Qwen/Qwen3-8B, not 'qwen3': pass --model with one of them"
    )


def test_a_server_that_answers_any_name_is_not_held_to_its_list():
    listed = {"data": [{"id": "smollm2", "owned_by": "me"}]}

    info, url = ask({"/v1/models": listed}, "another")

    assert info == ServerInfo()
    assert info.absence(url, "another") is None


@pytest.mark.anyio
async def test_a_job_on_a_model_that_cannot_answer_stops_before_its_first_request(stores: Stores):
    routes = {
        "/api/ps": {"models": []},
        "/api/show": ({"error": "model 'qwen3:8b' not found"}, 404),
        "/v1/chat/completions": ({"error": {"message": "must not be asked"}}, 500),
    }
    with serving(routes) as server:
        choice = ModelChoice("qwen3:8b", f"{server.origin}/v1", protocol=ToolProtocol.NATIVE)
        with pytest.raises(ModelUnavailableError, match="ollama pull qwen3:8b") as refused:
            async with open_model(choice, stores.learned, language="zh-CN"):
                pass

    assert "\n" not in str(refused.value)


REPLY = {
    "id": "r",
    "object": "chat.completion",
    "model": "qwen",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "好"}, "finish_reason": "stop"}
    ],
}


async def bodies_sent(
    stores: Stores, routes: dict[str, Any], request: ChatRequest
) -> list[dict[str, Any]]:
    """The bodies of the chat requests a model on a server with ``routes`` was sent."""
    bodies: list[dict[str, Any]] = []

    async def complete(http: Request) -> JSONResponse:
        bodies.append(await http.json())
        return JSONResponse(REPLY)

    app = Starlette(routes=[Route("/v1/chat/completions", complete, methods=["POST"])])
    for path, body in routes.items():
        app.add_route(path, serving_json(body))
    with BackgroundServer(app) as server:
        choice = ModelChoice("qwen", f"{server.origin}/v1", protocol=ToolProtocol.NATIVE)
        async with open_model(choice, stores.learned, language="zh-CN") as model:
            async for _event in model.provider.stream(request):
                pass
    return bodies


def serving_json(body: Any) -> Any:
    async def respond(_request: Request) -> JSONResponse:
        return JSONResponse(body)

    return respond


@pytest.mark.anyio
async def test_a_reply_may_take_what_the_servers_window_holds_beyond_the_prompt(stores: Stores):
    # Given a llama.cpp whose window is 8,192 tokens
    llama_cpp = {"/health": {"status": "ok"}, "/props": PROPS}
    request = ChatRequest((UserMessage("羅生門の下で雨やみを待っていた。" * 20),))

    # When a request is sent there, and to a server that says nothing of its window
    [capped] = await bodies_sent(stores, llama_cpp, request)
    [hosted] = await bodies_sent(stores, {}, request)

    # Then the first may reply as long as the window has room, so that it ends cleanly
    prompt = request_tokens(request, token_counter("qwen"))
    assert capped["max_tokens"] == reply_room(8192, prompt)
    assert 7000 < capped["max_tokens"] < 8192 - prompt
    assert "max_tokens" not in hosted
