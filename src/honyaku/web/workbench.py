"""What one ``honyaku serve`` process holds: the application, and the person's dialogs,
shown in the browser; handed to every handler as a FastAPI dependency."""

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


def _workbench(request: Request) -> Workbench:
    found: Workbench = request.app.state.workbench
    return found


def _honyaku(request: Request) -> Honyaku:
    return _workbench(request).honyaku


Bench = Annotated[Workbench, Depends(_workbench)]
App = Annotated[Honyaku, Depends(_honyaku)]
"""The application, in a handler's parameters: ``async def handler(honyaku: App)``."""
