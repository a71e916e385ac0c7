"""The models a person talks to: profiles saved under a name, and the choice a command or a
page makes (a saved profile, flags that override it, or a model by its own name).

A profile is checked once, where it is made (``ModelProfile``: prices all or none, an address
without secrets, a key variable's name), and again against what honyaku can connect to.
Made or checked where a person did not declare it at the terminal (the web), its keys go only
where ``check_key_destination`` lets them: the servers they were saved for, from variables
that say they hold keys.
The demo model needs no profile: it is free, so a spending cap never stops it.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from dataclasses import replace

from honyaku.domain.model_profile import ModelProfile, check_key_destination, key_destinations
from honyaku.domain.pricing import Prices
from honyaku.errors import NotFoundError
from honyaku.llm.model_check import ModelCheck, check_model
from honyaku.llm.models import (
    DEMO_MODEL,
    ConnectedModel,
    ModelChoice,
    ModelOpener,
    ModelStatus,
    ToolProtocol,
    model_status,
    open_model,
)
from honyaku.store import LearnedProtocols, ModelProfiles, Stores

DEMO = ModelChoice(DEMO_MODEL, prices=Prices(0.0, 0.0))


def model_opener(stores: Stores) -> ModelOpener:
    """The one way honyaku opens a model, over what the library learned of models and the
    rate limits it keeps: handed to jobs, workers and chats."""

    def opened(
        choice: ModelChoice, *, language: str
    ) -> AbstractAsyncContextManager[ConnectedModel]:
        return open_model(
            choice, stores.protocols, language=language, windows=stores.shared_windows
        )

    return opened


class Models:
    def __init__(self, profiles: ModelProfiles, protocols: LearnedProtocols) -> None:
        self._profiles = profiles
        self._protocols = protocols

    async def all(self) -> list[ModelProfile]:
        return await asyncio.to_thread(self._profiles.all)

    async def save(self, profile: ModelProfile, *, declared: bool = False) -> ModelProfile:
        """Add the profile, or replace the one of the same name; its server, protocol and
        key variable, never a key. ``declared``: a person typed it in a terminal, so its key
        variable may be any, and go to any server."""
        ModelChoice.from_profile(profile).check()
        if not declared:
            await self._check_keys(profile)
        await asyncio.to_thread(self._profiles.save, profile)
        return profile

    async def check(self, profile: ModelProfile) -> ModelCheck:
        """Ask the profile's model once (saved or not): is its server there, does it take
        the key, does it call tools natively? An ``auto`` profile's answer is kept for jobs."""
        await self._check_keys(profile)
        return await check_model(ModelChoice.from_profile(profile), self._protocols)

    async def _check_keys(self, profile: ModelProfile) -> None:
        """Refuse a key that would go where it was not saved for, or come from a variable
        that holds no key."""
        saved = key_destinations(
            (endpoint.key_variable, endpoint.endpoint)
            for known in await self.all()
            for endpoint in ModelChoice.from_profile(known).each_endpoint()
        )
        for endpoint in ModelChoice.from_profile(profile).each_endpoint():
            if endpoint.key_variable and (endpoint.api_key_env or endpoint.api_key):
                check_key_destination(endpoint.key_variable, endpoint.endpoint, saved)

    async def remove(self, name: str) -> None:
        await asyncio.to_thread(self._profiles.remove, name)

    async def saved(self, name: str) -> ModelChoice:
        """The saved model called ``name``, or the built-in demo model."""
        profile = await asyncio.to_thread(self._profiles.get, name)
        if profile is not None:
            return ModelChoice.from_profile(profile)
        if name == DEMO_MODEL:
            return DEMO
        raise NotFoundError("no saved model called {name!r}", name=name)

    async def status(self, choice: ModelChoice) -> ModelStatus:
        """What the model's server says of it (a local one: its window, the model it has
        loaded, whether it is busy or cannot answer), and its pace as learned there; the
        model is sent nothing to answer."""
        return await model_status(choice, self._protocols)

    async def profile_for(self, model: str) -> str | None:
        """The saved profile a job that ran with ``model`` (a profile's or a server's name
        for it) can run with again."""
        if model == DEMO_MODEL:
            return DEMO_MODEL
        for profile in await self.all():
            if model in (profile.name, profile.model):
                return profile.name
        return None

    async def choose(
        self,
        model: str | None,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        protocol: ToolProtocol | None = None,
        provider: str | None = None,
        headers: tuple[str, ...] = (),
        replay_reasoning: bool = False,
    ) -> ModelChoice:
        """The model the options name: a saved profile, with any option given overriding
        it (a base URL or a key variable overrides all its endpoints); or a model by its own
        name."""
        profile = await asyncio.to_thread(self._profiles.get, model) if model else None
        if profile is None:
            if model == DEMO_MODEL and not (base_url or provider):
                return DEMO
            return ModelChoice(
                model,
                base_url,
                api_key_env,
                protocol or ToolProtocol.AUTO,
                provider,
                headers,
                replay_reasoning,
            )
        saved = ModelChoice.from_profile(profile)
        if base_url or api_key_env:
            # One endpoint named on the command line stands for all the profile's.
            saved = replace(saved, more_endpoints=())
        return replace(
            saved,
            base_url=base_url or saved.base_url,
            api_key_env=api_key_env or saved.api_key_env,
            protocol=protocol or saved.protocol,
            provider=provider or saved.provider,
            headers=headers,
            replay_reasoning=replay_reasoning or saved.replay_reasoning,
        )
