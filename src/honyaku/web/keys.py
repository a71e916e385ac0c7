"""API keys in the key store of the machine serving the workbench: listed, set, removed.

A key goes in and never comes back: what any answer holds is its name, where it is kept and
its last characters. A key is taken only where the workbench may take one
(``Workbench.key_entry``: served on loopback, or ``honyaku serve --allow-key-entry``);
elsewhere the request is refused before its body is looked at.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.exceptions import HTTPException

from honyaku.web.schemas import ERROR_RESPONSES, KeyIn, KeyName, KeyOut
from honyaku.web.words import N_
from honyaku.web.workbench import App, Bench

router = APIRouter(responses=ERROR_RESPONSES)

KEY_ENTRY_REFUSED = N_(
    "keys are typed into the workbench only when it is served on this machine (127.0.0.1) "
    "or started with honyaku serve --allow-key-entry; else set them in a terminal with "
    "honyaku keys set NAME"
)


@router.get("/api/keys")
async def list_keys(honyaku: App) -> list[KeyOut]:
    """The keys kept: their names, where each is, and their last characters; never a key."""
    return [KeyOut.of(key) for key in await honyaku.keys.all()]


def _key_entry_allowed(bench: Bench) -> None:
    if not bench.key_entry:
        raise HTTPException(403, KEY_ENTRY_REFUSED)


@router.put(
    "/api/keys/{name}",
    dependencies=[Depends(_key_entry_allowed)],
    responses={403: {"description": "Keys are not taken here."}},
)
async def set_key(honyaku: App, name: KeyName, body: KeyIn) -> KeyOut:
    """Keep ``key`` under ``name`` in the key store (the OS keyring, else a file only its
    owner reads), replacing a key of that name; a profile then names it as ``key_name``."""
    return KeyOut.of(await honyaku.keys.set(name, body.key))


@router.delete("/api/keys/{name}", status_code=204)
async def remove_key(honyaku: App, name: KeyName) -> None:
    """Forget the key called ``name``."""
    await honyaku.keys.remove(name)
