"""Keeping secrets out of every text that comes from a model server.

Servers echo what they were sent: a key in an error body, a gateway's token in a stream's
error event, a URL with its password in an exception. Each provider builds one ``Redactor``
from everything secret it sends (the API key, the values of its extra headers, the user and
password in its base URL) and passes every ``ProviderError`` it raises through ``Redactor.error`` at
its one exit, so no path, however new, can let a secret out: not into a retry line, not into
``jobs.error``, not onto the screen. Secrets are masked before the text is cut to one short
line, so a cut never leaves half a key behind.
"""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

from honyaku.errors import ContentFilteredError, ProviderError
from honyaku.llm.events import closed_after

T = TypeVar("T")

_USERINFO = re.compile(r"//[^/?#@]*@")

MASK = "***"
MAX_MESSAGE_CHARS = 500
MIN_SECRET_CHARS = 4
"""Shorter values are not secrets worth the garbling that masking them everywhere would do."""
MIN_HEADER_SECRET_CHARS = 8
"""Extra headers also carry versions and flags (``anthropic-version``, ``X-Title``); a value
this long may be a token."""


class Redactor:
    def __init__(self, secrets: Iterable[str | None]) -> None:
        found = {s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}
        # Longest first, so that a key containing another secret is masked whole.
        self._secrets = sorted(found, key=len, reverse=True)

    @classmethod
    def for_connection(
        cls,
        *,
        api_key: str | None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Redactor:
        """Everything secret that a provider sends to its server."""
        secrets = [api_key, *_url_secrets(base_url)]
        for value in (headers or {}).values():
            if len(value) >= MIN_HEADER_SECRET_CHARS:
                # "Bearer TOKEN" is echoed whole, or the token alone.
                secrets += [value, value.split()[-1]] if value.split() else [value]
        return cls(secrets)

    def text(self, text: object) -> str:
        """``text`` without secrets, as one line of at most ``MAX_MESSAGE_CHARS``."""
        masked = str(text)
        for secret in self._secrets:
            masked = masked.replace(secret, MASK)
        lines = masked.strip().splitlines()
        line = lines[0] if lines else type(text).__name__
        return line if len(line) <= MAX_MESSAGE_CHARS else line[: MAX_MESSAGE_CHARS - 1] + "…"

    def error(self, exc: ProviderError) -> ProviderError:
        """``exc`` itself, its message passed through ``text``, and cut from the exceptions
        it was raised from if any of them holds a secret (a traceback would show it)."""
        exc.args = (self.text(exc),)
        if isinstance(exc, ContentFilteredError) and exc.said is not None:
            exc.said = self.text(exc.said)
        causes = exception_chain(exc.__cause__ or exc.__context__)
        if any(self._holds_secret(str(cause)) for cause in causes):
            exc.__cause__ = None
            exc.__suppress_context__ = True
        return exc

    async def exit_of(self, stream: AsyncIterator[T]) -> AsyncIterator[T]:
        """``stream``, every provider error out of it passed through ``error``: a provider's
        one exit, whatever path an error took."""
        try:
            async with closed_after(stream) as events:
                async for event in events:
                    yield event
        except ProviderError as exc:
            self.error(exc)
            raise

    def _holds_secret(self, text: str) -> bool:
        return any(secret in text for secret in self._secrets)


def exception_chain(exc: BaseException | None) -> list[BaseException]:
    """``exc`` and what it was raised from, innermost last (SDKs wrap the socket's error)."""
    chain: list[BaseException] = []
    while exc is not None and exc not in chain:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    return chain


def url_without_secrets(url: str) -> str:
    """``url`` fit to show: without the user and password before its host, nor its query."""
    return _USERINFO.sub("//", url, count=1).partition("?")[0]


def _url_secrets(url: str | None) -> list[str]:
    """The user and password of ``url`` (a token often comes as the user alone) and the
    values of its query, as written and percent-decoded; and the ``Basic`` credential that
    HTTP clients make of the user and password and send in their place."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.username, parts.password]
    found += [value for _, value in parse_qsl(parts.query)]
    if parts.username is not None:
        user, password = unquote(parts.username), unquote(parts.password or "")
        found.append(base64.b64encode(f"{user}:{password}".encode()).decode())
    return [s for secret in found if secret for s in (secret, unquote(secret))]
