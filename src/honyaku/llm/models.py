"""Which model honyaku talks to, how it calls tools, and opening it.

A ``ModelChoice`` is what a person chose (flags, environment, a saved profile). Each kind of
provider is a ``ProviderKind`` in ``PROVIDER_KINDS``, an open registry: its default URL, the
environment variables its key may be in, and how to connect. ``open_model`` turns a choice
into a provider with retries, speaking tools natively or through the XML protocol; ``auto``
asks the model once with a trivial tool and remembers the verdict (``ProtocolMemory``) for
that server and model. The memory also keeps the model's pace there (``llm.pace``), which
sets how long each reply is waited for.

Model SDKs take a second to import: each kind imports its own only when it connects.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from honyaku.domain.addresses import check_base_url, printable_url
from honyaku.domain.model_profile import ModelProfile
from honyaku.domain.pace import Pace
from honyaku.domain.pricing import Prices, RateLimits
from honyaku.errors import ConfigError
from honyaku.llm.degeneration import DegenerationGuard
from honyaku.llm.demo import DEMO_MODEL, DemoProvider
from honyaku.llm.events import ChatProvider
from honyaku.llm.pace import ServerPace
from honyaku.llm.rate_limit import RateLimitedProvider, RateLimiter, shared_limiter
from honyaku.llm.retry import RETRY_BASE_S, RetryingProvider, RetryPolicy
from honyaku.llm.timeouts import Timeouts
from honyaku.llm.tool_support import calls_tools_natively
from honyaku.llm.xml import XmlToolProtocol


class ToolProtocol(StrEnum):
    NATIVE = "native"
    XML = "xml"
    AUTO = "auto"


@dataclass(frozen=True, slots=True)
class ProviderKind:
    name: str
    summary: str
    default_url: str | None
    key_variables: tuple[str, ...]
    connect: Callable[[ModelChoice, ServerPace, RateLimiter | None], ChatProvider]
    """The provider for a choice, its replies waited for as the pace says; a limiter, where
    given, reads the server's rate headers."""
    native_tools: bool | None = None
    """Known to call tools natively (or not): ``auto`` then asks nothing."""


PROVIDER_KINDS: dict[str, ProviderKind] = {}


def register_provider_kind(kind: ProviderKind) -> None:
    PROVIDER_KINDS[kind.name] = kind


@dataclass(frozen=True, slots=True)
class ModelChoice:
    model: str | None
    base_url: str | None = None
    api_key_env: str | None = None
    """The variable holding the key; by default the provider's usual one."""
    protocol: ToolProtocol = ToolProtocol.AUTO
    provider: str | None = None
    """A name in ``PROVIDER_KINDS``. By default ``demo`` for the demo model, Gemini for a
    ``gemini-…`` model without a base URL, else Chat Completions."""
    headers: tuple[str, ...] = ()
    """Extra HTTP headers as ``Name: value``, for gateways; never printed."""
    replay_reasoning: bool = False
    """Send each reply's reasoning back, for servers that require it (see ``openai_compat``)."""
    profile: str | None = None
    """The saved profile this choice comes from: its rate limiter is shared by name."""
    prices: Prices | None = None
    rate_limits: RateLimits = field(default_factory=RateLimits)
    service_tier: str | None = None
    """Sent as ``service_tier`` with every Chat Completions request, e.g. ``flex``."""

    @classmethod
    def from_profile(cls, profile: ModelProfile) -> ModelChoice:
        return cls(
            profile.model,
            profile.base_url,
            profile.api_key_env,
            ToolProtocol(profile.protocol),
            profile.provider,
            replay_reasoning=profile.replay_reasoning,
            profile=profile.name,
            prices=profile.prices,
            rate_limits=profile.rate_limits,
            service_tier=profile.service_tier,
        )

    @property
    def kind(self) -> ProviderKind:
        if self.provider is not None:
            if self.provider not in PROVIDER_KINDS:
                known = ", ".join(PROVIDER_KINDS)
                raise ConfigError(f"unknown provider {self.provider!r}; known: {known}")
            return PROVIDER_KINDS[self.provider]
        if self.model == DEMO_MODEL:
            return PROVIDER_KINDS["demo"]
        gemini = (self.model or "").startswith("gemini") and self.base_url is None
        return PROVIDER_KINDS["gemini" if gemini else "openai"]

    @property
    def header_map(self) -> dict[str, str]:
        headers = {}
        for n, header in enumerate(self.headers, start=1):
            name, colon, value = header.partition(":")
            if not colon or not name.strip():
                # Never echo it: a header is where secrets go.
                raise ConfigError(f"--header number {n} must look like 'Name: value'")
            headers[name.strip()] = value.strip()
        return headers

    @property
    def endpoint(self) -> str | None:
        """The base URL requests go to; ``None`` is the provider's own.

        ``$OPENAI_BASE_URL`` stands in for ``--base-url`` with Chat Completions only.
        """
        if self.base_url:
            return self.base_url
        if self.kind.name == "openai":
            return os.environ.get("OPENAI_BASE_URL") or None
        return None

    @property
    def key_variable(self) -> str | None:
        if self.api_key_env:
            return self.api_key_env
        candidates = self.kind.key_variables
        return next((name for name in candidates if os.environ.get(name)), None) or (
            candidates[0] if candidates else None
        )

    @property
    def api_key(self) -> str | None:
        return os.environ.get(self.key_variable) if self.key_variable else None

    def check(self) -> ProviderKind:
        """Refuse, in one line, what cannot work: an unknown provider, a malformed base URL,
        a password inside it. Answers the provider's kind."""
        if self.base_url is not None:
            check_base_url(self.base_url)
        return self.kind

    def check_key(self) -> None:
        """Refuse, before any request, a named key variable that is not set."""
        if self.api_key_env and not os.environ.get(self.api_key_env):
            raise ConfigError(
                f"--api-key-env {self.api_key_env}: that environment variable is not set"
            )

    def describe(self) -> str:
        """Where requests go; never the key itself."""
        if self.kind.name == "demo":
            return "the built-in demo model (it marks each paragraph 〈译〉 instead of translating)"
        key = f"key from ${self.key_variable}" if self.api_key else "no key"
        url = printable_url(self.endpoint or self.kind.default_url or "")
        return f"{self.model} at {url} ({key})"


class ProtocolMemory(Protocol):
    """Where the verdict of ``auto`` and the pace are kept, per server and model."""

    def protocol(self, base_url: str, model: str) -> str | None: ...

    def remember_protocol(self, base_url: str, model: str, protocol: str) -> None: ...

    def pace(self, base_url: str, model: str) -> Pace | None: ...

    def remember_pace(self, base_url: str, model: str, pace: Pace) -> None: ...


@dataclass(frozen=True, slots=True)
class ConnectedModel:
    provider: ChatProvider
    protocol: ToolProtocol
    """NATIVE or XML: what ``auto`` resolved to."""
    prices: Prices | None = None
    """What its tokens cost, where the profile says."""


@asynccontextmanager
async def open_model(
    choice: ModelChoice, memory: ProtocolMemory, *, language: str
) -> AsyncIterator[ConnectedModel]:
    """The chosen model with retries, its looping replies cut (``degeneration``), speaking
    tools in ``language`` if it needs the XML protocol; its connections close on exit."""
    if choice.model is None:
        raise ConfigError(
            "no model chosen: pass --model NAME (with --base-url for a local server) or set "
            f"HONYAKU_MODEL; --model {DEMO_MODEL} runs the built-in demo model"
        )
    kind = choice.check()
    choice.check_key()
    timeouts = Timeouts.from_environment()
    limiter = _limiter(choice, kind)
    url = (choice.endpoint or kind.default_url or kind.name).rstrip("/")
    pace = await _pace(memory, url, choice.model, timeouts)
    # Connecting imports the SDK, which takes a while: off the event loop.
    server = await asyncio.to_thread(kind.connect, choice, pace, limiter)
    try:
        protocol = await _resolve(choice.protocol, kind, server, url, memory, timeouts)
        provider: ChatProvider = DegenerationGuard(server)
        if protocol is ToolProtocol.XML:
            provider = XmlToolProtocol(provider, language=language)
        if limiter is not None:
            provider = RateLimitedProvider(provider, limiter)
        retrying = RetryingProvider(provider, retry_policy(timeouts))
        yield ConnectedModel(retrying, protocol, choice.prices)
    finally:
        await server.aclose()


async def _pace(memory: ProtocolMemory, url: str, model: str, timeouts: Timeouts) -> ServerPace:
    """The model's pace on the server as learned before, kept as it changes."""

    def remember(pace: Pace) -> None:
        memory.remember_pace(url, model, pace)

    # The memory is a database: off the event loop.
    return ServerPace(timeouts, await asyncio.to_thread(memory.pace, url, model), remember)


def _limiter(choice: ModelChoice, kind: ProviderKind) -> RateLimiter | None:
    """The process's limiter for the choice's profile (or model and server), if it has limits."""
    if not choice.rate_limits:
        return None
    key = choice.profile or f"{kind.name} {choice.endpoint} {choice.model}"
    return shared_limiter(key, choice.rate_limits)


async def _resolve(
    wanted: ToolProtocol,
    kind: ProviderKind,
    server: ChatProvider,
    url: str,
    memory: ProtocolMemory,
    timeouts: Timeouts,
) -> ToolProtocol:
    if wanted is not ToolProtocol.AUTO:
        return wanted
    if kind.native_tools is not None:
        return ToolProtocol.NATIVE if kind.native_tools else ToolProtocol.XML
    # The memory is a database: off the event loop.
    if remembered := await asyncio.to_thread(memory.protocol, url, server.model):
        return ToolProtocol(remembered)
    native = await calls_tools_natively(RetryingProvider(server, retry_policy(timeouts)))
    protocol = ToolProtocol.NATIVE if native else ToolProtocol.XML
    await asyncio.to_thread(memory.remember_protocol, url, server.model, protocol.value)
    return protocol


def retry_policy(timeouts: Timeouts) -> RetryPolicy:
    """Backoff from ``HONYAKU_RETRY_BASE_S`` (1 s by default), within the request budget."""
    setting = os.environ.get("HONYAKU_RETRY_BASE_S", str(RETRY_BASE_S))
    try:
        return RetryPolicy(base_s=float(setting), budget_s=timeouts.budget_s)
    except ValueError:
        raise ConfigError(f"HONYAKU_RETRY_BASE_S must be seconds, not {setting!r}") from None


# -- the kinds honyaku knows ----------------------------------------------------------------


def _openai(choice: ModelChoice, pace: ServerPace, limiter: RateLimiter | None) -> ChatProvider:
    from honyaku.llm.openai_compat import OpenAICompatibleProvider

    assert choice.model is not None
    return OpenAICompatibleProvider(
        model=choice.model,
        base_url=choice.endpoint,
        api_key=choice.api_key,
        headers=choice.header_map,
        pace=pace,
        replay_reasoning=choice.replay_reasoning,
        service_tier=choice.service_tier,
        on_headers=limiter.observe if limiter else None,
    )


def _gemini(choice: ModelChoice, pace: ServerPace, _limiter: RateLimiter | None) -> ChatProvider:
    from honyaku.llm.gemini import GeminiProvider

    assert choice.model is not None
    # A hosted API's pace varies too little to learn: its bounds stay the configured ones.
    return GeminiProvider(
        model=choice.model,
        api_key=choice.api_key,
        base_url=choice.endpoint,
        headers=choice.header_map,
        first_byte_timeout_s=pace.floor.first_byte_s,
        idle_timeout_s=pace.floor.idle_s,
    )


def _demo(_choice: ModelChoice, _pace: ServerPace, _limiter: RateLimiter | None) -> ChatProvider:
    return DemoProvider()


register_provider_kind(
    ProviderKind(
        "openai",
        "Chat Completions: OpenAI, DeepSeek, Ollama, vLLM, llama.cpp, LM Studio…",
        "https://api.openai.com/v1",
        ("OPENAI_API_KEY",),
        _openai,
    )
)
register_provider_kind(
    ProviderKind(
        "gemini",
        "Google's own Gemini API",
        "https://generativelanguage.googleapis.com",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        _gemini,
    )
)
register_provider_kind(
    ProviderKind(
        "demo",
        "the built-in demo model, inside honyaku",
        None,
        (),
        _demo,
        native_tools=True,
    )
)
