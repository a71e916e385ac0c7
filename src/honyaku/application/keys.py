"""API keys in the key store of the user running honyaku: set, listed, removed.

A key goes in and never comes back out: what any front end gets is its name, where it is
kept (``keyring``, or the key file's path) and its last characters (``…a1b2``). The store is
this machine's user's, not the library's: a workbench on a shared database, or a worker on
another machine, keeps its own keys (``llm.keys``).
"""

from __future__ import annotations

import asyncio

from honyaku.domain.keys import check_key_name
from honyaku.llm.keys import KeyStore, StoredKey


class Keys:
    def __init__(self, store: KeyStore | None = None) -> None:
        self._given = store

    def _store(self) -> KeyStore:
        # Found at each call: a keyring set up (or turned off) meanwhile is used at once.
        return self._given or KeyStore.of_this_user()

    async def set(self, name: str, key: str) -> StoredKey:
        """Keep ``key`` (stripped; one word) under ``name``, replacing a key of that name;
        where it went, and its tail."""
        # Keyrings answer over D-Bus or XPC, and may wait on an unlock dialog: off the loop.
        return await asyncio.to_thread(lambda: self._store().set(name, key))

    async def all(self) -> list[StoredKey]:
        """Every key kept, by name: where each is, and its tail."""
        return await asyncio.to_thread(lambda: self._store().all())

    async def get(self, name: str) -> StoredKey | None:
        """Whether a key called ``name`` is kept, where, and its tail."""
        check_key_name(name)
        return next((k for k in await self.all() if k.name == name), None)

    async def remove(self, name: str) -> list[str]:
        """Forget the key called ``name``; where it was kept."""
        return await asyncio.to_thread(lambda: self._store().remove(name))

    async def where(self) -> str:
        """Where a key set now would be kept: ``keyring``, or the key file's path."""
        return await asyncio.to_thread(lambda: self._store().where)
