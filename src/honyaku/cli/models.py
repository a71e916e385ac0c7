"""Connecting to the model a command asks for: a real server, or the built-in demo model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated

import typer

from honyaku.errors import ConfigError
from honyaku.llm.events import ChatProvider
from honyaku.llm.retry import RETRY_BASE_S, RetryingProvider, RetryPolicy

DEMO_MODEL = "demo"
DEMO_LATENCY_S = 0.05

Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        envvar="HONYAKU_MODEL",
        help=f"Model name as the server knows it; {DEMO_MODEL!r} runs the built-in fake model.",
        show_default=False,
    ),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        envvar="OPENAI_BASE_URL",
        help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama.",
        show_default=False,
    ),
]
ApiKeyEnv = Annotated[
    str,
    typer.Option("--api-key-env", help="Environment variable that holds the API key."),
]


@dataclass(frozen=True, slots=True)
class ModelChoice:
    model: str | None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"

    @property
    def is_demo(self) -> bool:
        return self.model == DEMO_MODEL

    def describe(self) -> str:
        """Where requests go, never the key itself."""
        if self.is_demo:
            return "the built-in demo model (it marks each paragraph 〈译〉 instead of translating)"
        key = f"key from ${self.api_key_env}" if os.environ.get(self.api_key_env) else "no key"
        return f"{self.model} at {self.base_url or 'https://api.openai.com/v1'} ({key})"


@contextmanager
def connect(choice: ModelChoice) -> Iterator[ChatProvider]:
    """A provider with retries; the demo model's server runs for as long as it is used."""
    # The SDKs and the web server take a second to import: only for commands that call a model.
    from honyaku.llm.openai_compat import OpenAICompatibleProvider
    from honyaku.testing import FakeLLMServer

    if choice.model is None:
        raise ConfigError(
            "no model chosen: pass --model NAME (with --base-url for a local server) or set "
            f"HONYAKU_MODEL; --model {DEMO_MODEL} runs the built-in fake model"
        )
    if choice.is_demo:
        with FakeLLMServer(latency_s=DEMO_LATENCY_S) as server:
            yield _retrying(OpenAICompatibleProvider(model=DEMO_MODEL, base_url=server.url))
        return
    yield _retrying(
        OpenAICompatibleProvider(
            model=choice.model,
            base_url=choice.base_url,
            api_key=os.environ.get(choice.api_key_env),
        )
    )


def _retrying(provider: ChatProvider) -> ChatProvider:
    base_s = float(os.environ.get("HONYAKU_RETRY_BASE_S", RETRY_BASE_S))
    return RetryingProvider(provider, RetryPolicy(base_s=base_s))
