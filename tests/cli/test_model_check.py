"""``honyaku models check`` asks a model's server about it and says what it learned, sending
the model nothing to answer."""

from __future__ import annotations

from honyaku.testing import FakeLLMServer
from honyaku.testing.context_limit import ContextLimit, Introspection

from .conftest import RASHOMON, honyaku, imported


def test_a_llama_cpp_model_is_checked_before_and_after_a_job_teaches_its_pace(
    fake_model: FakeLLMServer,
):
    # Given a llama.cpp server that says its window and the model it has loaded
    fake_model.context = ContextLimit(8192, says=Introspection.LLAMA_CPP)
    honyaku(
        "models", "add", "local", "--model", "fake-translator", "--base-url", fake_model.url,
        "--protocol", "native",
    )  # fmt: skip

    # When it is checked, then a job runs on it, then it is checked again
    before = honyaku("models", "check", "--model", "local")
    asked_before_the_job = len(fake_model.requests)
    honyaku("translate", imported(RASHOMON), "--model", "local")
    asked_by_the_job = len(fake_model.requests)
    after = honyaku("models", "check", "--model", "local")

    # Then it says what the server said, and the pace learned from the job's replies
    assert "server          llama.cpp" in before.stdout
    assert "loaded          fake-translator.gguf" in before.stdout
    assert "context window  8192 tokens" in before.stdout
    assert "not known yet" in before.stdout
    assert "prompt tokens/s" in after.stdout
    assert "replies timed" in after.stdout
    assert asked_before_the_job == 0
    assert len(fake_model.requests) == asked_by_the_job


def test_a_model_the_server_does_not_have_is_told_in_one_line_and_exits_non_zero(
    fake_model: FakeLLMServer,
):
    fake_model.context = ContextLimit(8192, says=Introspection.VLLM)

    done = honyaku("models", "check", "--model", "qwen3", "--base-url", fake_model.url, check=False)

    assert done.returncode != 0
    assert "serves fake-translator, not 'qwen3': pass --model with one of them" in done.stderr
    assert not fake_model.requests
