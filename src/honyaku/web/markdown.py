"""The assistant's Markdown as HTML that is safe to show: a model's own HTML is escaped, never
passed through; links go only to web or mail addresses, open apart, and images are not
fetched (an image's address would tell a stranger the page was read)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

_LINK_SCHEMES = ("http://", "https://", "mailto:")

_renderer = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_renderer.enable(["table", "strikethrough"])
_renderer.disable("image")


def _safe_link(url: str) -> bool:
    return url.strip().lower().startswith(_LINK_SCHEMES)


def _link_open(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
    tokens[index].attrSet("rel", "noopener noreferrer nofollow")
    tokens[index].attrSet("target", "_blank")
    rendered: str = renderer.renderToken(tokens, index, options, env)
    return rendered


_renderer.validateLink = _safe_link  # type: ignore[method-assign]
_renderer.add_render_rule("link_open", _link_open)


def render_markdown(text: str) -> str:
    """``text`` as HTML; what is not Markdown is shown as the text it is."""
    return _renderer.render(text)
