"""What a model server says about itself, asked over real HTTP (the fake server speaking as
llama.cpp, Ollama or vLLM), and what a refusal says about the window it could not hold."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from honyaku.errors import ContextOverflowError
from honyaku.llm.http_errors import context_overflow, error_for_status
from honyaku.llm.server_info import LLAMA_CPP, OLLAMA, VLLM, ServerInfo, ask_server
from honyaku.testing import MODEL_NAME, FakeLLMServer
from honyaku.testing.context_limit import ContextLimit, Introspection


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


@pytest.mark.parametrize(
    ("says", "name"),
    [
        (Introspection.LLAMA_CPP, LLAMA_CPP),
        (Introspection.OLLAMA, OLLAMA),
        (Introspection.VLLM, VLLM),
    ],
)
def test_a_local_server_says_its_window_where_it_keeps_it(server, says, name):
    server.context = ContextLimit(16384, says=says)

    info = asyncio.run(ask_server(server.url, MODEL_NAME))

    assert info.server == name
    assert info.context_window == 16384


def test_a_server_that_says_nothing_of_its_window_leaves_it_unknown(server):
    server.context = None

    assert asyncio.run(ask_server(server.url, MODEL_NAME)) == ServerInfo()


def test_a_server_nobody_answers_at_leaves_the_window_unknown():
    assert asyncio.run(ask_server("http://127.0.0.1:9/v1", "m")) == ServerInfo()


LLAMA_CPP_BODY = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 13728,
        "n_ctx": 8192,
    }
}


@pytest.mark.parametrize(
    ("status", "message", "body", "window", "prompt"),
    [
        (400, LLAMA_CPP_BODY["error"]["message"], LLAMA_CPP_BODY, 8192, 13728),
        (500, LLAMA_CPP_BODY["error"]["message"], LLAMA_CPP_BODY["error"], 8192, 13728),
        (
            400,
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 130532 tokens. Please reduce the length of the messages.",
            {"code": "context_length_exceeded", "type": "invalid_request_error"},
            128000,
            130532,
        ),
        (
            400,
            "This model's maximum context length is 8192 tokens. However, you requested 9000 "
            "tokens (8000 in the messages, 1000 in the completion).",
            None,
            8192,
            9000,
        ),
        (400, "Requested tokens (13728) exceed context window of 8192", None, 8192, 13728),
        (
            400,
            "Trying to keep the first 5000 tokens when context the overflows. However, the "
            "model is loaded with context length of only 4096 tokens, which is not enough.",
            None,
            4096,
            None,
        ),
        (
            400,
            "The input token count (1200000) exceeds the maximum number of tokens allowed "
            "(1048576).",
            None,
            1048576,
            1200000,
        ),
    ],
    ids=["llama.cpp", "llama.cpp-500", "openai", "vllm", "llama-cpp-python", "lm-studio", "gemini"],
)
def test_a_refusal_for_a_request_too_long_names_the_window(status, message, body, window, prompt):
    error = error_for_status(status, message, model="m", body=body)

    assert isinstance(error, ContextOverflowError)
    assert (error.window, error.prompt_tokens) == (window, prompt)


def test_other_refusals_are_not_taken_for_a_window_too_small():
    assert context_overflow(400, "Invalid value for 'temperature'", {"type": "invalid"}) is None
    assert context_overflow(200, "context length", None) is None
