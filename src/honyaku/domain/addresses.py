"""A model server's address as a person gives it: what honyaku accepts, and what it prints.

A key has no place in an address: honyaku stores addresses (model profiles) and prints them
(progress, pages), so a password or a key-like query parameter is refused, and what is
printed never shows a query string or credentials.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit, urlunsplit

from honyaku.errors import ConfigError

SECRET_WORDS = ("key", "token", "secret", "password", "signature", "sig")
"""Query parameters with these in their names carry credentials."""


def check_base_url(url: str) -> None:
    """Raise ``ConfigError`` with one line naming what is wrong with a base URL."""
    shown = printable_url(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(
            "base URL {url!r} is not a URL: {problem}", url=shown, problem=exc
        ) from None
    if parts.scheme not in ("http", "https"):
        raise ConfigError("base URL {url!r} must start with http:// or https://", url=shown)
    if not parts.hostname:
        raise ConfigError("base URL {url!r} names no host", url=shown)
    if port == 0:
        raise ConfigError("base URL {url!r}: port 0 is not a port", url=shown)
    if parts.username or parts.password or _secret_parameters(parts.query):
        raise ConfigError(
            "the base URL holds a password or a key, which honyaku will not store: keep the "
            "key in an environment variable, named as the model's key variable, or in a header"
        )


def printable_url(url: str) -> str:
    """A URL fit to print: no ``user:password@`` and no query, where keys sometimes ride."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
    except ValueError:
        return "(an address that cannot be read)"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _secret_parameters(query: str) -> list[str]:
    names = [name.lower() for name, _ in parse_qsl(query, keep_blank_values=True)]
    return [name for name in names if any(word in name for word in SECRET_WORDS)]
