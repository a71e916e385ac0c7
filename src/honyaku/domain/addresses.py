"""A model server's address as a person gives it: what honyaku accepts, and what it shows.

A key has no place in an address: honyaku stores addresses (model profiles) and shows them
(progress, pages, the API), so an address holding a password or a key is refused: a user or
password before the host, a parameter named for a credential (``api_key``, ``auth``, ``code``,
``k``…) or a value or path segment with a well-known key's prefix (``sk-…``), in its query or
its ``;parameters``, and any ``#fragment`` (servers never see one). What slips past (a key
without a known prefix) is still never shown:

- ``printable_url``, for every address printed or shown as text: scheme, host, port and path
  only, with ``?…``, ``;…``, ``#…`` or ``…@`` saying that a query, parameters, a fragment or a
  user were there, and a path segment that looks like a key (a known prefix, or a long
  random-looking string) as ``…``;
- ``masked_url``, where the whole stored address is given back (the API's profiles): as
  stored, each value that looks like a key replaced by ``…``.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from honyaku.domain.keys import KEY_PREFIXES
from honyaku.errors import ConfigError

SECRET_WORDS = ("key", "token", "secret", "password", "signature", "sig", "auth", "credential")
"""Parameters with these in their names carry credentials."""
SECRET_NAMES = frozenset({"code", "k", "pw", "pass"})
"""Parameters with these very names carry credentials (Azure Functions' ``code``)."""
SECRET_PREFIXES = tuple(sorted({prefix.lower() for prefix in KEY_PREFIXES} | {"xox", "bearer"}))
"""How keys of well-known providers begin (``domain.keys``), in any case: an address is no
variable's name."""
LONG_SECRET = re.compile(r"(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9_\-.~+/=]{24,}")
"""A long random-looking value, letters and digits mixed: a key more often than not."""
HIDDEN = "…"

FORBIDDEN_NETWORKS = (
    ipaddress.ip_network("169.254.0.0/16"),
    ipaddress.ip_network("fe80::/10"),
    ipaddress.ip_network("fd00:ec2::254/128"),
)
"""Link-local addresses, where clouds answer with the machine's own credentials (their
metadata services at 169.254.169.254 and fd00:ec2::254): no model server is there."""
METADATA_NAMES = frozenset({"metadata", "metadata.google.internal"})


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
    if is_link_local(parts.hostname):
        raise ConfigError(
            "base URL {url!r} is a link-local or cloud metadata address, which honyaku never asks",
            url=shown,
        )
    path, _, parameters = parts.path.partition(";")
    if (
        parts.username
        or parts.password
        or parts.fragment
        or "#" in url
        or _secret_parameters(parts.query)
        or _secret_parameters(parameters.replace(";", "&"))
        or any(has_key_prefix(segment) for segment in path.split("/"))
    ):
        raise ConfigError(
            "the base URL holds a password or a key, which honyaku will not store: keep the "
            "key in an environment variable, named as the model's key variable, or in a header"
        )


def printable_url(url: str) -> str:
    """A URL fit to print: its scheme, host, port and path, with a mark where a query,
    parameters, a fragment or a user were, and a path segment that looks like a key hidden."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        if parts.port:
            host += f":{parts.port}"
    except ValueError:
        return "(an address that cannot be read)"
    path, semicolon, _ = parts.path.partition(";")
    path = "/".join(HIDDEN if looks_like_key(segment) else segment for segment in path.split("/"))
    user = f"{HIDDEN}@" if "@" in parts.netloc else ""
    marks = (
        (f";{HIDDEN}" if semicolon else "")
        + (f"?{HIDDEN}" if parts.query or url.rstrip("#").endswith("?") else "")
        + (f"#{HIDDEN}" if "#" in url else "")
    )
    return urlunsplit((parts.scheme, user + host, path, "", "")) + marks


def masked_url(url: str) -> str:
    """The address as stored, with what ``check_base_url`` would refuse today (a user and
    password, a credential's parameter, a value with a key's prefix, a fragment) replaced by
    ``…``: an address it accepts comes back whole, so a page can send it back unchanged."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an address that cannot be read)"
    netloc = parts.netloc.rpartition("@")
    host = f"{HIDDEN}@{netloc[2]}" if netloc[1] else parts.netloc
    path, semicolon, parameters = parts.path.partition(";")
    path = "/".join(HIDDEN if has_key_prefix(segment) else segment for segment in path.split("/"))
    if semicolon:
        path += ";" + ";".join(_masked_pairs(parameters.split(";")))
    query = "&".join(_masked_pairs(parts.query.split("&"))) if parts.query else ""
    fragment = HIDDEN if parts.fragment else ""
    return urlunsplit((parts.scheme, host, path, query, fragment))


def has_key_prefix(value: str) -> bool:
    """Whether a value begins as a well-known provider's key does."""
    return value.lower().startswith(SECRET_PREFIXES)


def looks_like_key(value: str) -> bool:
    """Whether a value in an address looks like a key: a well-known key's prefix, or a long
    random-looking string of letters and digits."""
    return has_key_prefix(value) or bool(LONG_SECRET.fullmatch(value))


def _masked_pairs(pairs: list[str]) -> list[str]:
    masked = []
    for pair in pairs:
        name, equals, value = pair.partition("=")
        secret = _secret_name(name) or has_key_prefix(value)
        masked.append(f"{name}{equals}{HIDDEN if equals and secret and value else value}")
    return masked


def _secret_name(name: str) -> bool:
    name = name.lower()
    return name in SECRET_NAMES or any(word in name for word in SECRET_WORDS)


def same_server(url: str | None, other: str | None) -> bool:
    """Whether two base URLs reach the same server (scheme, host and port; ``None`` is the
    provider's own), whatever their paths."""
    if url is None or other is None:
        return url is other
    server = server_of(url)
    return server is not None and server == server_of(other)


def server_of(url: str) -> str | None:
    """The server a URL reaches, as ``scheme://host:port`` (the port always written, the host
    in lower case): what a key is bound to, whatever the path. ``None`` for no URL."""
    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return None
    if not parts.scheme or not host:
        return None
    return f"{parts.scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def is_link_local(host: str) -> bool:
    """Whether ``host`` names a link-local or metadata address, however it is spelt (an IPv4
    address written as one number, in hex, or inside IPv6, as a resolver would read it)."""
    host = host.strip("[]").lower().rstrip(".")
    if host in METADATA_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        if not host or host.strip("0123456789abcdefx.") or not host[0].isdigit():
            return False
        try:  # 2852039166, 0xa9fea9fe, 0251.0376.0251.0376: what the C resolver accepts
            address = ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return any(address in network for network in FORBIDDEN_NETWORKS)


def _secret_parameters(query: str) -> list[str]:
    pairs = parse_qsl(query, keep_blank_values=True)
    return [name for name, value in pairs if _secret_name(name) or has_key_prefix(value)]
