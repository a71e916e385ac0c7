"""API keys: where this machine's user keeps them, and the one way a request's key is found.

A key is read for one purpose only, to talk to a model's server, so the key store lives here
beside the providers. Not in ``store/``: that is the library's database, shared by every
front end and worker, and a key never enters it, nor an order of the job queue, nor an
event. An order and a profile name a key; each process finds it in its own environment or
its own key store, so a worker on another machine serves a profile with its own keys.

Keys are kept in the operating system's keyring through ``keyring`` (macOS Keychain, Windows
Credential Locker, Secret Service), under the service ``honyaku``. Where no keyring is usable
(keyring's fail or null backend: a headless server, CI), they are kept in ``keys.json`` in the
user's config folder (``$HONYAKU_CONFIG_DIR``, else platformdirs'), which only its owner may
read: it is written 0600, as a new file renamed over the old one, and it is refused if its
mode lets anyone else read it. ``PYTHON_KEYRING_BACKEND=keyring.backends.null.Keyring`` keeps
keys in that file on a machine that has a keyring.

``find_key`` is how every request's key is found, in order: the environment variable a person
named (``--api-key-env``); else the name of the profile's key (``--key``) as an environment
variable, then in the key store; else the provider's usual variables (``OPENAI_API_KEY``…).
Each only where it may go (``domain.key_addresses``): a profile's key to the servers it was
saved for, an environment variable where a terminal named it, a usual variable to its
provider's own server. A key named and not found is missing: no other key stands in for it
(it would go to another provider's server). The key store is opened only for a key named so:
a local server that needs no key never wakes a locked keyring. A key found is printable ASCII
or refused in one line (``domain.keys.check_found_key``): an HTTP header carries nothing else.

``keyring`` takes a moment to import and to find its backend: it is imported only when the
key store is opened, which a key found in the environment never needs.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from honyaku.domain.key_addresses import KeyAddresses, KeyBinding, KeyRoute
from honyaku.domain.keys import check_found_key, check_key_name, check_key_text, key_tail
from honyaku.errors import ConfigError, NotFoundError

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

KEYRING_SERVICE = "honyaku"
NAMES_ENTRY = "honyaku:names"
"""The keyring entry that lists the names of the keys kept there (a keyring lists nothing);
no key's name can take it."""
KEY_FILE = "keys.json"
CONFIG_FOLDER_VARIABLE = "HONYAKU_CONFIG_DIR"
KEYRING = "keyring"
"""Where a key kept in the operating system's keyring is said to be."""


def config_folder() -> Path:
    """``$HONYAKU_CONFIG_DIR``, else the user's config folder for honyaku."""
    if folder := os.environ.get(CONFIG_FOLDER_VARIABLE):
        return Path(folder).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("honyaku"))


@dataclass(frozen=True, slots=True)
class StoredKey:
    """A key as it may be shown: its name, where it is kept, and its tail."""

    name: str
    where: str
    """``keyring``, or the path of the key file."""
    tail: str
    """``…a1b2``: its last 4 characters at most (``domain.keys.key_tail``)."""


class KeyPlace(Protocol):
    """One place keys are kept."""

    @property
    def where(self) -> str: ...

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, key: str) -> None: ...

    def remove(self, name: str) -> bool:
        """Whether there was a key of that name to remove."""
        ...

    def names(self) -> list[str]: ...


class KeyFile:
    """Keys in a JSON file, ``{name: key}``, that only its owner can read or write."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def where(self) -> str:
        return str(self.path)

    def get(self, name: str) -> str | None:
        return self._read().get(name)

    def names(self) -> list[str]:
        return sorted(self._read())

    def set(self, name: str, key: str) -> None:
        self._write({**self._read(), name: key})

    def remove(self, name: str) -> bool:
        keys = self._read()
        if keys.pop(name, None) is None:
            return False
        self._write(keys)
        return True

    def _read(self) -> dict[str, str]:
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            return {}
        with handle:
            self._check_mode(os.fstat(handle.fileno()).st_mode)
            text = handle.read()
        try:
            keys = json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError):
            keys = None
        if not isinstance(keys, dict) or not all(
            isinstance(n, str) and isinstance(k, str) for n, k in keys.items()
        ):
            raise ConfigError(
                "the key file {path} is not what honyaku writes: move it away and set the "
                "keys again",
                path=str(self.path),
            )
        return keys

    def _check_mode(self, mode: int) -> None:
        # Windows keeps no such bits: its files are guarded by their folder's access list.
        if os.name != "nt" and mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(
                "the key file {path} can be read by others (mode {mode:o}): honyaku reads "
                "keys only from a file its owner alone can read; chmod 600 it, or set the "
                "keys again if others may have read them",
                path=str(self.path),
                mode=stat.S_IMODE(mode),
            )

    def _write(self, keys: dict[str, str]) -> None:
        """A new file, 0600 from the moment it exists, renamed over the old one: a reader
        sees the old keys or the new, never half of them, never a looser mode."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".keys-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(keys, file, indent=2, sort_keys=True)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise


class KeyringEntries:
    """Keys in the operating system's keyring, one entry each under ``honyaku``, and the
    list of their names in one more entry."""

    where = KEYRING

    def __init__(self, backend: KeyringBackend) -> None:
        self.backend = backend

    def get(self, name: str) -> str | None:
        with _keyring_errors():
            return self.backend.get_password(KEYRING_SERVICE, name)

    def names(self) -> list[str]:
        with _keyring_errors():
            listed = self.backend.get_password(KEYRING_SERVICE, NAMES_ENTRY)
        try:
            names = json.loads(listed) if listed else []
        except json.JSONDecodeError:
            names = []
        return sorted(n for n in names if isinstance(n, str) and self.get(n) is not None)

    def set(self, name: str, key: str) -> None:
        with _keyring_errors():
            self.backend.set_password(KEYRING_SERVICE, name, key)
        self._list(sorted({*self.names(), name}))

    def remove(self, name: str) -> bool:
        if self.get(name) is None:
            return False
        from keyring.errors import PasswordDeleteError

        with _keyring_errors(), contextlib.suppress(PasswordDeleteError):
            self.backend.delete_password(KEYRING_SERVICE, name)
        self._list([n for n in self.names() if n != name])
        return True

    def _list(self, names: list[str]) -> None:
        with _keyring_errors():
            self.backend.set_password(KEYRING_SERVICE, NAMES_ENTRY, json.dumps(names))


@contextlib.contextmanager
def _keyring_errors() -> Iterator[None]:
    """keyring's errors as one line that says how to keep keys in the file instead."""
    from keyring.errors import KeyringError

    try:
        yield
    except KeyringError as exc:
        raise ConfigError(
            "the keyring failed ({problem})",
            problem=type(exc).__name__,
            terminal_hint="PYTHON_KEYRING_BACKEND=keyring.backends.null.Keyring keeps keys in "
            f"{config_folder() / KEY_FILE} instead",
        ) from None


def usable(backend: KeyringBackend) -> bool:
    """Whether keys can be kept in the keyring ``backend``: not keyring's stand-ins for none
    (fail: no backend found; null: keyring turned off)."""
    from keyring.backends import fail, null

    return not isinstance(backend, fail.Keyring | null.Keyring)


class KeyStore:
    """The places this machine's user keeps keys, the first one for new keys."""

    def __init__(self, places: Sequence[KeyPlace]) -> None:
        self.places = tuple(places)

    @classmethod
    def of_this_user(cls) -> KeyStore:
        """The keyring, where one is usable, and the key file (a key kept there while no
        keyring was usable is still found)."""
        import keyring

        backend = keyring.get_keyring()
        file = KeyFile(config_folder() / KEY_FILE)
        return cls((KeyringEntries(backend), file) if usable(backend) else (file,))

    @property
    def where(self) -> str:
        """Where a key set now goes: ``keyring`` or the key file's path."""
        return self.places[0].where

    def get(self, name: str) -> str | None:
        for place in self.places:
            if (key := place.get(name)) is not None:
                return key
        return None

    def set(self, name: str, key: str) -> StoredKey:
        """Keep ``key`` under ``name`` (replacing a key of that name); how it may be shown."""
        name, key = check_key_name(name), check_key_text(key)
        first, *others = self.places
        first.set(name, key)
        for place in others:  # an older copy elsewhere would be found if this one went
            place.remove(name)
        return StoredKey(name, first.where, key_tail(key))

    def remove(self, name: str) -> list[str]:
        """Forget the key called ``name`` wherever it is kept; where it was."""
        check_key_name(name)
        removed = [place.where for place in self.places if place.remove(name)]
        if not removed:
            raise NotFoundError("no key called {name} in the key store", name=name)
        return removed

    def all(self) -> list[StoredKey]:
        """Every key kept, by name, as it may be shown."""
        found: dict[str, StoredKey] = {}
        for place in self.places:
            for name in place.names():
                if name not in found and (key := place.get(name)) is not None:
                    found[name] = StoredKey(name, place.where, key_tail(key))
        return sorted(found.values(), key=lambda stored: stored.name)


@dataclass(frozen=True, slots=True)
class FoundKey:
    """A request's key, and where it was found (which may be shown; the key never is)."""

    key: str = field(repr=False)
    source: str
    """``$DEEPSEEK_API_KEY``, or ``DEEPSEEK_API_KEY in the key store``."""


def find_key(
    address: str,
    *,
    variable: str | None = None,
    name: str | None = None,
    usual: Sequence[str] = (),
    bound: Sequence[KeyBinding] | None = None,
    store: KeyStore | None = None,
) -> FoundKey | None:
    """The key for a request to ``address`` (see the module's docstring for the order), from
    this process's environment and ``store`` (by default this user's); ``None`` if there is
    none that may go there. ``bound``: the servers each key's name was saved for; ``None`` for
    a key named in the command being run, which goes where that command sends it. A key named
    that may not go to ``address`` is refused in one line, before it is looked up."""
    addresses = KeyAddresses(bound or (), os.environ)
    if variable:
        if bound is not None and not addresses.environment_allowed(variable, address):
            raise addresses.refusal(KeyRoute(address, variable, variable=True))
        return _found(os.environ.get(variable), f"${variable}")
    if name:
        route = KeyRoute(address, name, variable=False)
        if bound is not None and (known := addresses.servers(name)) and route.server not in known:
            raise addresses.refusal(route)
        readable = bound is None or addresses.environment_allowed(name, address)
        if readable and (found := _found(os.environ.get(name), f"${name}")):
            return found
        key = _found((store or KeyStore.of_this_user()).get(name), f"{name} in the key store")
        if key is not None and bound is not None and not addresses.store_allowed(name, address):
            raise addresses.refusal(route)
        return key
    for each in usual:
        # A provider's usual variable goes to its provider's server and nowhere else.
        if os.environ.get(each) and addresses.environment_allowed(each, address):
            return _found(os.environ[each], f"${each}")
    return None


def _found(value: str | None, source: str) -> FoundKey | None:
    return FoundKey(check_found_key(value, source), source) if value else None
