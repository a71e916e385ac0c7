"""What one ``honyaku serve`` process holds: the application, the person's dialogs, shown in
the browser, and whether keys may be typed into it; handed to every handler as a FastAPI
dependency."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from honyaku.application import Honyaku
from honyaku.web.front_end import WebFrontEnd

MAX_UPLOAD_BYTES = 256 * 1024 * 1024


@dataclass
class Workbench:
    honyaku: Honyaku
    front_end: WebFrontEnd
    upload_limit_bytes: int = MAX_UPLOAD_BYTES
    key_entry: bool = False
    """Whether a key typed into a page may be kept in this machine's key store: only when
    the workbench is served on loopback (a key then never crosses a network in plain HTTP),
    or when the person who started it said so (``honyaku serve --allow-key-entry``)."""


def _workbench(request: Request) -> Workbench:
    found: Workbench = request.app.state.workbench
    return found


def _honyaku(request: Request) -> Honyaku:
    return _workbench(request).honyaku


Bench = Annotated[Workbench, Depends(_workbench)]
App = Annotated[Honyaku, Depends(_honyaku)]
"""The application, in a handler's parameters: ``async def handler(honyaku: App)``."""
