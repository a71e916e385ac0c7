"""Running the workbench with uvicorn, and saying where it is."""

from __future__ import annotations

import asyncio
import ipaddress
import os
import secrets
import socket
import webbrowser
from collections.abc import Callable

import uvicorn

from honyaku.application import Honyaku
from honyaku.errors import ConfigError
from honyaku.web.app import create_app
from honyaku.web.front_end import WebFrontEnd
from honyaku.web.guard import allowed_hosts
from honyaku.web.workbench import Workbench

GRACEFUL_SHUTDOWN_S = 3
GRACE_VARIABLE = "HONYAKU_WEB_GRACE_S"
"""Seconds a question waits for a page to come back before nobody answers (default 10)."""


class _Server(uvicorn.Server):
    """Tells when it is listening: only then is the port it got known."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


def _seconds(setting: str | None) -> float | None:
    if setting is None:
        return None
    try:
        return float(setting)
    except ValueError:
        raise ConfigError(f"{GRACE_VARIABLE} must be seconds, not {setting!r}") from None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _shown_host(host: str, *, wildcard: bool) -> str:
    """The host to print in the address: on every interface, the machine's name, the one
    others can reach it by (127.0.0.1 would say it is only reachable from here)."""
    if wildcard:
        return socket.gethostname() or "127.0.0.1"
    return "127.0.0.1" if host == "localhost" else host


def serve(
    honyaku: Honyaku,
    *,
    host: str,
    port: int,
    open_browser: bool,
    announce: Callable[[str], None],
    with_token: bool = True,
    allow_key_entry: bool = False,
) -> None:
    """Serve until interrupted. Every request needs a token, made now and shown in the
    address ``announce`` is given: any process or person on the machine can reach loopback.
    Without it (``with_token=False``) only on loopback, where Host and Origin still guard.
    Keys may be typed into the pages on loopback, elsewhere only with ``allow_key_entry``."""
    if not with_token and not is_loopback(host):
        raise ConfigError(
            "a workbench served beyond loopback always needs its token: leave out --no-token"
        )
    token = secrets.token_urlsafe(18) if with_token else None
    hosts: set[str] = set()
    wildcard = allowed_hosts(host, port) is None
    grace_s = _seconds(os.environ.get(GRACE_VARIABLE))
    bench = Workbench(
        honyaku,
        WebFrontEnd() if grace_s is None else WebFrontEnd(grace_s),
        key_entry=allow_key_entry or is_loopback(host),
    )
    app = create_app(bench, hosts=None if wildcard else hosts, token=token)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    server = _Server(config)

    async def run() -> None:
        serving = asyncio.create_task(server.serve())
        ready = asyncio.create_task(server.ready.wait())
        await asyncio.wait({serving, ready}, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if server.started:
            bound = server.servers[0].sockets[0].getsockname()[1]
            hosts.update(allowed_hosts(host, bound) or ())
            shown = _shown_host(host, wildcard=wildcard)
            url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{bound}/"
            announce(url + (f"?token={token}" if token else ""))
            if open_browser:
                webbrowser.open(url + (f"?token={token}" if token else ""))
        await serving

    asyncio.run(run())
