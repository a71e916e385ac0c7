"""What keeps a local web app local: Host, Origin and a token.

- **Host**: only the names the server was started for are answered, so a page of another
  site whose name was made to resolve to 127.0.0.1 (DNS rebinding) gets nothing.
- **Origin**: a request that changes something must come from a page of the workbench
  itself; a browser marks a cross-site request with ``Origin`` or ``Sec-Fetch-Site``, so a
  form on another site (CSRF) is refused. Scripts without either header are let through.
- **Token**: every request needs the token printed at start, on loopback too (any process or
  user of the machine reaches 127.0.0.1), as a ``?token=`` once (it is then kept in a cookie
  named for the port, so two workbenches on one host do not log each other out), or
  ``Authorization: Bearer``. ``honyaku serve --no-token`` leaves it out, on loopback only.
- **Headers**: every answer tells the browser to keep it to itself: no page of another site
  may frame it (``frame-ancestors 'none'``, ``X-Frame-Options``), so a click inside a frame
  cannot start a job; scripts, styles and everything else come from the workbench only (the
  pages hold no inline script, handler or style); no type is guessed; no address is sent on.
- **Size**: a request body larger than the upload cap is refused as soon as its
  ``Content-Length`` says so, or, without one, once that much has arrived: nothing that
  large is ever written to disk.
"""

from __future__ import annotations

import html
import json
import secrets
from collections.abc import Callable, Collection
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from honyaku.web.i18n import HTML_LANG, _, current_language

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
TOKEN_COOKIE = "honyaku_token"
BODY_OVERHEAD_BYTES = 1024 * 1024
"""Room for a form's other fields and boundaries around an uploaded file."""


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
            await _refuse(scope, send, 400, _("this server does not answer to that Host name"))
            return
        if scope["method"] not in SAFE_METHODS and not _same_origin(headers, host):
            await _refuse(scope, send, 403, _("refused: the request came from another site"))
            return
        if self.token is not None and not await self._with_token(scope, receive, send, headers):
            return
        await self.app(scope, receive, send)

    async def _with_token(
        self, scope: Scope, receive: Receive, send: Send, headers: Headers
    ) -> bool:
        """Whether the request carries the token; a ``?token=`` becomes a cookie."""
        assert self.token is not None
        name = token_cookie(scope)
        cookie = SimpleCookie(headers.get("cookie", ""))
        given = cookie[name].value if name in cookie else None
        bearer = headers.get("authorization", "").removeprefix("Bearer ").strip()
        if _matches(given, self.token) or _matches(bearer, self.token):
            return True
        query = parse_qsl(scope.get("query_string", b"").decode(), keep_blank_values=True)
        if _matches(dict(query).get("token"), self.token):
            rest = urlencode([(key, value) for key, value in query if key != "token"])
            place = same_host_path(scope["path"]) + (f"?{rest}" if rest else "")
            cookie_line = f"{name}={self.token}; HttpOnly; SameSite=Strict; Path=/"
            await send(
                {
                    "type": "http.response.start",
                    "status": 303,
                    "headers": [
                        (b"location", place.encode()),
                        (b"set-cookie", cookie_line.encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return False
        await _refuse(
            scope, send, 401, _("this workbench needs its token: open the address it printed")
        )
        return False


def same_host_path(path: str) -> str:
    """``path`` as an address on this host, whatever it holds: ``//evil.example/x`` (or
    ``/\\evil.example/x``, which browsers read the same) would send a browser to another
    host, so it becomes ``/evil.example/x``; what a header cannot carry is escaped."""
    return "/" + quote(path.lstrip("/\\"), safe="/:@!$&'()*+,;=-._~%")


def token_cookie(scope: Scope) -> str:
    """The cookie that keeps the token: one per port, since cookies do not tell ports apart."""
    server = scope.get("server") or ("", 0)
    return f"{TOKEN_COOKIE}_{server[1]}"


CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every answer, refusals included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                named = {name.lower() for name, _ in message.get("headers", [])}
                added = [(n, v) for n, v in SECURITY_HEADERS if n not in named]
                message = {**message, "headers": [*message.get("headers", []), *added]}
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit:
    """Refuses a request body larger than ``limit_bytes()`` before it is all read."""

    def __init__(self, app: ASGIApp, *, limit_bytes: Callable[[], int]) -> None:
        self.app = app
        self.limit_bytes = limit_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_bytes() + BODY_OVERHEAD_BYTES
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _refuse(scope, send, 413, _too_large(limit))
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                raise HTTPException(413, _too_large(limit))
            return message

        await self.app(scope, counted, send)


def _too_large(limit_bytes: int) -> str:
    return _("the request is larger than {size} MB, more than any book").format(
        size=f"{limit_bytes / 2**20:.0f}"
    )


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
        f"<!doctype html><html lang={HTML_LANG[current_language()]}>"
        "<meta charset=utf-8><title>honyaku</title>"
        f"<h1>{status}</h1><p>{html.escape(message)}</p>"
    )
