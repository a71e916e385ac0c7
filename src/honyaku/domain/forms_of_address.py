"""Forms of address: how a speaker addresses a listener, the address book's rows.

A row says that the speaker calls the listener by a **source form** (先輩, お兄ちゃん, 様, a bare
name) rendered as its **rendering** (学长, 哥哥, 大人), in a **register** where the target
language has one (你/您, tu/vous, du/Sie), optionally from a point of the book on (``Since``:
a chapter, and a paragraph of it): relationships change, and a later row for the same speaker,
listener and form takes over from its point. Speaker and listener are characters of the cast,
named as the glossary names them (any variant resolves, ``domain.cast.resolve_character``).

A chunk is given the rows of the pairs whose two characters both appear in it, and only those
(``rows_for``), the rows in force where it starts and those that begin inside it. A point of
another book of the series counts by the series' order of its books (``Place.order``).

``address_forms_missing`` is the check a batch's result carries: where the source writes a
row's form, the translation should hold its rendering. Forms are found longest first, so
空太先輩 is not also 先輩; where several rows give a form, any of their renderings will do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from honyaku.domain.cast import resolve_character
from honyaku.domain.glossary import EntryStatus, GlossaryEntry, match_key

MAX_FORM_CHARS = 100
MAX_REGISTER_CHARS = 20
MAX_NOTE_CHARS = 500


@dataclass(frozen=True, slots=True, order=True)
class Since:
    """A point of a book: chapter ``chapter`` (from 1), from its paragraph at ``index``."""

    book_id: str
    chapter: int
    index: int = 0

    def label(self, *, chapter: bool = True) -> str:
        """``chapter 3, [12]``; ``[12]`` alone without ``chapter``, in its own chapter."""
        at = f"[{self.index + 1}]" if self.index else ""
        if at and not chapter:
            return at
        return f"chapter {self.chapter}" + (f", {at}" if at else "")


@dataclass(frozen=True, slots=True)
class FormOfAddress:
    speaker: str
    listener: str
    source_form: str
    """As the source writes it: 先輩, お兄ちゃん, 空太くん, a bare name."""
    rendering: str
    register: str = ""
    """The target language's register where it has one: 您, 你, vous, Sie."""
    note: str = ""
    since: Since | None = None
    status: EntryStatus = EntryStatus.ACCEPTED

    @property
    def row(self) -> tuple[str, str, str]:
        """Who addresses whom by which form, whatever the point it holds from."""
        return (match_key(self.speaker), match_key(self.listener), match_key(self.source_form))

    @property
    def key(self) -> str:
        """What identifies the row in its address book: its ``row`` and its point."""
        since = self.since
        point = f"{since.book_id}:{since.chapter}:{since.index}" if since else ""
        return "\x1f".join((*self.row, point))

    def line(self, *, since_shown: str = "") -> str:
        """``- speaker → listener: form → rendering (register; note; from …)``."""
        details = [part for part in (self.register, self.note, since_shown) if part]
        about = f" ({'; '.join(details)})" if details else ""
        return f"- {self.speaker} → {self.listener}: {self.source_form} → {self.rendering}{about}"


def clean_form(form: FormOfAddress) -> FormOfAddress:
    """The row with its fields trimmed; raises ``ValueError`` for a blank or overlong one."""
    speaker, listener, source_form, rendering = (
        _field(form.speaker, "speaker"),
        _field(form.listener, "listener"),
        _field(form.source_form, "source form"),
        _field(form.rendering, "rendering"),
    )
    if match_key(speaker) == match_key(listener):
        raise ValueError(f"{speaker} addresses someone else, not themselves")
    register = " ".join(form.register.split())
    if len(register) > MAX_REGISTER_CHARS:
        raise ValueError(f"the register is longer than {MAX_REGISTER_CHARS} characters")
    note = " ".join(form.note.split())[:MAX_NOTE_CHARS]
    if form.since is not None and (form.since.chapter < 1 or form.since.index < 0):
        raise ValueError("a point of the book is a chapter from 1 and a paragraph from 1")
    return replace(
        form,
        speaker=speaker,
        listener=listener,
        source_form=source_form,
        rendering=rendering,
        register=register,
        note=note,
    )


def _field(value: str, name: str) -> str:
    cleaned = " ".join(value.split())
    if not cleaned:
        raise ValueError(f"the {name} is blank")
    if len(cleaned) > MAX_FORM_CHARS:
        raise ValueError(f"the {name} is longer than {MAX_FORM_CHARS} characters")
    return cleaned


@dataclass(frozen=True, slots=True)
class Place:
    """Where a chunk is: its book, its first and last paragraphs (chapter, index), and the
    series' books in order."""

    book_id: str
    start: tuple[int, int]
    end: tuple[int, int]
    order: Mapping[str, int] = field(default_factory=dict)
    """Each book of the series by its rank (earlier volumes first); the chunk's own book in it."""

    def rank(self, since: Since) -> tuple[int, int, int] | None:
        """Where ``since`` is on the series' line; ``None`` for a book not in the series."""
        book = self.order.get(since.book_id)
        if book is None and since.book_id == self.book_id:
            book = 0
        return None if book is None else (book, since.chapter, since.index)

    def point(self, at: tuple[int, int]) -> tuple[int, int, int]:
        return (self.order.get(self.book_id, 0), *at)


@dataclass(frozen=True, slots=True)
class Shown:
    """A row as a chunk is given it: in force from its start, or from a point inside it."""

    form: FormOfAddress
    begins_inside: bool = False


def in_force(forms: Iterable[FormOfAddress], place: Place) -> list[Shown]:
    """The rows in force at ``place``: for each speaker, listener and form, the row of the
    latest point at or before the chunk's start, and the rows whose point is inside it."""
    start, end = place.point(place.start), place.point(place.end)
    by_row: dict[tuple[str, str, str], list[tuple[tuple[int, int, int], FormOfAddress]]] = {}
    for form in forms:
        rank = (-1, 0, 0) if form.since is None else place.rank(form.since)
        if rank is not None and rank <= end:
            by_row.setdefault(form.row, []).append((rank, form))
    shown: list[Shown] = []
    for versions in by_row.values():
        versions.sort(key=lambda version: version[0])
        before = [form for rank, form in versions if rank <= start]
        if before:
            shown.append(Shown(before[-1]))
        shown += [Shown(form, True) for rank, form in versions if start < rank <= end]
    return shown


def rows_for(
    forms: Iterable[FormOfAddress],
    named: Iterable[GlossaryEntry],
    characters: Sequence[GlossaryEntry],
    place: Place,
) -> list[Shown]:
    """The rows a chunk at ``place`` is given: those in force whose speaker and listener are
    both among the characters ``named`` in it, in the order of ``forms``."""
    present = {character.key for character in named}
    between = []
    for shown in in_force(forms, place):
        speaker = resolve_character(shown.form.speaker, characters)
        listener = resolve_character(shown.form.listener, characters)
        if speaker and listener and speaker.key in present and listener.key in present:
            between.append(shown)
    return between


def forms_in(text: str, forms: Iterable[FormOfAddress]) -> dict[str, list[FormOfAddress]]:
    """The forms ``text`` writes, by their normalized source form, with the rows giving
    each: found longest first, so a form inside a longer one found there is not counted."""
    by_form: dict[str, list[FormOfAddress]] = {}
    for form in forms:
        by_form.setdefault(match_key(form.source_form), []).append(form)
    folded = match_key(text)
    taken = [False] * len(folded)
    found: dict[str, list[FormOfAddress]] = {}
    for key in sorted(by_form, key=len, reverse=True):
        start = folded.find(key)
        while start >= 0:
            span = range(start, start + len(key))
            if not any(taken[i] for i in span):
                for i in span:
                    taken[i] = True
                found[key] = by_form[key]
            start = folded.find(key, start + 1)
    return found


def address_forms_missing(
    source: str, translation: str, forms: Iterable[FormOfAddress]
) -> str | None:
    """What is missing, where ``source`` writes a form of the rows ``forms`` and
    ``translation`` holds none of its renderings; ``None`` where nothing is."""
    written = match_key(translation)
    missing = []
    for rows in forms_in(source, forms).values():
        if not any(match_key(row.rendering) in written for row in rows):
            missing.append(rows)
    if not missing:
        return None
    told = "; ".join(
        " or ".join(
            f"{row.source_form} → {row.rendering} ({row.speaker} → {row.listener})" for row in rows
        )
        for rows in missing
    )
    return f"the address book's rendering is not in the translation: {told}"


def chapters_seen(
    form: FormOfAddress,
    chapters: Sequence[tuple[int, str, set[str]]],
    characters: Sequence[GlossaryEntry],
) -> list[int]:
    """The chapters (numbers) where the row's two characters both appear and its form is
    written, given each chapter's number, its normalized text and the keys of the
    characters named in it."""
    speaker = resolve_character(form.speaker, characters)
    listener = resolve_character(form.listener, characters)
    if speaker is None or listener is None:
        return []
    wanted = match_key(form.source_form)
    return [
        number
        for number, text, named in chapters
        if speaker.key in named and listener.key in named and wanted in text
    ]
