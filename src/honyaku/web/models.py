"""Model profiles: the page that lists, adds, checks and removes them, and its API. A profile
names a model's server, protocol and key variable, never a key."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from honyaku.application import PROVIDER_KINDS
from honyaku.domain.addresses import masked_url
from honyaku.domain.model_profile import Endpoint, ModelProfile
from honyaku.web.schemas import ERROR_RESPONSES, ModelCheckOut
from honyaku.web.templating import page
from honyaku.web.workbench import App

router = APIRouter(responses=ERROR_RESPONSES)


@router.get("/models", include_in_schema=False)
async def models_page(request: Request, honyaku: App) -> HTMLResponse:
    profiles = [shown(profile) for profile in await honyaku.models.all()]
    return page(request, "models.html", profiles=profiles, kinds=PROVIDER_KINDS)


@router.get("/api/models")
async def list_models(honyaku: App) -> list[ModelProfile]:
    """The saved profiles, any key an address still holds masked."""
    return [shown(profile) for profile in await honyaku.models.all()]


@router.post("/api/models", status_code=201)
async def save_model(honyaku: App, profile: ModelProfile) -> ModelProfile:
    """Save a model profile: its server, protocol and key variable, never a key."""
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
        problem=found.problem,
        works=found.works,
    )


@router.delete("/api/models/{name}", status_code=204)
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
