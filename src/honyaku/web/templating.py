"""The pages' templates (``templates/``), rendered with Jinja2 in the reader's language:
``page()`` answers one, ``error_page()`` answers an error as a page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from honyaku.domain.addresses import printable_url
from honyaku.web import i18n
from honyaku.web.inline_markup import editable, source_nodes, translation_nodes
from honyaku.web.words import failure_word, failure_words, provider_word, tool_word, word

templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
i18n.install(templates.env)
templates.env.globals.update(
    word=word,
    tool_word=tool_word,
    provider_word=provider_word,
    failure_word=failure_word,
    failure_words=failure_words,
    source_nodes=source_nodes,
    translation_nodes=translation_nodes,
    editable=editable,
)
templates.env.filters["printable_url"] = printable_url  # an address as text: no query, no key


def page(request: Request, template: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, template, context)


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    response = page(request, "error.html", status=status, message=message)
    response.status_code = status
    return response
