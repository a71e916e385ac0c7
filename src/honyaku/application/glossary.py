"""A book's glossary as the translator edits it, from the terminal or the web app alike.

Every operation names a book and, with ``series``, a shared glossary instead of the book's
own: adding to (or importing into) a shared glossary creates it and attaches the book to it.
A person's additions are accepted at once; what a model proposed waits for ``accept`` (or
``reject``, which removes it as a version): a model proposes into the book's series' glossary
where it has one, so without ``series`` the proposals of every glossary the book sees are
accepted or rejected. Every change is a new version of the entry
(``store.glossary``): nothing is lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from honyaku.domain.glossary import (
    CHARACTER,
    EntryStatus,
    GlossaryEntry,
    clean_entry,
    match_key,
    search_entries,
)
from honyaku.errors import NotFoundError, UserError
from honyaku.formats.glossary_file import read_glossary, write_glossary
from honyaku.store.glossary import GlossaryRef, GlossaryStore, StoredEntry

MANUAL = "manual"
IMPORTED = "import"
SERIES_NAME_CHARS = 100


@dataclass(frozen=True, slots=True)
class EntryChange:
    entry: GlossaryEntry
    previous: GlossaryEntry | None
    """The entry it replaced, if the glossary held one for the same source."""

    @property
    def changed(self) -> bool:
        return self.previous is not None and self.previous != self.entry


@dataclass(frozen=True, slots=True)
class ImportSummary:
    added: int
    changed: int
    unchanged: int


class Glossary:
    def __init__(self, store: GlossaryStore) -> None:
        self._store = store

    async def entries(
        self,
        book_id: str,
        *,
        series: str | None = None,
        status: EntryStatus | None = None,
        characters: bool | None = None,
        query: str = "",
    ) -> list[StoredEntry]:
        """The entries the book sees (its own over the shared ones attached to it), or only
        those of the shared glossary ``series``; only those of ``status`` if given, only
        characters (``True``) or only terms (``False``), only those ``query`` finds
        (``domain.glossary.search_entries``)."""

        def entries() -> list[StoredEntry]:
            found = _glossary_entries(self._store, book_id, series=series, status=status)
            if characters is not None:
                found = [s for s in found if (s.entry.kind == CHARACTER) is characters]
            if query:
                wanted = {id(e) for e in search_entries([s.entry for s in found], query)}
                found = [s for s in found if id(s.entry) in wanted]
            return found

        return await asyncio.to_thread(entries)

    async def add(
        self, book_id: str, entry: GlossaryEntry, *, series: str | None = None
    ) -> EntryChange:
        """Add or change an entry, accepted: the translator's word is final."""
        return await asyncio.to_thread(_add_entry, self._store, book_id, entry, series=series)

    async def edit(
        self, book_id: str, source: str, entry: GlossaryEntry, *, series: str | None = None
    ) -> EntryChange:
        """Change the entry for ``source`` into ``entry``; a new source moves it (the old one
        is removed as a version)."""

        def edit() -> EntryChange:
            # Added first: a new entry that is refused leaves the old one as it was.
            change = _add_entry(self._store, book_id, entry, series=series)
            if match_key(source) != match_key(entry.source):
                _remove_entry(self._store, book_id, source, series=series)
            return change

        return await asyncio.to_thread(edit)

    async def remove(
        self, book_id: str, source: str, *, series: str | None = None
    ) -> GlossaryEntry:
        """Remove the entry for ``source`` (as a version: it stays in the history)."""
        return await asyncio.to_thread(_remove_entry, self._store, book_id, source, series=series)

    async def accept(
        self, book_id: str, sources: Sequence[str] = (), *, series: str | None = None
    ) -> list[GlossaryEntry]:
        """Accept the proposed entries for ``sources``, or every proposed entry if none given."""
        return await asyncio.to_thread(
            _accept_entries, self._store, book_id, sources, series=series
        )

    async def reject(
        self, book_id: str, sources: Sequence[str] = (), *, series: str | None = None
    ) -> list[GlossaryEntry]:
        """Reject the proposed entries for ``sources``, or every proposed entry: each is
        removed as a version, so its history keeps what was proposed and by whom."""
        return await asyncio.to_thread(
            _reject_entries, self._store, book_id, sources, series=series
        )

    async def series(self, book_id: str) -> list[str]:
        """The shared glossaries attached to the book, by name."""

        def attached() -> list[str]:
            return [g.name for g in self._store.glossaries_of(book_id) if g.name]

        return await asyncio.to_thread(attached)

    async def all_series(self) -> list[str]:
        """Every shared glossary, by name."""
        return await asyncio.to_thread(self._store.shared_names)

    async def history(
        self, book_id: str, source: str, *, series: str | None = None
    ) -> list[StoredEntry]:
        """Every version of the entry for ``source``, oldest first."""
        return await asyncio.to_thread(_entry_history, self._store, book_id, source, series=series)

    async def attach(self, book_id: str, series: str) -> bool:
        """Attach the shared glossary ``series`` (made if new); ``False`` if it was."""
        return await asyncio.to_thread(_attach_series, self._store, book_id, series)

    async def detach(self, book_id: str, series: str) -> bool:
        return await asyncio.to_thread(_detach_series, self._store, book_id, series)

    async def import_file(
        self, book_id: str, path: Path, *, series: str | None = None
    ) -> ImportSummary:
        """Add a file's entries, accepted; a source the file holds twice keeps its last line."""
        return await asyncio.to_thread(_import_glossary, self._store, book_id, path, series=series)

    async def export_file(self, book_id: str, path: Path, *, series: str | None = None) -> int:
        """Write the entries the book sees (or the shared glossary's) to ``path``; their count."""
        return await asyncio.to_thread(_export_glossary, self._store, book_id, path, series=series)


def _glossary_entries(
    store: GlossaryStore,
    book_id: str,
    *,
    series: str | None = None,
    status: EntryStatus | None = None,
) -> list[StoredEntry]:
    glossaries = [store.shared(series)] if series else store.glossaries_of(book_id)
    entries = store.current(glossaries)
    return [e for e in entries if status is None or e.entry.status is status]


def _add_entry(
    store: GlossaryStore, book_id: str, entry: GlossaryEntry, *, series: str | None = None
) -> EntryChange:
    [change] = _add(store, book_id, [entry], series=series, origin=MANUAL)
    return change


def _remove_entry(
    store: GlossaryStore, book_id: str, source: str, *, series: str | None = None
) -> GlossaryEntry:
    target = _target(store, book_id, series, create=False)
    found = _by_key(store.current([target])).get(match_key(source))
    if found is None:
        if series:
            raise NotFoundError(
                "no entry for {source!r} in shared glossary {series!r}",
                source=source,
                series=series,
            )
        raise NotFoundError("no entry for {source!r} in the book's glossary", source=source)
    store.remove(target, [found.entry], origin=MANUAL)
    return found.entry


def _accept_entries(
    store: GlossaryStore, book_id: str, sources: Sequence[str] = (), *, series: str | None = None
) -> list[GlossaryEntry]:
    accepted = []
    for glossary, proposed in _proposed(store, book_id, sources, series):
        entries = [replace(entry, status=EntryStatus.ACCEPTED) for entry in proposed]
        store.add(glossary, entries, origin=MANUAL)
        accepted += entries
    return accepted


def _reject_entries(
    store: GlossaryStore, book_id: str, sources: Sequence[str] = (), *, series: str | None = None
) -> list[GlossaryEntry]:
    rejected = []
    for glossary, proposed in _proposed(store, book_id, sources, series):
        store.remove(glossary, proposed, origin=MANUAL)
        rejected += proposed
    return rejected


def _proposed(
    store: GlossaryStore, book_id: str, sources: Sequence[str], series: str | None
) -> list[tuple[GlossaryRef, list[GlossaryEntry]]]:
    """The proposed entries for ``sources`` (all of them if none given), by glossary: the
    shared glossary ``series``'s, else those of every glossary the book sees."""
    glossaries = (
        [_target(store, book_id, series, create=False)] if series else store.glossaries_of(book_id)
    )
    found: dict[str, tuple[GlossaryRef, GlossaryEntry]] = {}
    for glossary in glossaries:
        for key, stored in _by_key(store.current([glossary])).items():
            if stored.entry.status is EntryStatus.PROPOSED:
                found.setdefault(key, (glossary, stored.entry))
    wanted = [match_key(s) for s in sources] or list(found)
    if unknown := [s for s, key in zip(sources, wanted, strict=False) if key not in found]:
        raise NotFoundError(
            "no proposed entry for {sources}", sources=", ".join(map(repr, unknown))
        )
    by_glossary: dict[int, tuple[GlossaryRef, list[GlossaryEntry]]] = {}
    for key in dict.fromkeys(wanted):
        glossary, entry = found[key]
        by_glossary.setdefault(glossary.id, (glossary, []))[1].append(entry)
    return list(by_glossary.values())


def _entry_history(
    store: GlossaryStore, book_id: str, source: str, *, series: str | None = None
) -> list[StoredEntry]:
    glossaries = [store.shared(series)] if series else store.glossaries_of(book_id)
    return store.history(glossaries, source)


def _attach_series(store: GlossaryStore, book_id: str, series: str) -> bool:
    return store.attach(book_id, store.shared(_series_name(series), create=True))


def _detach_series(store: GlossaryStore, book_id: str, series: str) -> bool:
    return store.detach(book_id, store.shared(series))


def _import_glossary(
    store: GlossaryStore, book_id: str, path: Path, *, series: str | None = None
) -> ImportSummary:
    entries = {entry.key: entry for entry in read_glossary(path)}
    changes = _add(store, book_id, list(entries.values()), series=series, origin=IMPORTED)
    added = sum(1 for c in changes if c.previous is None)
    changed = sum(1 for c in changes if c.changed)
    return ImportSummary(added, changed, len(changes) - added - changed)


def _export_glossary(
    store: GlossaryStore, book_id: str, path: Path, *, series: str | None = None
) -> int:
    entries = [s.entry for s in _glossary_entries(store, book_id, series=series)]
    write_glossary(entries, path)
    return len(entries)


def _add(
    store: GlossaryStore,
    book_id: str,
    entries: Iterable[GlossaryEntry],
    *,
    series: str | None,
    origin: str,
) -> list[EntryChange]:
    try:
        cleaned = [replace(clean_entry(e), status=EntryStatus.ACCEPTED) for e in entries]
    except ValueError as exc:
        raise UserError(f"glossary entry: {exc}") from None
    target = _target(store, book_id, series, create=True)
    current = _by_key(store.current([target]))
    changes = []
    for entry in cleaned:
        before = current.get(entry.key)
        changes.append(EntryChange(entry, before.entry if before else None))
    store.add(target, [c.entry for c in changes if c.previous != c.entry], origin=origin)
    return changes


def _target(store: GlossaryStore, book_id: str, series: str | None, *, create: bool) -> GlossaryRef:
    if series is None:
        return store.book_glossary(book_id)
    glossary = store.shared(_series_name(series), create=create)
    if create:
        store.attach(book_id, glossary)
    return glossary


def _series_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > SERIES_NAME_CHARS:
        raise UserError("a series name is 1 to {most} characters", most=SERIES_NAME_CHARS)
    return cleaned


def _by_key(entries: Iterable[StoredEntry]) -> dict[str, StoredEntry]:
    return {stored.entry.key: stored for stored in entries}
