"""Glossaries: each book's own, shared ones that books attach to, and their versioned entries.

Entries are versioned like translations: every change adds a row, and nothing is ever
updated or deleted. The entry as it stands is the latest row of its key (its normalized
source); a removal is a row with status ``removed``. A book sees its own glossary over the
shared ones it is attached to: where both hold a key, the book's own entry wins.

Each glossary also keeps an address book (``store.address_book``), versioned the same way:
a series' shared glossary carries its cast (its characters) and its forms of address. A
model's proposals go to the book's **home** glossary: the series' it belongs to (the first
shared glossary it is attached to), else its own, so that what one volume finds the next one
sees.

``BookGlossary`` is what a running job reads: the book's accepted entries as one matcher, and
its cast (``BookCast``: characters, forms of address, the series' books in order), built again
only when an entry, a row or an attachment changed (new terms accepted while the job runs
reach its later chunks).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, func, insert, select
from sqlalchemy.orm import Session

from honyaku.domain.forms_of_address import FormOfAddress
from honyaku.domain.glossary import EntryStatus, GlossaryEntry, GlossaryMatcher, match_key
from honyaku.errors import NotFoundError, StoreError
from honyaku.store.address_book import AddressBookStore
from honyaku.store.chunks import Held, hold
from honyaku.store.database import Database
from honyaku.store.schema import (
    BookRow,
    GlossaryAttachmentRow,
    GlossaryEntryRow,
    GlossaryRow,
    table_of,
    utc_now,
)

REMOVED = "removed"


@dataclass(frozen=True, slots=True)
class GlossaryRef:
    id: int
    name: str | None
    """The shared glossary's name; ``None`` for a book's own."""

    @property
    def label(self) -> str:
        return self.name or "book"


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """An entry as it stands in one glossary, or one of its past versions."""

    entry: GlossaryEntry
    glossary: GlossaryRef
    origin: str
    created_at: datetime
    removed: bool = False


class GlossaryStore:
    def __init__(self, database: Database) -> None:
        self.database = database
        self.addresses = AddressBookStore(database)
        """Each glossary's address book."""

    # -- glossaries ------------------------------------------------------------------------

    def book_glossary(self, book_id: str) -> GlossaryRef:
        """The book's own glossary, made the first time it is asked for."""
        query = select(GlossaryRow.id).where(GlossaryRow.book_id == book_id)
        with self.database.transaction() as session:
            _require_book(session, book_id)
            found = session.scalar(query)
        if found is None:
            found = self._make_book_glossary(book_id, query)
        return GlossaryRef(found, None)

    def _make_book_glossary(self, book_id: str, query: Select[int]) -> int:
        try:
            # Exclusive: the chapters of a job may ask at once, and only one may make it.
            with self.database.transaction(exclusive=True) as session:
                if (found := session.scalar(query)) is None:
                    row = GlossaryRow(book_id=book_id, created_at=utc_now())
                    session.add(row)
                    session.flush()
                    found = row.id
                return found
        except StoreError:
            # Without SQLite's write lock (PostgreSQL), another made it first.
            with self.database.transaction() as session:
                if (made := session.scalar(query)) is None:
                    raise
                return made

    def shared(self, name: str, *, create: bool = False) -> GlossaryRef:
        with self.database.transaction() as session:
            row = session.scalar(select(GlossaryRow).where(GlossaryRow.name == name))
            if row is None:
                if not create:
                    raise NotFoundError("no shared glossary named {name!r}", name=name)
                row = GlossaryRow(name=name, created_at=utc_now())
                session.add(row)
                session.flush()
            return GlossaryRef(row.id, row.name)

    def shared_names(self) -> list[str]:
        """Every shared glossary's name, in order."""
        with self.database.transaction() as session:
            query = select(GlossaryRow.name).where(GlossaryRow.name.is_not(None))
            return sorted(name for name in session.scalars(query) if name)

    def attach(self, book_id: str, glossary: GlossaryRef) -> bool:
        """Attach a shared glossary to a book; ``False`` if it already was."""
        with self.database.transaction() as session:
            _require_book(session, book_id)
            if session.get(GlossaryAttachmentRow, (book_id, glossary.id)) is not None:
                return False
            session.add(GlossaryAttachmentRow(book_id=book_id, glossary_id=glossary.id))
            return True

    def detach(self, book_id: str, glossary: GlossaryRef) -> bool:
        with self.database.transaction() as session:
            row = session.get(GlossaryAttachmentRow, (book_id, glossary.id))
            if row is None:
                return False
            session.delete(row)
            return True

    def glossaries_of(self, book_id: str) -> list[GlossaryRef]:
        """The book's own glossary first, then the shared ones it is attached to, by name."""
        own = self.book_glossary(book_id)
        with self.database.transaction() as session:
            rows = session.scalars(
                select(GlossaryRow)
                .join(GlossaryAttachmentRow, GlossaryAttachmentRow.glossary_id == GlossaryRow.id)
                .where(GlossaryAttachmentRow.book_id == book_id)
                .order_by(GlossaryRow.name)
            )
            return [own, *(GlossaryRef(row.id, row.name) for row in rows)]

    def home_glossary(self, book_id: str) -> GlossaryRef:
        """Where a model's proposals for the book go: the first shared glossary it is
        attached to (its series'), else its own."""
        glossaries = self.glossaries_of(book_id)
        return glossaries[1] if len(glossaries) > 1 else glossaries[0]

    def series_books(self, book_id: str) -> list[str]:
        """The books of the book's series (those attached to a shared glossary it is
        attached to), itself among them, in the order they were added to the library; only
        the book itself when it belongs to none. A trial's copies are no volume."""
        attached = select(GlossaryAttachmentRow.glossary_id).where(
            GlossaryAttachmentRow.book_id == book_id
        )
        members = select(GlossaryAttachmentRow.book_id).where(
            GlossaryAttachmentRow.glossary_id.in_(attached)
        )
        with self.database.transaction() as session:
            found = session.scalars(
                select(BookRow.id)
                .where(BookRow.id.in_(members), BookRow.trial_of.is_(None))
                .order_by(BookRow.created_at, BookRow.id)
            ).all()
        return list(found) or [book_id]

    def revision(self, glossaries: Sequence[GlossaryRef]) -> tuple[object, ...]:
        """Changes whenever an entry or a form of address of these glossaries changes."""
        with self.database.transaction() as session:
            latest = session.scalar(
                select(func.max(GlossaryEntryRow.pk)).where(
                    GlossaryEntryRow.glossary_id.in_([g.id for g in glossaries])
                )
            )
        return (tuple(g.id for g in glossaries), latest, self.addresses.latest_pk(glossaries))

    # -- entries ---------------------------------------------------------------------------

    def add(
        self,
        glossary: GlossaryRef,
        entries: Iterable[GlossaryEntry],
        *,
        origin: str,
        claim: Held | None = None,
    ) -> None:
        """Add a version of each entry, all in one transaction; made under a chunk's
        ``claim``, only while that claim stands."""
        self._insert(glossary, [(entry, entry.status.value) for entry in entries], origin, claim)

    def remove(
        self, glossary: GlossaryRef, entries: Iterable[GlossaryEntry], *, origin: str
    ) -> None:
        """Add a removal version of each entry."""
        self._insert(glossary, [(entry, REMOVED) for entry in entries], origin)

    def _insert(
        self,
        glossary: GlossaryRef,
        rows: list[tuple[GlossaryEntry, str]],
        origin: str,
        claim: Held | None = None,
    ) -> None:
        if not rows:
            return
        now = utc_now()
        with self.database.transaction() as session:
            if claim is not None:
                hold(session, claim)
            session.execute(
                insert(table_of(GlossaryEntryRow)),
                [
                    {
                        "glossary_id": glossary.id,
                        "key": entry.key,
                        "source": entry.source,
                        "target": entry.target,
                        "note": entry.note,
                        "kind": entry.kind,
                        "aliases": list(entry.aliases),
                        "gender": entry.gender,
                        "reading": entry.reading,
                        "pronoun": entry.pronoun,
                        "speech": entry.speech,
                        "status": status,
                        "origin": origin,
                        "created_at": now,
                    }
                    for entry, status in rows
                ],
            )

    def current(self, glossaries: Sequence[GlossaryRef]) -> list[StoredEntry]:
        """The entries as they stand, removed ones left out; for a key held by several
        glossaries, the first glossary's entry. In order of source."""
        by_id = {g.id: g for g in glossaries}
        with self.database.transaction() as session:
            latest = (
                select(func.max(GlossaryEntryRow.pk))
                .where(GlossaryEntryRow.glossary_id.in_(list(by_id)))
                .group_by(GlossaryEntryRow.glossary_id, GlossaryEntryRow.key)
            )
            rows = session.scalars(
                select(GlossaryEntryRow).where(GlossaryEntryRow.pk.in_(latest))
            ).all()
        rank = {g.id: n for n, g in enumerate(glossaries)}
        chosen: dict[str, GlossaryEntryRow] = {}
        for row in sorted(rows, key=lambda r: rank[r.glossary_id]):
            chosen.setdefault(row.key, row)
        stored = [_stored(row, by_id[row.glossary_id]) for row in chosen.values()]
        return sorted((s for s in stored if not s.removed), key=lambda s: s.entry.key)

    def history(self, glossaries: Sequence[GlossaryRef], source: str) -> list[StoredEntry]:
        """Every version of the entry for ``source`` in these glossaries, oldest first."""
        by_id = {g.id: g for g in glossaries}
        with self.database.transaction() as session:
            rows = session.scalars(
                select(GlossaryEntryRow)
                .where(
                    GlossaryEntryRow.glossary_id.in_(list(by_id)),
                    GlossaryEntryRow.key == match_key(source),
                )
                .order_by(GlossaryEntryRow.pk)
            )
            return [_stored(row, by_id[row.glossary_id]) for row in rows]


class BookGlossary:
    """A book's accepted glossary as a running job reads it, re-read when it changed."""

    def __init__(self, store: GlossaryStore, book_id: str) -> None:
        self.store = store
        self.book_id = book_id
        self._built: _Built | None = None
        self._lock = threading.Lock()

    def matcher(self, *, proposed: bool = False) -> GlossaryMatcher:
        """Accepted entries; with ``proposed``, those waiting for the translator too."""
        built = self._current()
        return built.everything if proposed else built.accepted

    def entries(self) -> list[StoredEntry]:
        """Every entry as it stands, proposed ones included."""
        return self._current().stored

    def cast(self) -> BookCast:
        """The book's cast and address book as they stand."""
        return self._current().cast

    def _current(self) -> _Built:
        glossaries = self.store.glossaries_of(self.book_id)
        revision = self.store.revision(glossaries)
        with self._lock:
            if self._built is None or self._built.revision != revision:
                stored = self.store.current(glossaries)
                accepted = [s.entry for s in stored if s.entry.status is EntryStatus.ACCEPTED]
                everything = GlossaryMatcher([s.entry for s in stored])
                forms = self.store.addresses.current(glossaries)
                books = self.store.series_books(self.book_id)
                cast = BookCast(
                    self.book_id,
                    tuple(e for e in accepted if e.is_character),
                    tuple(s.entry for s in stored if s.entry.is_character),
                    tuple(f.form for f in forms),
                    {book: n for n, book in enumerate(books)},
                    in_series=len(glossaries) > 1,
                )
                self._built = _Built(revision, GlossaryMatcher(accepted), everything, stored, cast)
            return self._built


@dataclass(frozen=True, slots=True)
class BookCast:
    """A book's cast as a job reads it: its characters, its forms of address, and the books
    of its series in order (where a row's point of another volume falls)."""

    book_id: str
    characters: tuple[GlossaryEntry, ...]
    """The accepted characters."""
    everyone: tuple[GlossaryEntry, ...]
    """Every character, proposed ones included."""
    forms: tuple[FormOfAddress, ...]
    """Every row as it stands, proposed ones included."""
    order: dict[str, int]
    in_series: bool = False
    """The book is attached to a shared glossary: the series' memory speaks in its chunks."""

    @property
    def accepted_forms(self) -> tuple[FormOfAddress, ...]:
        return tuple(f for f in self.forms if f.status is EntryStatus.ACCEPTED)


@dataclass(frozen=True, slots=True)
class _Built:
    revision: tuple[object, ...]
    accepted: GlossaryMatcher
    everything: GlossaryMatcher
    stored: list[StoredEntry]
    cast: BookCast


def _stored(row: GlossaryEntryRow, glossary: GlossaryRef) -> StoredEntry:
    removed = row.status == REMOVED
    entry = GlossaryEntry(
        row.source,
        row.target,
        row.note,
        row.kind,
        tuple(row.aliases or ()),
        row.gender,
        row.reading,
        EntryStatus.ACCEPTED if removed else EntryStatus(row.status),
        row.pronoun,
        row.speech,
    )
    return StoredEntry(entry, glossary, row.origin, row.created_at, removed)


def _require_book(session: Session, book_id: str) -> None:
    if session.get(BookRow, book_id) is None:
        raise NotFoundError(f"no book with id {book_id!r}", terminal_hint="see `honyaku books`")
