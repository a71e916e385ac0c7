"""Connecting to the model a job asks for, and choosing how it calls tools.

A model is a real server (any OpenAI-compatible endpoint, or Gemini's own API) or the built-in
demo model, a fake server started on 127.0.0.1 for as long as it is used. It calls tools
natively or through the XML protocol; ``auto`` asks it once with a trivial tool and remembers
the answer for that server and model.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from honyaku.errors import ConfigError
from honyaku.jobs.model_choice import (
    DEFAULT_URLS,
    DEMO_MODEL,
    ModelApi,
    ModelChoice,
    ToolProtocol,
)
from honyaku.llm.events import ChatProvider
from honyaku.llm.gemini import GeminiProvider
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.retry import RETRY_BASE_S, RetryingProvider, RetryPolicy
from honyaku.llm.tool_support import calls_tools_natively
from honyaku.llm.xml import XmlToolProtocol
from honyaku.store.model_profiles import ModelProfiles

DEMO_LATENCY_S = 0.05


@dataclass(frozen=True, slots=True)
class ConnectedModel:
    provider: ChatProvider
    protocol: ToolProtocol
    """NATIVE or XML: what ``auto`` resolved to."""


@asynccontextmanager
async def open_model(
    choice: ModelChoice, profiles: ModelProfiles, *, language: str
) -> AsyncIterator[ConnectedModel]:
    """The chosen model with retries, speaking tools in ``language`` if it needs the XML
    protocol; its connections (and the demo model's server) close on exit."""
    if choice.model is None:
        raise ConfigError(
            "no model chosen: pass --model NAME (with --base-url for a local server) or set "
            f"HONYAKU_MODEL; --model {DEMO_MODEL} runs the built-in fake model"
        )
    if choice.is_demo:
        # Imported here: the web server behind the demo model is not needed otherwise.
        from honyaku.testing import FakeLLMServer

        with FakeLLMServer(latency_s=DEMO_LATENCY_S) as server:
            # The demo model calls tools natively: no probe, and no profile for a random port.
            native = ToolProtocol.NATIVE if choice.protocol is ToolProtocol.AUTO else None
            demo = ModelChoice(
                model=DEMO_MODEL,
                base_url=server.url,
                protocol=native or choice.protocol,
                api=ModelApi.OPENAI,
            )
            async with _connected(demo, profiles, language) as model:
                yield model
        return
    async with _connected(choice, profiles, language) as model:
        yield model


@asynccontextmanager
async def _connected(
    choice: ModelChoice, profiles: ModelProfiles, language: str
) -> AsyncIterator[ConnectedModel]:
    server = _provider_for(choice)
    url = (choice.endpoint or DEFAULT_URLS[choice.resolved_api]).rstrip("/")
    try:
        protocol = await _resolve(choice.protocol, server, url, profiles)
        provider: ChatProvider = server
        if protocol is ToolProtocol.XML:
            provider = XmlToolProtocol(server, language=language)
        yield ConnectedModel(RetryingProvider(provider, _retry_policy()), protocol)
    finally:
        await server.aclose()


def _provider_for(choice: ModelChoice) -> ChatProvider:
    assert choice.model is not None
    if choice.resolved_api is ModelApi.GEMINI:
        return GeminiProvider(model=choice.model, api_key=choice.api_key, base_url=choice.endpoint)
    return OpenAICompatibleProvider(
        model=choice.model,
        base_url=choice.endpoint,
        api_key=choice.api_key,
        headers=choice.header_map,
    )


async def _resolve(
    wanted: ToolProtocol, server: ChatProvider, url: str, profiles: ModelProfiles
) -> ToolProtocol:
    if wanted is not ToolProtocol.AUTO:
        return wanted
    if remembered := profiles.protocol(url, server.model):
        return ToolProtocol(remembered)
    native = await calls_tools_natively(RetryingProvider(server, _retry_policy()))
    protocol = ToolProtocol.NATIVE if native else ToolProtocol.XML
    profiles.remember_protocol(url, server.model, protocol.value)
    return protocol


def _retry_policy() -> RetryPolicy:
    setting = os.environ.get("HONYAKU_RETRY_BASE_S", str(RETRY_BASE_S))
    try:
        return RetryPolicy(base_s=float(setting))
    except ValueError:
        raise ConfigError(f"HONYAKU_RETRY_BASE_S must be seconds, not {setting!r}") from None
