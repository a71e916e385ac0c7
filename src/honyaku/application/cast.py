"""A book's cast and address book as the translator reads and edits them, from the terminal
or the web app alike.

The cast is the glossary's characters (``domain.cast``): each shown with the variants of its
names the book writes (空太, 空太先輩, 空太くん: ``domain.honorifics``) and the pronoun it takes.
The address book is the rows of the glossaries the book sees (``store.address_book``), each
with the chapters it was seen in: where its two characters both appear and its form is
written. A translator's rows and changes go to the book's home glossary (its series', else its
own: the series carries its cast and address book), or to the shared glossary ``series``
names; what a model proposed waits for ``accept`` or ``reject``. Every change is a version.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from honyaku.domain.cast import default_pronoun, resolve_character
from honyaku.domain.forms_of_address import (
    FormOfAddress,
    Since,
    chapters_seen,
    clean_form,
)
from honyaku.domain.glossary import (
    CHARACTER,
    EntryStatus,
    GlossaryEntry,
    GlossaryMatcher,
    clean_entry,
    match_key,
)
from honyaku.domain.honorifics import base_name, honorific_forms
from honyaku.errors import NotFoundError, UserError
from honyaku.store import GlossaryRef, StoredEntry, StoredForm, Stores

MANUAL = "manual"


@dataclass(frozen=True, slots=True)
class CastMember:
    """A character as the cast page shows it."""

    stored: StoredEntry
    variants: tuple[tuple[str, int], ...]
    """Each way the book writes its names (空太, 空太先輩…) and how often, most often first."""
    pronoun: str
    """Its pronoun: the one set, else the one its gender takes in the target language."""

    @property
    def entry(self) -> GlossaryEntry:
        return self.stored.entry


@dataclass(frozen=True, slots=True)
class AddressRow:
    """A row of the address book as the cast page shows it."""

    stored: StoredForm
    chapters: tuple[int, ...]
    """Where it was seen: its two characters both there, its form written."""

    @property
    def form(self) -> FormOfAddress:
        return self.stored.form


@dataclass(frozen=True, slots=True)
class CastView:
    members: list[CastMember]
    rows: list[AddressRow]

    @property
    def speakers(self) -> list[str]:
        """Who addresses someone, in the cast's order."""
        return self._names(row.form.speaker for row in self.rows)

    @property
    def listeners(self) -> list[str]:
        return self._names(row.form.listener for row in self.rows)

    def between(self, speaker: str, listener: str) -> list[AddressRow]:
        return [r for r in self.rows if (r.form.speaker, r.form.listener) == (speaker, listener)]

    def _names(self, names: Iterable[str]) -> list[str]:
        wanted = set(names)
        ordered = [m.entry.source for m in self.members if m.entry.source in wanted]
        return ordered + sorted(wanted - set(ordered))


class Cast:
    def __init__(self, stores: Stores) -> None:
        self._stores = stores

    async def view(self, book_id: str, *, proposed: bool = False) -> CastView:
        """The characters the book sees and its address book (only what waits for the
        translator, with ``proposed``), with the variants and chapters the book shows."""
        return await asyncio.to_thread(self._view, book_id, proposed)

    async def set_character(
        self,
        book_id: str,
        name: str,
        *,
        gender: str | None = None,
        pronoun: str | None = None,
        speech: str | None = None,
    ) -> GlossaryEntry:
        """Change what the cast keeps of the character ``name`` means (any variant of its
        names): a new version of its entry, accepted, in the glossary that holds it."""
        return await asyncio.to_thread(self._set_character, book_id, name, gender, pronoun, speech)

    async def add_form(
        self, book_id: str, form: FormOfAddress, *, series: str | None = None
    ) -> FormOfAddress:
        """Add a row, or change the one for the same speaker, listener, form and point:
        accepted, the translator's word. Speaker and listener are characters of the cast."""
        return await asyncio.to_thread(self._add_form, book_id, form, series)

    async def remove_form(self, book_id: str, key: str) -> FormOfAddress:
        """Remove the row of ``key`` (``FormOfAddress.key``), as a version of its own."""
        return await asyncio.to_thread(self._remove_form, book_id, key)

    async def accept_forms(self, book_id: str, keys: Sequence[str] = ()) -> list[FormOfAddress]:
        """Accept the proposed rows of ``keys``, or every proposed row if none given."""
        return await asyncio.to_thread(self._settle, book_id, keys, accept=True)

    async def reject_forms(self, book_id: str, keys: Sequence[str] = ()) -> list[FormOfAddress]:
        """Reject the proposed rows of ``keys``, or every one: each removed as a version."""
        return await asyncio.to_thread(self._settle, book_id, keys, accept=False)

    async def find_forms(
        self, book_id: str, speaker: str, listener: str, source_form: str
    ) -> list[StoredForm]:
        """The rows (from any point) by which ``speaker`` addresses ``listener`` as
        ``source_form``, speaker and listener named by any variant of their names."""

        def find() -> list[StoredForm]:
            store = self._stores.glossary
            glossaries = store.glossaries_of(book_id)
            characters = [s.entry for s in store.current(glossaries) if s.entry.is_character]
            who = [resolve_character(name, characters) for name in (speaker, listener)]
            wanted = (
                match_key(who[0].source if who[0] else speaker),
                match_key(who[1].source if who[1] else listener),
                match_key(source_form),
            )
            return [s for s in store.addresses.current(glossaries) if s.form.row == wanted]

        return await asyncio.to_thread(find)

    async def history(self, book_id: str, key: str) -> list[StoredForm]:
        """Every version of the row of ``key``, oldest first."""

        def history() -> list[StoredForm]:
            store = self._stores.glossary
            return store.addresses.history(store.glossaries_of(book_id), key)

        return await asyncio.to_thread(history)

    # -- in a worker thread ----------------------------------------------------------------

    def _view(self, book_id: str, proposed: bool) -> CastView:
        stores = self._stores
        book = stores.library.whole_book(book_id)
        glossaries = stores.glossary.glossaries_of(book_id)
        characters = [s for s in stores.glossary.current(glossaries) if s.entry.is_character]
        forms = stores.glossary.addresses.current(glossaries)
        if proposed:
            characters = [s for s in characters if s.entry.status is EntryStatus.PROPOSED]
            forms = [f for f in forms if f.form.status is EntryStatus.PROPOSED]
        entries = [s.entry for s in characters]
        texts = [p.text for chapter in book.chapters for p in chapter.work_paragraphs]
        names = {name: stored.entry.key for stored in characters for name in _names(stored.entry)}
        seen = honorific_forms(texts, names)
        members = [
            CastMember(
                stored,
                tuple(seen.get(stored.entry.key, Counter()).most_common()),
                stored.entry.pronoun or default_pronoun(stored.entry.gender, book.target_lang),
            )
            for stored in characters
        ]
        matcher = GlossaryMatcher(entries)
        chapters = [
            (
                chapter.order,
                match_key("\n".join(p.text for p in chapter.work_paragraphs)),
                {e.key for e in matcher.find(p.text for p in chapter.work_paragraphs)},
            )
            for chapter in book.chapters
        ]
        rows = [
            AddressRow(stored, tuple(chapters_seen(stored.form, chapters, entries)))
            for stored in forms
        ]
        return CastView(members, rows)

    def _set_character(
        self,
        book_id: str,
        name: str,
        gender: str | None,
        pronoun: str | None,
        speech: str | None,
    ) -> GlossaryEntry:
        store = self._stores.glossary
        glossaries = store.glossaries_of(book_id)
        characters = [s for s in store.current(glossaries) if s.entry.is_character]
        entry = resolve_character(name, [s.entry for s in characters])
        if entry is None:
            raise NotFoundError("no character named {name!r} in the cast", name=name)
        [stored] = [s for s in characters if s.entry is entry]
        changed = replace(
            entry,
            gender=entry.gender if gender is None else gender,
            pronoun=entry.pronoun if pronoun is None else pronoun,
            speech=entry.speech if speech is None else speech,
            status=EntryStatus.ACCEPTED,
        )
        try:
            changed = clean_entry(changed)
        except ValueError as exc:
            raise UserError(f"glossary entry: {exc}") from None
        if changed != entry:
            store.add(stored.glossary, [changed], origin=MANUAL)
        return changed

    def _add_form(self, book_id: str, form: FormOfAddress, series: str | None) -> FormOfAddress:
        store = self._stores.glossary
        try:
            cleaned = clean_form(replace(form, status=EntryStatus.ACCEPTED))
        except ValueError as exc:
            raise UserError(f"form of address: {exc}") from None
        characters = [s.entry for s in store.current(store.glossaries_of(book_id))]
        characters = [entry for entry in characters if entry.kind == CHARACTER]
        named = {}
        for role in ("speaker", "listener"):
            name = getattr(cleaned, role)
            found = resolve_character(name, characters)
            if found is None:
                raise UserError(
                    "no character named {name!r} in the cast: add them to the glossary as a "
                    "character first",
                    name=name,
                )
            named[role] = found.source
        if cleaned.since is not None and cleaned.since.book_id != book_id:
            raise UserError("a point of the book is in the book itself")
        if cleaned.since is not None:
            self._check_point(book_id, cleaned.since)
        made = replace(cleaned, speaker=named["speaker"], listener=named["listener"])
        store.addresses.add(self._target(book_id, series), [made], origin=MANUAL)
        return made

    def _check_point(self, book_id: str, since: Since) -> None:
        count = self._stores.library.chapter_count(book_id)
        if since.chapter > count:
            raise UserError(
                "the book has {count} chapters, not {chapter}", count=count, chapter=since.chapter
            )

    def _remove_form(self, book_id: str, key: str) -> FormOfAddress:
        store = self._stores.glossary
        found = next(
            (s for s in store.addresses.current(store.glossaries_of(book_id)) if s.form.key == key),
            None,
        )
        if found is None:
            raise NotFoundError("no such form of address in the book's address book")
        store.addresses.remove(found.glossary, [found.form], origin=MANUAL)
        return found.form

    def _settle(self, book_id: str, keys: Sequence[str], *, accept: bool) -> list[FormOfAddress]:
        store = self._stores.glossary
        waiting = {
            s.form.key: s
            for s in store.addresses.current(store.glossaries_of(book_id))
            if s.form.status is EntryStatus.PROPOSED
        }
        if unknown := [key for key in keys if key not in waiting]:
            raise NotFoundError(
                "no proposed form of address {forms}",
                forms=", ".join(repr(k.replace("\x1f", " ").strip()) for k in unknown),
            )
        chosen = [waiting[key] for key in (keys or list(waiting))]
        settled = []
        for stored in chosen:
            if accept:
                form = replace(stored.form, status=EntryStatus.ACCEPTED)
                store.addresses.add(stored.glossary, [form], origin=MANUAL)
            else:
                form = stored.form
                store.addresses.remove(stored.glossary, [form], origin=MANUAL)
            settled.append(form)
        return settled

    def _target(self, book_id: str, series: str | None) -> GlossaryRef:
        store = self._stores.glossary
        if series is None:
            return store.home_glossary(book_id)
        glossary = store.shared(series)
        store.attach(book_id, glossary)
        return glossary


def _names(entry: GlossaryEntry) -> list[str]:
    """Every name a character goes by, and the base of each."""
    names = [entry.source, *entry.aliases]
    return list(dict.fromkeys([*names, *(base_name(name) for name in names)]))
