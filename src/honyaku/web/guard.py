"""What keeps a local web app local: Host, Origin and, beyond loopback, a token.

- **Host**: only the names the server was started for are answered, so a page of another
  site whose name was made to resolve to 127.0.0.1 (DNS rebinding) gets nothing.
- **Origin**: a request that changes something must come from a page of the workbench
  itself; a browser marks a cross-site request with ``Origin`` or ``Sec-Fetch-Site``, so a
  form on another site (CSRF) is refused. Scripts without either header are let through.
- **Token**: served beyond loopback, every request needs the token printed at start, as a
  ``?token=`` once (it is then kept in a cookie), or ``Authorization: Bearer``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
TOKEN_COOKIE = "honyaku_token"


WILDCARD_HOSTS = ("0.0.0.0", "::")


def allowed_hosts(host: str, port: int) -> set[str] | None:
    """The ``Host`` values a server bound to ``host:port`` answers; ``None`` for any, when it
    listens on every address (then its token guards it)."""
    if host in WILDCARD_HOSTS:
        return None
    names = {*LOOPBACK_NAMES, f"[{host}]" if ":" in host else host}
    return {f"{name}:{port}" for name in names}


class Guard:
    def __init__(self, app: ASGIApp, *, hosts: Collection[str] | None, token: str | None) -> None:
        self.app = app
        self.hosts = hosts
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "").lower()
        if self.hosts is not None and host not in self.hosts:
            await _refuse(scope, send, 400, "this server does not answer to that Host name")
            return
        if scope["method"] not in SAFE_METHODS and not _same_origin(headers, host):
            await _refuse(scope, send, 403, "refused: the request came from another site")
            return
        if self.token is not None and not await self._with_token(scope, receive, send, headers):
            return
        await self.app(scope, receive, send)

    async def _with_token(
        self, scope: Scope, receive: Receive, send: Send, headers: Headers
    ) -> bool:
        """Whether the request carries the token; a ``?token=`` becomes a cookie."""
        assert self.token is not None
        cookie = SimpleCookie(headers.get("cookie", ""))
        given = cookie[TOKEN_COOKIE].value if TOKEN_COOKIE in cookie else None
        bearer = headers.get("authorization", "").removeprefix("Bearer ").strip()
        if _matches(given, self.token) or _matches(bearer, self.token):
            return True
        query = parse_qs(scope.get("query_string", b"").decode())
        if _matches(next(iter(query.get("token", [])), None), self.token):
            await send(
                {
                    "type": "http.response.start",
                    "status": 303,
                    "headers": [
                        (b"location", scope["path"].encode()),
                        (
                            b"set-cookie",
                            f"{TOKEN_COOKIE}={self.token}; HttpOnly; SameSite=Strict; "
                            "Path=/".encode(),
                        ),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return False
        await _refuse(
            scope, send, 401, "this workbench needs its token: open the address it printed"
        )
        return False


def _matches(given: str | None, token: str) -> bool:
    return bool(given) and secrets.compare_digest(str(given), token)


def _same_origin(headers: Headers, host: str) -> bool:
    if origin := headers.get("origin"):
        return urlsplit(origin).netloc.lower() == host
    return headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


async def _refuse(scope: Scope, send: Send, status: int, message: str) -> None:
    wants_json = scope["path"].startswith("/api/")
    body: Any = json.dumps({"detail": message}) if wants_json else _page(status, message)
    kind = b"application/json" if wants_json else b"text/html; charset=utf-8"
    await send(
        {"type": "http.response.start", "status": status, "headers": [(b"content-type", kind)]}
    )
    await send({"type": "http.response.body", "body": body.encode()})


def _page(status: int, message: str) -> str:
    return (
        "<!doctype html><meta charset=utf-8><title>honyaku</title>"
        f"<h1>{status}</h1><p>{message}</p>"
    )
