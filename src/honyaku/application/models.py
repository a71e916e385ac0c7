"""The models a person talks to: profiles saved under a name, and the choice a command or a
page makes (a saved profile, flags that override it, or a model by its own name).

A profile is checked once, where it is made (``ModelProfile``: prices all or none, an address
without secrets, a key's or a key variable's name), and again against what honyaku can connect
to. Made or checked where a person did not declare it at the terminal (the web), its keys go
only where ``check_key_destination`` lets them: the servers they were saved for, from
variables that say they hold keys. A profile whose owner typed no prices is priced from
genai-prices' list where it knows the model at its server (``llm.price_list``); estimates,
caps and spend use those.
The demo model needs no profile: it is free, so a spending cap never stops it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace

from honyaku.domain.model_profile import ModelProfile, check_key_destination, key_destinations
from honyaku.domain.pricing import Prices
from honyaku.errors import ConfigError, NotFoundError
from honyaku.llm.model_check import ModelCheck, check_model
from honyaku.llm.models import (
    DEMO_MODEL,
    ConnectedModel,
    ModelChoice,
    ModelOpener,
    ModelOptions,
    ModelStatus,
    ToolProtocol,
    model_status,
    open_model,
)
from honyaku.llm.price_list import LISTED_CURRENCY, ListedPrices
from honyaku.store import LearnedModels, Library, ModelProfiles, Stores

DEMO = ModelChoice(DEMO_MODEL, prices=Prices(0.0, 0.0))


def model_opener(stores: Stores) -> ModelOpener:
    """The one way honyaku opens a model, over what the library learned of models and the
    rate limits it keeps: handed to jobs, workers and chats."""

    def opened(
        choice: ModelChoice, *, language: str
    ) -> AbstractAsyncContextManager[ConnectedModel]:
        return open_model(
            choice, stores.learned, language=language, rate_log=stores.shared_rate_log
        )

    return opened


@dataclass(frozen=True, slots=True)
class ProfilePrices:
    """What a profile's model costs per million tokens, and where that comes from."""

    prices: Prices
    source: str | None
    """Where they were looked up, e.g. ``genai-prices 0.2.3 (data of 2026-11-09)``;
    ``None``: as the profile's owner typed them."""
    currency: str | None
    """``USD`` for looked-up prices; ``None``: whatever currency they were typed in."""

    @property
    def typed(self) -> bool:
        return self.source is None


class Models:
    def __init__(self, profiles: ModelProfiles, learned: LearnedModels, library: Library) -> None:
        self._profiles = profiles
        self._learned = learned
        self._library = library
        """Where a book's own model is kept (``BookSettings.model``)."""

    async def all(self) -> list[ModelProfile]:
        return await asyncio.to_thread(self._profiles.all)

    async def get(self, name: str) -> ModelProfile:
        """The profile saved as ``name``."""
        profile = await asyncio.to_thread(self._profiles.get, name)
        if profile is None:
            raise NotFoundError("no saved model called {name!r}", name=name)
        return profile

    async def save(self, profile: ModelProfile, *, declared: bool = False) -> ModelProfile:
        """Add the profile, or replace the one of the same name; its server, protocol and
        key's name or variable, never a key. ``declared``: a person typed it in a terminal, so
        its key variable may be any, and go to any server."""
        (await self.choice_of(profile)).check()
        if not declared:
            await self._check_keys(profile)
        await asyncio.to_thread(self._profiles.save, profile)
        return profile

    async def check(self, profile: ModelProfile) -> ModelCheck:
        """Ask the profile's model once (saved or not): is its server there, does it take
        the key, does it call tools natively? An ``auto`` profile's answer is kept for jobs."""
        await self._check_keys(profile)
        return await check_model(await self.choice_of(profile), self._learned)

    async def choice_of(self, profile: ModelProfile) -> ModelChoice:
        """The profile's model, priced (``ModelChoice.from_profile``), with the fallbacks it
        names; refused if one of them is not saved."""

        def choice() -> ModelChoice:
            return ModelChoice.from_profile(profile, self._profiles.fallbacks_of(profile))

        # The price list takes half a second to load, the first time: off the event loop.
        return await asyncio.to_thread(choice)

    async def with_fallbacks(self, choice: ModelChoice, names: Sequence[str]) -> ModelChoice:
        """``choice``, its fallbacks the saved profiles ``names`` instead of its own."""
        fallbacks = [await self.get(name) for name in names]
        if choice.profile in names:
            raise ConfigError("a model cannot be its own fallback")
        chosen = await asyncio.to_thread(
            lambda: tuple(ModelChoice.from_profile(profile) for profile in fallbacks)
        )
        return replace(choice, fallbacks=chosen)

    async def prices(self, profile: ModelProfile) -> ProfilePrices | None:
        """What the profile's model costs, as its owner typed it, else as the price list has
        it; ``None`` for a model neither says (it works all the same, without a cost)."""
        choice = await self.choice_of(profile)
        if choice.prices is None:
            return None
        currency = LISTED_CURRENCY if choice.prices_source else None
        return ProfilePrices(choice.prices, choice.prices_source, currency)

    async def listed_prices(
        self,
        model: str,
        *,
        base_url: str | None = None,
        provider: str | None = None,
        service_tier: str | None = None,
    ) -> ListedPrices | None:
        """What the price list says ``model`` costs at ``base_url`` (by default its
        provider's own server), in US dollars: to fill in a profile's prices before it is
        saved. ``None`` for a model or a server the list does not know."""
        choice = ModelChoice(model, base_url, provider=provider, service_tier=service_tier)
        return await asyncio.to_thread(choice.listed_prices)

    async def _check_keys(self, profile: ModelProfile) -> None:
        """Refuse a key that would go where it was not saved for, or come from a variable
        that holds no key."""

        def check() -> None:
            # Off the event loop: a key may be looked up in a keyring, prices in their list.
            saved = key_destinations(
                (endpoint.key_variable, endpoint.endpoint)
                for known in self._profiles.all()
                for endpoint in ModelChoice.from_profile(known).each_endpoint()
            )
            for endpoint in ModelChoice.from_profile(profile).each_endpoint():
                if endpoint.key_variable and (endpoint.api_key_env or endpoint.api_key):
                    check_key_destination(endpoint.key_variable, endpoint.endpoint, saved)

        await asyncio.to_thread(check)

    async def remove(self, name: str) -> None:
        await asyncio.to_thread(self._profiles.remove, name)

    async def saved(self, name: str) -> ModelChoice:
        """The saved model called ``name``, or the built-in demo model."""
        profile = await asyncio.to_thread(self._profiles.get, name)
        if profile is not None:
            return await self.choice_of(profile)
        if name == DEMO_MODEL:
            return DEMO
        raise NotFoundError("no saved model called {name!r}", name=name)

    async def status(self, choice: ModelChoice) -> ModelStatus:
        """What the model's server says of it (a local one: its window, the model it has
        loaded, whether it is busy or cannot answer), and its pace as learned there; the
        model is sent nothing to answer."""
        return await model_status(choice, self._learned)

    async def other_than(self, models: Collection[str]) -> ModelProfile | None:
        """The first saved profile that is none of ``models`` (by its name, or its model's
        name on its server): what to offer for work those models left."""
        for profile in await self.all():
            if profile.name not in models and profile.model not in models:
                return profile
        return None

    async def profile_for(self, model: str) -> str | None:
        """The saved profile a job that ran with ``model`` (a profile's or a server's name
        for it) can run with again."""
        if model == DEMO_MODEL:
            return DEMO_MODEL
        for profile in await self.all():
            if model in (profile.name, profile.model):
                return profile.name
        return None

    async def choose(self, options: ModelOptions, *, book: str | None = None) -> ModelChoice:
        """The model ``options`` name: a saved profile, with any option given overriding it
        (a base URL or a key variable overrides all its endpoints), or a model by its own
        name; with no model named, ``book``'s (as a trial's "use these" set it) and its
        fallbacks. ``options.fallbacks``, where given, stand instead of the profile's or the
        book's."""
        fallbacks = options.fallbacks
        if options.saved and options.model is not None:
            await self.saved(options.model)  # a front end no one typed a model in at a terminal
        if options.model is None and options.base_url is None and book is not None:
            settings = await asyncio.to_thread(self._library.settings, book)
            if settings.model is not None:
                options = replace(options, model=settings.model)
                fallbacks = fallbacks if fallbacks is not None else tuple(settings.fallbacks)
        choice = await self._chosen(options)
        if fallbacks is not None:
            choice = await self.with_fallbacks(choice, fallbacks)
        return choice

    async def _chosen(self, options: ModelOptions) -> ModelChoice:
        model, base_url, api_key_env = options.model, options.base_url, options.api_key_env
        profile = await asyncio.to_thread(self._profiles.get, model) if model else None
        if profile is None:
            if model == DEMO_MODEL and not (base_url or options.provider):
                return DEMO
            return ModelChoice(
                model,
                base_url,
                api_key_env,
                options.protocol or ToolProtocol.AUTO,
                options.provider,
                options.headers,
                options.replay_reasoning,
            )
        saved = await self.choice_of(profile)
        if base_url or api_key_env:
            # One endpoint named on the command line stands for all the profile's.
            saved = replace(saved, more_endpoints=())
        return replace(
            saved,
            base_url=base_url or saved.base_url,
            api_key_env=api_key_env or saved.api_key_env,
            protocol=options.protocol or saved.protocol,
            provider=options.provider or saved.provider,
            headers=options.headers,
            replay_reasoning=options.replay_reasoning or saved.replay_reasoning,
        )
