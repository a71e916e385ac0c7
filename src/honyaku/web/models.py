"""Model profiles: the page that lists, adds, checks and removes them, and its API. A profile
names a model's server, protocol and key variable, never a key."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from honyaku.application import PROVIDER_KINDS
from honyaku.domain.model_profile import ModelProfile
from honyaku.web.schemas import ERROR_RESPONSES, ModelCheckOut
from honyaku.web.templating import page
from honyaku.web.workbench import App

router = APIRouter(responses=ERROR_RESPONSES)


@router.get("/models", include_in_schema=False)
async def models_page(request: Request, honyaku: App) -> HTMLResponse:
    return page(request, "models.html", profiles=await honyaku.models.all(), kinds=PROVIDER_KINDS)


@router.get("/api/models")
async def list_models(honyaku: App) -> list[ModelProfile]:
    return await honyaku.models.all()


@router.post("/api/models", status_code=201)
async def save_model(honyaku: App, profile: ModelProfile) -> ModelProfile:
    """Save a model profile: its server, protocol and key variable, never a key."""
    return await honyaku.models.save(profile)


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
