"""Model profiles: the page that lists, adds, checks and removes them, and its API. A profile
names a model's server, protocol and key's name or variable, never a key.

The page starts a profile from a preset (``domain.model_presets``), takes its key into the
key store (``web.keys``) where this workbench may, and shows the prices the price list knows
for its model, which the translator's own prices override."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from starlette.convertors import Convertor, register_url_convertor

from honyaku.application import LISTED_CURRENCY, PROVIDER_KINDS, Honyaku
from honyaku.domain.addresses import masked_url
from honyaku.domain.model_presets import MODEL_PRESETS, ModelPreset
from honyaku.domain.model_profile import RESERVED_PROFILE_NAMES, Endpoint, ModelProfile
from honyaku.web.schemas import ERROR_RESPONSES, KeyOut, ListedPricesOut, ModelCheckOut
from honyaku.web.templating import page
from honyaku.web.workbench import App, Bench

router = APIRouter(responses=ERROR_RESPONSES)


class ProfileNameInPath(Convertor[str]):
    """A profile's name in an address, never one of the words ``/api/models/…`` uses for
    itself: ``DELETE /api/models/check`` is a method the check does not take, not the
    removal of a profile called "check"."""

    regex = rf"(?!(?:{'|'.join(RESERVED_PROFILE_NAMES)})$)[^/]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("profile", ProfileNameInPath())


@router.get("/models", include_in_schema=False)
async def models_page(request: Request, bench: Bench) -> HTMLResponse:
    honyaku = bench.honyaku
    saved = await honyaku.models.all()
    listed = {
        profile.name: await _listed_prices(
            honyaku, profile.model, profile.base_url, profile.provider, profile.service_tier
        )
        for profile in saved
        if profile.input_price is None
    }
    return page(
        request,
        "models.html",
        profiles=[shown(profile) for profile in saved],
        listed=listed,
        keys={key.name: KeyOut.of(key).model_dump() for key in await honyaku.keys.all()},
        key_entry=bench.key_entry,
        kinds=PROVIDER_KINDS,
        presets=[asdict(preset) for preset in MODEL_PRESETS],
    )


@router.get("/api/models")
async def list_models(honyaku: App) -> list[ModelProfile]:
    """The saved profiles, any key an address still holds masked."""
    return [shown(profile) for profile in await honyaku.models.all()]


@router.get("/api/models/presets")
async def list_presets() -> list[ModelPreset]:
    """The usual model servers, each a profile's first draft: base URL, provider, protocol,
    the key's name and models to try."""
    return list(MODEL_PRESETS)


@router.get("/api/models/prices")
async def known_prices(
    honyaku: App,
    model: Annotated[str, Query(max_length=200)],
    base_url: Annotated[str | None, Query(max_length=2000)] = None,
    provider: Annotated[str | None, Query(max_length=40)] = None,
    service_tier: Annotated[str | None, Query(max_length=40)] = None,
) -> ListedPricesOut | None:
    """What the price list says ``model`` costs at ``base_url`` (by default its provider's
    own server), per million tokens; null where it does not know the model there."""
    return await _listed_prices(honyaku, model, base_url, provider, service_tier)


async def _listed_prices(
    honyaku: Honyaku,
    model: str,
    base_url: str | None,
    provider: str | None,
    service_tier: str | None,
) -> ListedPricesOut | None:
    found = await honyaku.models.listed_prices(
        model, base_url=base_url or None, provider=provider or None, service_tier=service_tier
    )
    return ListedPricesOut.of(found, LISTED_CURRENCY) if found else None


@router.post("/api/models", status_code=201)
async def save_model(honyaku: App, profile: ModelProfile) -> ModelProfile:
    """Save a model profile: its server, protocol and key's name or variable, never a key."""
    return shown(await honyaku.models.save(profile))


@router.post("/api/models/check")
async def check_model(honyaku: App, profile: ModelProfile) -> ModelCheckOut:
    """Ask the model once, saved or not: is its server there, does it take the key, does
    it call tools natively (else honyaku speaks XML with it)?"""
    found = await honyaku.models.check(profile)
    return ModelCheckOut(
        reachable=found.reachable,
        key_accepted=found.key_accepted,
        native_tools=found.native_tools,
        key_variable=found.key_variable,
        key_source=found.key_source,
        problem=found.problem,
        works=found.works,
    )


@router.delete("/api/models/{name:profile}", status_code=204)
async def remove_model(honyaku: App, name: str) -> None:
    await honyaku.models.remove(name)


def shown(profile: ModelProfile) -> ModelProfile:
    """``profile`` as it may be shown: its addresses with anything key-like masked (one saved
    before honyaku refused such addresses may still hold a key)."""

    def masked(url: str | None) -> str | None:
        return masked_url(url) if url is not None else None

    return profile.model_copy(
        update={
            "base_url": masked(profile.base_url),
            "more_endpoints": tuple(
                Endpoint.model_construct(base_url=masked(e.base_url), api_key_env=e.api_key_env)
                for e in profile.more_endpoints
            ),
        }
    )
