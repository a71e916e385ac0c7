"""Which model honyaku talks to, how it calls tools, and opening it.

A ``ModelChoice`` is what a person chose (flags, environment, a saved profile). Each kind of
provider is a ``ProviderKind`` in ``PROVIDER_KINDS``, an open registry: its default URL, the
environment variables its key may be in, and how to connect. A choice's key is found by
``llm.keys.find_key`` (the environment, or this user's key store for a key its profile
names); a profile's model without typed prices is priced from ``llm.price_list``.
``open_model`` turns a choice into a provider with retries, speaking tools natively or
through the XML protocol; ``auto`` asks the model once with a trivial tool and remembers the
verdict (``ModelMemory``) for that server and model. It also learns the model's context
window: from the server itself where it says (``server_info``), else from what was learned
before (the profile's, or the memory's), and later from a request the window could not hold
(``ContextWindow.learn``). The memory also keeps the model's pace on that server
(``llm.pace``), which sets how long each reply is waited for.

Model SDKs take a second to import: each kind imports its own only when it connects.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Protocol

from honyaku.domain.addresses import check_base_url, printable_url
from honyaku.domain.key_addresses import KeyBinding, KeyRoute, usual_key
from honyaku.domain.keys import check_key_name, missing_key
from honyaku.domain.model_profile import Endpoint, ModelProfile
from honyaku.domain.pace import Pace
from honyaku.domain.pricing import (
    ANTHROPIC_CACHE_WRITE_FACTOR,
    Prices,
    RateLimits,
    batch_prices,
)
from honyaku.errors import ConfigError, ModelUnavailableError
from honyaku.llm.degeneration import DegenerationGuard
from honyaku.llm.demo import DEMO_MODEL, DemoProvider
from honyaku.llm.endpoint_pool import EndpointPool
from honyaku.llm.events import ChatProvider
from honyaku.llm.keys import FoundKey, find_key
from honyaku.llm.pace import ServerPace
from honyaku.llm.price_list import ListedPrices, listed_prices
from honyaku.llm.rate_limit import (
    RateLimitedProvider,
    RateLimiter,
    SharedRateLog,
    shared_limiter,
)
from honyaku.llm.reply_cap import CAPPED_SERVERS, ReplyCap
from honyaku.llm.retry import RETRY_BASE_S, RetryingProvider, RetryPolicy
from honyaku.llm.server_info import ServerInfo, ask_anthropic, ask_server
from honyaku.llm.timeouts import Timeouts
from honyaku.llm.tokenizers import token_counter
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
    """The variable holding the key; it wins over ``key_name``. Without either, the
    provider's usual variable."""
    protocol: ToolProtocol = ToolProtocol.AUTO
    provider: str | None = None
    """A name in ``PROVIDER_KINDS``. By default ``demo`` for the demo model, Gemini for a
    ``gemini-…`` model and Anthropic for a ``claude-…`` one without a base URL, else Chat
    Completions."""
    headers: tuple[str, ...] = ()
    """Extra HTTP headers as ``Name: value``, for gateways; never printed."""
    replay_reasoning: bool = False
    """Send each reply's reasoning back, for servers that require it (see ``openai_compat``)."""
    key_name: str | None = None
    """The key's name: the environment variable of that name, else the key store's entry."""
    profile: str | None = None
    """The saved profile this choice comes from: its rate limiter is shared by name."""
    prices: Prices | None = None
    prices_source: str | None = None
    """Where ``prices`` were looked up (``llm.price_list``); ``None``: as the profile's owner
    typed them."""
    rate_limits: RateLimits = field(default_factory=RateLimits)
    service_tier: str | None = None
    """Sent as ``service_tier`` with every Chat Completions request, e.g. ``flex``."""
    context_window: int | None = None
    """Tokens the model's context holds, as the profile says."""
    thinking_tokens: int | None = None
    """Claude's budget of extended thinking (Anthropic's API); ``None``: no thinking."""
    more_endpoints: tuple[Endpoint, ...] = ()
    """Where else the model is served, each with its URL and key variable filled in:
    requests spread over all (``endpoint_pool``)."""
    fallbacks: tuple[ModelChoice, ...] = ()
    """The models that take over, in order, the parts this one could not do."""
    key_bindings: tuple[KeyBinding, ...] | None = None
    """The servers each key's name was saved for (``domain.key_addresses``): a profile's key
    goes to no other. ``None`` for a choice typed in a command (``--api-key-env``), whose key
    goes where the command sends it."""

    @classmethod
    def from_profile(
        cls,
        profile: ModelProfile,
        fallbacks: Sequence[ModelProfile] = (),
        *,
        key_bindings: Sequence[KeyBinding] = (),
    ) -> ModelChoice:
        """The profile's model, and the ``fallbacks`` it names (read by the caller); priced
        as typed, else as the price list has it. Its keys go only to the servers
        ``key_bindings`` (read by the caller) bind them to: by default, nowhere."""
        bound = tuple(key_bindings)
        choice = cls(
            profile.model,
            profile.base_url,
            profile.api_key_env,
            ToolProtocol(profile.protocol),
            profile.provider,
            key_name=profile.key_name,
            replay_reasoning=profile.replay_reasoning,
            profile=profile.name,
            prices=profile.prices,
            rate_limits=profile.rate_limits,
            service_tier=profile.service_tier,
            context_window=profile.context_window,
            thinking_tokens=profile.thinking_tokens,
            more_endpoints=profile.endpoints[1:],
            fallbacks=tuple(
                cls.from_profile(fallback, key_bindings=bound) for fallback in fallbacks
            ),
            key_bindings=bound,
        )
        if choice.prices is None and (listed := choice.listed_prices()):
            return replace(choice, prices=listed.prices, prices_source=listed.source)
        prices = choice.prices
        if prices is not None and prices.cache_write is None and choice.kind.name == "anthropic":
            # Its cache writes cost more than input.
            written = prices.input * ANTHROPIC_CACHE_WRITE_FACTOR
            return replace(choice, prices=replace(prices, cache_write=written))
        return choice

    def batch_prices(self) -> Prices | None:
        """The model's prices through its provider's Batch API: the list's batch prices where
        the prices came from the list, else the typed ones halved (``domain.pricing``)."""
        if self.prices is None:
            return None
        if self.prices_source is not None and (
            listed := listed_prices(self.model, self.base_url or self.kind.default_url, batch=True)
        ):
            return listed.prices
        return batch_prices(self.prices)

    def listed_prices(self) -> ListedPrices | None:
        """The model's prices at its server (its own, or its provider's) as the price list
        has them, if it knows the model there."""
        return listed_prices(self.model, self.base_url or self.kind.default_url, self.service_tier)

    def each_endpoint(self) -> tuple[ModelChoice, ...]:
        """This choice once per endpoint, its own first."""
        alone = replace(self, more_endpoints=())
        return (
            alone,
            *(
                replace(alone, base_url=e.base_url, api_key_env=e.api_key_env)
                for e in self.more_endpoints
            ),
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
        if self.base_url is None:
            for prefix, kind in (("gemini", "gemini"), ("claude", "anthropic")):
                if (self.model or "").startswith(prefix):
                    return PROVIDER_KINDS[kind]
        return PROVIDER_KINDS["openai"]

    @property
    def header_map(self) -> dict[str, str]:
        headers = {}
        for n, header in enumerate(self.headers, start=1):
            name, colon, value = header.partition(":")
            if not colon or not name.strip():
                # Never echo it: a header is where secrets go.
                raise ConfigError(f"--header number {n} must look like 'Name: value'")
            if not header.isascii() or not header.isprintable():
                raise ConfigError(
                    f"--header number {n} holds a character an HTTP header cannot carry: "
                    "printable ASCII only"
                )
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
        """The name the key goes by: the variable named, the key's name, else the provider's
        usual variable (the first one set)."""
        if self.api_key_env or self.key_name:
            return self.api_key_env or self.key_name
        candidates = self.kind.key_variables
        return next((name for name in candidates if os.environ.get(name)), None) or (
            candidates[0] if candidates else None
        )

    @property
    def address(self) -> str:
        """The base URL requests go to: the endpoint, else the provider's own."""
        return self.endpoint or self.kind.default_url or ""

    @property
    def key_route(self) -> KeyRoute | None:
        """The key this choice's first endpoint names, and where its requests go; ``None``
        where it names none (a provider's usual variable, if any, is sent to its own server
        only) or goes nowhere (the demo model)."""
        name = self.api_key_env or self.key_name
        if not name or not self.address:
            return None
        return KeyRoute(self.address, name, variable=bool(self.api_key_env))

    def key_routes(self) -> list[KeyRoute]:
        """The key each endpoint names, and where it goes."""
        return [route for one in self.each_endpoint() if (route := one.key_route)]

    @property
    def found_key(self) -> FoundKey | None:
        """The key sent with each request (of the first endpoint): ``llm.keys.find_key``."""
        usual = usual_key(self.kind.name)
        return find_key(
            self.address,
            variable=self.api_key_env,
            name=self.key_name,
            usual=usual.variables if usual else (),
            bound=self.key_bindings,
        )

    @property
    def api_key(self) -> str | None:
        found = self.found_key
        return found.key if found else None

    def check(self) -> ProviderKind:
        """Refuse, in one line, what cannot work: an unknown provider, a malformed base URL,
        a password inside it, a key where a key's name goes. Answers the provider's kind."""
        for choice in self.each_endpoint():
            if choice.base_url is not None:
                check_base_url(choice.base_url)
            for name in (choice.api_key_env, choice.key_name):
                if name is not None:
                    check_key_name(name)  # a key pasted where its name goes is never used
        return self.kind

    def check_key(self) -> None:
        """Refuse, before any request, a key named and found nowhere (a variable named that
        is not set, a key's name neither in the environment nor in the key store), or named
        for another server than this one's (``domain.key_addresses``)."""
        for choice in self.each_endpoint():
            found = choice.found_key
            if choice.api_key_env and found is None:
                raise ConfigError(
                    "the environment variable {variable} is not set",
                    variable=choice.api_key_env,
                    terminal_hint=f"export {choice.api_key_env}=…",
                )
            if not choice.api_key_env and choice.key_name and found is None:
                raise missing_key(choice.key_name)

    def describe(self) -> str:
        """Where requests go; never the key itself."""
        if self.kind.name == "demo":
            return "the built-in demo model (it marks each paragraph 〈译〉 instead of translating)"
        found = self.found_key
        key = f"key from {found.source}" if found else "no key"
        usual = usual_key(self.kind.name)
        variables = usual.variables if usual and not (self.api_key_env or self.key_name) else ()
        held = None if found else next((v for v in variables if os.environ.get(v)), None)
        if usual and held:
            # Said, so that a key that used to go anywhere is not missed without a word.
            key += (
                f": ${held} goes only to {printable_url(usual.address)}; "
                f"--api-key-env {held} sends it here"
            )
        more = len(self.more_endpoints)
        also = f" and {more} more endpoint{'s' if more > 1 else ''}" if more else ""
        return f"{self.model} at {self.printable_endpoint} ({key}){also}"

    @property
    def printable_endpoint(self) -> str:
        return printable_url(self.endpoint or self.kind.default_url or "")


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelOptions:
    """What a person names of the model to work with, in any front end: a saved profile or
    a model by its own name, what overrides it, and the fallbacks instead of its own."""

    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    protocol: ToolProtocol | None = None
    provider: str | None = None
    headers: tuple[str, ...] = ()
    """Extra HTTP headers as ``Name: value``, for gateways."""
    replay_reasoning: bool = False
    fallbacks: tuple[str, ...] | None = None
    """Saved profiles that take over in turn; ``None``: the profile's own (or the book's)."""
    saved: bool = False
    """Only a saved profile (or the demo model) may be named: a front end where nobody
    declared a model at a terminal (the workbench, the assistant)."""


class ModelMemory(Protocol):
    """What honyaku learned about models, per server and model: the verdict of ``auto``, the
    context window (kept on the profile too, where the choice came from one), the pace."""

    def protocol(self, base_url: str, model: str) -> str | None: ...

    def remember_protocol(self, base_url: str, model: str, protocol: str) -> None: ...

    def pace(self, base_url: str, model: str) -> Pace | None: ...

    def remember_pace(self, base_url: str, model: str, pace: Pace) -> None: ...

    def context_window(self, base_url: str, model: str) -> int | None: ...

    def remember_context_window(
        self, base_url: str, model: str, tokens: int, *, profile: str | None = None
    ) -> None: ...


@dataclass
class ContextWindow:
    """How many tokens the model's context holds, as far as honyaku knows, and where that
    was learned; ``learn`` keeps what is learned later for the next jobs."""

    tokens: int | None = None
    source: str | None = None
    """Where it was learned: ``llama.cpp``, ``the profile``, ``an error``…"""
    remember: Callable[[int], None] | None = field(default=None, repr=False)
    count_factor: float = 1.0
    """Tokens the server counted for each token honyaku counted, the most a refusal or a
    reply said: its tokenizer and chat template may count more."""
    said: bool = False
    """The server or the profile said the window, so it is not guessed from hints."""

    async def learn(self, tokens: int, source: str) -> None:
        if tokens <= 0 or tokens == self.tokens:
            return
        self.tokens, self.source = tokens, source
        if self.remember is not None:
            await asyncio.to_thread(self.remember, tokens)

    async def learn_from_cut_reply(self, held: int) -> None:
        """A reply cut short when the prompt and the reply came to ``held`` tokens: the window,
        unless one was said. A server also cuts a reply at its own cap on a reply's length
        (llama.cpp's ``n_predict``), which says nothing of its window."""
        if held and not self.said and (self.tokens is None or held < self.tokens):
            await self.learn(held, "a reply cut off at the model's limit")

    def observe_count(self, factor: float) -> None:
        self.count_factor = max(self.count_factor, factor)


@dataclass(frozen=True, slots=True)
class ConnectedModel:
    provider: ChatProvider
    protocol: ToolProtocol
    """NATIVE or XML: what ``auto`` resolved to."""
    window: ContextWindow = field(default_factory=ContextWindow)


class ModelOpener(Protocol):
    """Opens a chosen model for the length of an ``async with``: ``open_model`` over what the
    library learned of models, built once by the application and handed to whatever opens
    one."""

    def __call__(
        self, choice: ModelChoice, *, language: str
    ) -> AbstractAsyncContextManager[ConnectedModel]: ...


@asynccontextmanager
async def open_model(
    choice: ModelChoice,
    memory: ModelMemory,
    *,
    language: str,
    rate_log: SharedRateLog | None = None,
) -> AsyncIterator[ConnectedModel]:
    """The chosen model with retries, its looping replies cut (``degeneration``), speaking
    tools in ``language`` if it needs the XML protocol; its connections close on exit. Its
    profile's rate limits are kept in ``rate_log`` where given (a shared database), else in
    this process."""
    model = _named(choice)
    kind = choice.check()
    # A key may be read from a keyring (over D-Bus, maybe behind an unlock dialog) or a file.
    await asyncio.to_thread(choice.check_key)
    timeouts = Timeouts.from_environment()
    limiter = _limiter(choice, kind, rate_log)
    url = _server_url(choice, kind)
    info = await _ask_server(choice, kind)
    if absence := info.absence(url, model):
        raise ModelUnavailableError(absence)
    each = choice.each_endpoint()
    paces = [await _pace(memory, _server_url(one, kind), model, timeouts) for one in each]
    # Connecting imports the SDK, which takes a while: off the event loop.
    server = await asyncio.to_thread(_connect, each, kind, paces, limiter)
    try:
        window = await _context_window(choice, info, url, memory)
        if info.context_window and info.server in CAPPED_SERVERS:
            server = ReplyCap(server, window, token_counter(model))
        # The probe is a request the provider counts too: it waits for the limiter.
        probe = RateLimitedProvider(server, limiter) if limiter is not None else server
        protocol = await _resolve(choice.protocol, kind, probe, url, memory, timeouts)
        provider: ChatProvider = DegenerationGuard(server)
        if protocol is ToolProtocol.XML:
            provider = XmlToolProtocol(provider, language=language)
        if limiter is not None:
            provider = RateLimitedProvider(provider, limiter)
        retrying = RetryingProvider(provider, retry_policy(timeouts))
        yield ConnectedModel(retrying, protocol, window)
    finally:
        await server.aclose()


async def _pace(memory: ModelMemory, url: str, model: str, timeouts: Timeouts) -> ServerPace:
    """The model's pace on the server as learned before, kept as it changes."""

    def remember(pace: Pace) -> None:
        memory.remember_pace(url, model, pace)

    # The memory is a database: off the event loop.
    return ServerPace(timeouts, await asyncio.to_thread(memory.pace, url, model), remember)


@dataclass(frozen=True, slots=True)
class ModelStatus:
    """What the chosen model's server says of it, and what honyaku learned of it there."""

    info: ServerInfo
    absence: str | None
    """Why the model cannot answer, in one line; ``None`` if nothing says it cannot."""
    pace: Pace | None


async def model_status(choice: ModelChoice, memory: ModelMemory) -> ModelStatus:
    """Ask the chosen model's server about it, without sending it anything to answer."""
    model = _named(choice)
    kind = choice.check()
    url = _server_url(choice, kind)
    info = await _ask_server(choice, kind)
    pace = await asyncio.to_thread(memory.pace, url, model)
    return ModelStatus(info, info.absence(url, model), pace)


def _named(choice: ModelChoice) -> str:
    if choice.model is None:
        raise ConfigError(
            "no model chosen: pass --model NAME (with --base-url for a local server) or set "
            f"HONYAKU_MODEL; --model {DEMO_MODEL} runs the built-in demo model"
        )
    return choice.model


async def _ask_server(choice: ModelChoice, kind: ProviderKind) -> ServerInfo:
    """What a Chat Completions server at a chosen URL says of itself and the model (a local
    one says much, a hosted API nothing; Anthropic's says the model's window)."""
    if kind.name == "anthropic" and choice.model is not None:
        api_key = await asyncio.to_thread(lambda: choice.api_key)
        url = choice.endpoint or kind.default_url or ""
        return await ask_anthropic(url, choice.model, api_key=api_key)
    if kind.name != "openai" or not choice.endpoint or choice.model is None:
        return ServerInfo()
    api_key = await asyncio.to_thread(lambda: choice.api_key)
    key = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return await ask_server(choice.endpoint, choice.model, headers={**key, **choice.header_map})


async def _context_window(
    choice: ModelChoice, info: ServerInfo, url: str, memory: ModelMemory
) -> ContextWindow:
    """The window as the server says it, else as learned before; remembered either way."""
    assert choice.model is not None
    model = choice.model

    def remember(tokens: int) -> None:
        memory.remember_context_window(url, model, tokens, profile=choice.profile)

    window = ContextWindow(remember=remember)
    if info.context_window:
        await window.learn(info.context_window, info.server or "the server")
        window.said = True
        return window
    if choice.context_window:
        window.tokens, window.source, window.said = choice.context_window, "the profile", True
    elif learned := await asyncio.to_thread(memory.context_window, url, model):
        window.tokens, window.source = learned, "an earlier job"
    return window


def _connect(
    each: Sequence[ModelChoice],
    kind: ProviderKind,
    paces: Sequence[ServerPace],
    limiter: RateLimiter | None,
) -> ChatProvider:
    """The provider at each endpoint, at its own pace; with more than one, a pool of them."""
    servers = [kind.connect(one, pace, limiter) for one, pace in zip(each, paces, strict=True)]
    if len(servers) == 1:
        return servers[0]
    return EndpointPool(servers, [one.printable_endpoint for one in each])


def _server_url(choice: ModelChoice, kind: ProviderKind) -> str:
    return (choice.endpoint or kind.default_url or kind.name).rstrip("/")


def _limiter(
    choice: ModelChoice, kind: ProviderKind, rate_log: SharedRateLog | None
) -> RateLimiter | None:
    """The limiter for the choice's profile (or model and server), if it has limits."""
    if not choice.rate_limits:
        return None
    key = choice.profile or f"{kind.name} {choice.endpoint} {choice.model}"
    return shared_limiter(key, choice.rate_limits, rate_log)


async def _resolve(
    wanted: ToolProtocol,
    kind: ProviderKind,
    server: ChatProvider,
    url: str,
    memory: ModelMemory,
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


def _anthropic(choice: ModelChoice, pace: ServerPace, limiter: RateLimiter | None) -> ChatProvider:
    from honyaku.llm.anthropic import AnthropicProvider

    assert choice.model is not None
    return AnthropicProvider(
        model=choice.model,
        api_key=choice.api_key,
        base_url=choice.endpoint,
        headers=choice.header_map,
        pace=pace,
        on_headers=limiter.observe if limiter else None,
        thinking_tokens=choice.thinking_tokens,
    )


def _demo(_choice: ModelChoice, _pace: ServerPace, _limiter: RateLimiter | None) -> ChatProvider:
    return DemoProvider()


def _own(provider: str) -> tuple[str, tuple[str, ...]]:
    """The provider's own server and usual key variables, from their one table."""
    row = usual_key(provider)
    assert row is not None, f"{provider} has no row in domain.key_addresses.USUAL_KEYS"
    return row.address, row.variables


register_provider_kind(
    ProviderKind(
        "openai",
        "Chat Completions: OpenAI, DeepSeek, Ollama, vLLM, llama.cpp, LM Studio…",
        *_own("openai"),
        _openai,
    )
)
register_provider_kind(ProviderKind("gemini", "Google's own Gemini API", *_own("gemini"), _gemini))
register_provider_kind(
    ProviderKind(
        "anthropic",
        "Anthropic's own Messages API (Claude), with prompt caching",
        *_own("anthropic"),
        _anthropic,
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
