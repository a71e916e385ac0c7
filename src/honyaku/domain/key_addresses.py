"""Where a key may go: the servers each key's name is bound to, and a provider's usual
variables and the one server each goes to. No I/O: the bindings are kept in the library
(``store.model_profiles``), the keys in the environment or the key store (``llm.keys``).

- **A key named in a command** (``--api-key-env VAR`` on ``honyaku translate``…) goes where
  that command sends it: the person typed both.
- **A key a profile names** (its ``key_name``, or its ``api_key_env``) is bound to the servers
  of the profile it was saved with (scheme, host and port: ``addresses.server_of``), and goes
  to no other. A key no profile holds goes nowhere until a profile saved with it binds it to
  its server. Saved in the workbench, a profile binds only a key bound nowhere yet, or to the
  servers it is bound to already; saved in a terminal (``honyaku models add``), it may bind a
  key to one more server. A binding outlives its profile: deleting a profile frees no key.
- **The environment** is read only for a variable a terminal named (``--api-key-env``, or
  ``--key`` in ``honyaku models add``), for the servers it named it for: the workbench sends
  no variable of the environment it was started in that no terminal named.
- **A provider's usual variable** (``USUAL_KEYS``: ``OPENAI_API_KEY``…) goes only to that
  provider's own server, or to the base URL the same environment sets for it
  (``OPENAI_BASE_URL``), unless a terminal named it for another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from honyaku.domain.addresses import printable_url, server_of
from honyaku.errors import ConfigError


@dataclass(frozen=True, slots=True)
class UsualKey:
    """A provider's usual key variables, and the one server they go to."""

    provider: str
    """Its name in ``llm.models.PROVIDER_KINDS``."""
    variables: tuple[str, ...]
    """In the order they are looked up."""
    address: str
    """The provider's own base URL."""
    base_url_variable: str | None = None
    """The variable that sets another base URL for it, in the same environment."""


USUAL_KEYS = (
    UsualKey("openai", ("OPENAI_API_KEY",), "https://api.openai.com/v1", "OPENAI_BASE_URL"),
    UsualKey(
        "gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "https://generativelanguage.googleapis.com"
    ),
    UsualKey("anthropic", ("ANTHROPIC_API_KEY",), "https://api.anthropic.com"),
)
"""One row a provider: a new provider's key goes nowhere else."""


def usual_key(provider: str) -> UsualKey | None:
    """The usual key of the provider called ``provider``, if it has one."""
    return next((row for row in USUAL_KEYS if row.provider == provider), None)


def usual_servers(variable: str, environment: Mapping[str, str]) -> set[str]:
    """The servers a provider's usual ``variable`` goes to: its provider's own, and the base
    URL ``environment`` sets for it; none for another variable."""
    found = set()
    for row in USUAL_KEYS:
        if variable in row.variables:
            found.add(row.address)
            if row.base_url_variable and (url := environment.get(row.base_url_variable)):
                found.add(url)
    return {server for url in found if (server := server_of(url))}


@dataclass(frozen=True, slots=True)
class KeyBinding:
    """A key's name bound to one server."""

    name: str
    server: str
    """``scheme://host:port`` (``addresses.server_of``)."""
    named_at_terminal: bool
    """A terminal named it for this server: the environment variable of that name is read
    for it, besides the key store."""


@dataclass(frozen=True, slots=True)
class KeyRoute:
    """A request's key as it is named, and where the request goes."""

    address: str
    """The base URL the request goes to."""
    name: str
    """The key's name: an environment variable's, or the key store's entry."""
    variable: bool
    """Named as an environment variable (``api_key_env``) rather than a key's name, which is
    looked up in the environment, then in the key store."""

    @property
    def server(self) -> str:
        return server_of(self.address) or self.address


class KeyAddresses:
    """The servers each key's name is bound to, as saved, and the servers a provider's usual
    variables go to in this ``environment``."""

    def __init__(
        self, bindings: Iterable[KeyBinding] = (), environment: Mapping[str, str] | None = None
    ) -> None:
        self._bound: dict[str, dict[str, bool]] = {}
        for binding in bindings:
            servers = self._bound.setdefault(binding.name, {})
            named = servers.get(binding.server, False) or binding.named_at_terminal
            servers[binding.server] = named
        self._environment = environment or {}

    def servers(self, name: str) -> set[str]:
        """Every server the key called ``name`` may go to."""
        return set(self._bound.get(name, {})) | usual_servers(name, self._environment)

    def environment_allowed(self, name: str, address: str) -> bool:
        """Whether the environment variable ``name`` may be read for a request to
        ``address``: a terminal named it for that server, or it is a provider's usual
        variable and that server its provider's."""
        server = server_of(address)
        return bool(self._bound.get(name, {}).get(server or "")) or server in usual_servers(
            name, self._environment
        )

    def store_allowed(self, name: str, address: str) -> bool:
        """Whether the key store's key called ``name`` may go to ``address``."""
        return server_of(address) in self.servers(name)

    def check_binding(self, route: KeyRoute, *, declared: bool) -> None:
        """Refuse, in one line, a profile that would send a key where it may not go; a
        profile ``declared`` in a terminal may send any key anywhere its owner typed."""
        if declared:
            return
        if route.variable and not self.environment_allowed(route.name, route.address):
            raise self.refusal(route)
        known = self.servers(route.name)
        if not route.variable and known and route.server not in known:
            raise self.refusal(route)

    def refusal(self, route: KeyRoute) -> ConfigError:
        """The one line said when a key is asked to go where it may not."""
        known = self.servers(route.name)
        if route.variable:
            return ConfigError(
                "an environment variable is read only for the servers a terminal named it for: "
                "name ${variable} for {server} with honyaku models add … --api-key-env "
                "{variable}, or keep its key in the key store and give its name as the key's name",
                variable=route.name,
                server=printable_url(route.server),
            )
        if not known:
            return ConfigError(
                "the key {name} is bound to no server yet: save the profile, and the key goes "
                "to its server and no other",
                name=route.name,
            )
        return ConfigError(
            "the key {name} goes only to {servers}, where it was saved for: to send it to "
            "{server} too, save a profile for it there in a terminal (honyaku models add … "
            "--key {name})",
            name=route.name,
            servers=", ".join(sorted(printable_url(server) for server in known)),
            server=printable_url(route.server),
        )

    def bindings(self, routes: Iterable[KeyRoute], *, declared: bool) -> list[KeyBinding]:
        """What saving a profile with these ``routes`` binds."""
        return [KeyBinding(route.name, route.server, declared) for route in routes]
