"""Each glossary's address book: its forms of address, versioned like its entries.

Rows are only ever added: the latest of a key (speaker, listener, form and point, normalized)
is the row as it stands, and a removal is a version of its own. A book sees the rows of its
own glossary over those of the shared ones it is attached to, as for entries
(``store.glossary``): where both hold a key, the book's own row wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, insert, select

from honyaku.domain.forms_of_address import FormOfAddress, Since
from honyaku.domain.glossary import EntryStatus
from honyaku.store.chunks import Held, hold
from honyaku.store.database import Database
from honyaku.store.schema import AddressFormRow, table_of, utc_now

if TYPE_CHECKING:
    from honyaku.store.glossary import GlossaryRef

REMOVED = "removed"


@dataclass(frozen=True, slots=True)
class StoredForm:
    """A row as it stands in one glossary's address book, or one of its past versions."""

    form: FormOfAddress
    glossary: GlossaryRef
    origin: str
    created_at: datetime
    removed: bool = False


class AddressBookStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def add(
        self,
        glossary: GlossaryRef,
        forms: Iterable[FormOfAddress],
        *,
        origin: str,
        claim: Held | None = None,
    ) -> None:
        """Add a version of each row, all in one transaction; made under a chunk's
        ``claim``, only while that claim stands."""
        self._insert(glossary.id, [(form, form.status.value) for form in forms], origin, claim)

    def remove(self, glossary: GlossaryRef, forms: Iterable[FormOfAddress], *, origin: str) -> None:
        self._insert(glossary.id, [(form, REMOVED) for form in forms], origin)

    def _insert(
        self,
        glossary_id: int,
        rows: list[tuple[FormOfAddress, str]],
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
                insert(table_of(AddressFormRow)),
                [
                    {
                        "glossary_id": glossary_id,
                        "key": form.key,
                        "speaker": form.speaker,
                        "listener": form.listener,
                        "source_form": form.source_form,
                        "rendering": form.rendering,
                        "register": form.register,
                        "note": form.note,
                        "since_book": form.since.book_id if form.since else None,
                        "since_chapter": form.since.chapter if form.since else None,
                        "since_index": form.since.index if form.since else None,
                        "status": status,
                        "origin": origin,
                        "created_at": now,
                    }
                    for form, status in rows
                ],
            )

    def latest_pk(self, glossaries: Sequence[GlossaryRef]) -> int | None:
        """Changes whenever a row of these glossaries changes."""
        with self.database.transaction() as session:
            return session.scalar(
                select(func.max(AddressFormRow.pk)).where(
                    AddressFormRow.glossary_id.in_([g.id for g in glossaries])
                )
            )

    def current(self, glossaries: Sequence[GlossaryRef]) -> list[StoredForm]:
        """The rows as they stand, removed ones left out; for a key several glossaries hold,
        the first glossary's. In the order they were first written."""
        names = {g.id: g for g in glossaries}
        with self.database.transaction() as session:
            latest = (
                select(func.max(AddressFormRow.pk))
                .where(AddressFormRow.glossary_id.in_(list(names)))
                .group_by(AddressFormRow.glossary_id, AddressFormRow.key)
            )
            rows = session.scalars(
                select(AddressFormRow).where(AddressFormRow.pk.in_(latest))
            ).all()
            first = dict(
                session.execute(
                    select(AddressFormRow.key, func.min(AddressFormRow.pk))
                    .where(AddressFormRow.glossary_id.in_(list(names)))
                    .group_by(AddressFormRow.key)
                ).all()
            )
        rank = {g.id: n for n, g in enumerate(glossaries)}
        chosen: dict[str, AddressFormRow] = {}
        for row in sorted(rows, key=lambda r: rank[r.glossary_id]):
            chosen.setdefault(row.key, row)
        stored = [_stored(row, names[row.glossary_id]) for row in chosen.values()]
        stored.sort(key=lambda s: first[s.form.key])
        return [s for s in stored if not s.removed]

    def history(self, glossaries: Sequence[GlossaryRef], key: str) -> list[StoredForm]:
        """Every version of the row of ``key`` in these glossaries, oldest first."""
        names = {g.id: g for g in glossaries}
        with self.database.transaction() as session:
            rows = session.scalars(
                select(AddressFormRow)
                .where(AddressFormRow.glossary_id.in_(list(names)), AddressFormRow.key == key)
                .order_by(AddressFormRow.pk)
            )
            return [_stored(row, names[row.glossary_id]) for row in rows]


def _stored(row: AddressFormRow, glossary: GlossaryRef) -> StoredForm:
    removed = row.status == REMOVED
    since = None
    if row.since_book is not None and row.since_chapter is not None:
        since = Since(row.since_book, row.since_chapter, row.since_index or 0)
    form = FormOfAddress(
        row.speaker,
        row.listener,
        row.source_form,
        row.rendering,
        row.register,
        row.note,
        since,
        EntryStatus.ACCEPTED if removed else EntryStatus(row.status),
    )
    return StoredForm(form, glossary, row.origin, row.created_at, removed)
