"""The workbench in the translator's language: Simplified Chinese, English or Japanese.

The language is the one the person chose (a cookie, set by this module's one route,
``/language/{code}``, from the switcher on every page), else the best match of the browser's
``Accept-Language``, else English. ``Language`` (an ASGI middleware) settles it once per
request; from then on ``_()`` translates into it anywhere in ``web/``, and so do ``_()`` and
``{% trans %}`` in templates. English is the source text: its catalog is the message ids themselves.

Catalogs live in ``locales/{zh,ja}/LC_MESSAGES/``: ``messages`` for templates and Python,
``js`` for the scripts (``static/js/i18n.js`` reads it from the page).
"""

from __future__ import annotations

import gettext
import json
from contextvars import ContextVar
from functools import cache
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from babel.messages.mofile import read_mo
from fastapi import APIRouter
from fastapi.responses import RedirectResponse
from jinja2 import Environment
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from honyaku.errors import HonyakuError

LOCALES = Path(__file__).with_name("locales")
LANGUAGES = {"zh": "中文", "en": "English", "ja": "日本語"}
"""The interface's languages, each by its own name."""
HTML_LANG = {"zh": "zh-CN", "en": "en", "ja": "ja"}
DEFAULT = "en"
COOKIE = "honyaku_lang"
COOKIE_MAX_AGE_S = 400 * 24 * 3600

_current: ContextVar[str] = ContextVar("honyaku_web_language", default=DEFAULT)

router = APIRouter(include_in_schema=False)


def _(message: str) -> str:
    """``message`` in the language of the request being served."""
    return _translations(_current.get()).gettext(message)


def message_of(error: HonyakuError) -> str:
    """An error's line in the reader's language: from its template where it was written as
    one and the catalog has it, else as the catalog has the whole line, else as it is."""
    if error.template is not None:
        return _(error.template).format(**error.values)
    return _(str(error))


def ngettext(singular: str, plural: str, count: int) -> str:
    return _translations(_current.get()).ngettext(singular, plural, count)


def current_language() -> str:
    return _current.get()


def speak(language: str) -> None:
    """Answer in ``language`` from here on in this request (an error handler's page, say)."""
    _current.set(language if language in LANGUAGES else DEFAULT)


def choose_language(cookie: str | None, accept_language: str | None) -> str:
    """The person's choice if they made one, else the browser's best match, else English."""
    if cookie in LANGUAGES:
        return cookie
    for tag in _preferred(accept_language or ""):
        primary = tag.split("-")[0]
        if primary in LANGUAGES:
            return primary
    return DEFAULT


def language_of(headers: Headers) -> str:
    cookie = SimpleCookie(headers.get("cookie", ""))
    chosen = cookie[COOKIE].value if COOKIE in cookie else None
    return choose_language(chosen, headers.get("accept-language"))


def _preferred(header: str) -> list[str]:
    """The tags of an ``Accept-Language`` header, best first (``q=0`` ones left out)."""
    weighted = []
    for position, part in enumerate(header.split(",")):
        tag, _sep, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and quality > 0:
            weighted.append((-quality, position, tag.strip().lower()))
    return [tag for *_order, tag in sorted(weighted)]


@cache
def _translations(language: str) -> gettext.NullTranslations:
    if language == DEFAULT:
        return gettext.NullTranslations()
    with (LOCALES / language / "LC_MESSAGES" / "messages.mo").open("rb") as mo:
        return gettext.GNUTranslations(mo)


@cache
def script_catalog(language: str) -> str:
    """The scripts' messages in ``language`` as JSON, ``{"English": "translation"}``."""
    if language == DEFAULT:
        return "{}"
    with (LOCALES / language / "LC_MESSAGES" / "js.mo").open("rb") as mo:
        catalog = read_mo(mo)
    return json.dumps(
        {m.id: m.string for m in catalog if m.id and isinstance(m.id, str) and m.string},
        ensure_ascii=False,
        sort_keys=True,
    )


def install(environment: Environment) -> None:
    """``_``, ``gettext``, ``ngettext`` and ``{% trans %}`` in templates, in the request's
    language, with Jinja2's new-style formatting (``_("%(n)s books", n=3)``)."""
    environment.add_extension("jinja2.ext.i18n")
    environment.install_gettext_callables(  # type: ignore[attr-defined]
        _, ngettext, newstyle=True
    )
    environment.globals.update(
        languages=LANGUAGES,
        html_lang=lambda: HTML_LANG[_current.get()],
        language=current_language,
        script_catalog=lambda: script_catalog(_current.get()),
    )


class Language:
    """Settles the language of each request before anything answers it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            speak(language_of(Headers(scope=scope)))
        await self.app(scope, receive, send)


def language_cookie(language: str) -> dict[str, Any]:
    """The ``set_cookie`` arguments that remember ``language``."""
    return {
        "key": COOKIE,
        "value": language,
        "max_age": COOKIE_MAX_AGE_S,
        "path": "/",
        "samesite": "lax",
    }


@router.api_route("/language/{code}", methods=["GET", "HEAD"])
async def switch_language(code: str, next: str = "/") -> RedirectResponse:
    """Speak ``code`` from now on (a cookie remembers it), and go back to the page ``next``."""
    back = next if next.startswith("/") and not next.startswith(("//", "/\\")) else "/"
    response = RedirectResponse(back, status_code=303)
    if code in LANGUAGES:
        response.set_cookie(**language_cookie(code))
    return response
