"""A book's cast in the workbench: its page, and the API it edits through.

The characters (the variants of their names the book writes, gender, pronoun, how they
speak) and the address book as a table of speakers by listeners, each row with the chapters
it was seen in; proposals accepted or rejected, rows added and removed, characters changed.
Every change is a use case of ``honyaku.cast`` (characters are accepted through the
glossary's API, ``POST /api/books/{id}/glossary/accept``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from honyaku.application import AddressRow, CastMember, CastView
from honyaku.domain.forms_of_address import (
    MAX_FORM_CHARS,
    MAX_NOTE_CHARS,
    MAX_REGISTER_CHARS,
    FormOfAddress,
    Since,
)
from honyaku.domain.glossary import MAX_PRONOUN_CHARS, MAX_SPEECH_CHARS, EntryStatus
from honyaku.web.glossary import EntryIn
from honyaku.web.schemas import ERROR_RESPONSES
from honyaku.web.templating import page
from honyaku.web.workbench import App

MAX_CHAPTER = 100_000
MAX_PARAGRAPH = 1_000_000

router = APIRouter(responses=ERROR_RESPONSES)


class CharacterOut(BaseModel):
    source: str
    target: str
    aliases: list[str]
    gender: str
    pronoun: str = Field(description="The one set, else the one its gender takes.")
    pronoun_set: bool
    speech: str
    status: str
    glossary: str = Field(description='"book", or the shared glossary\'s name.')
    variants: list[tuple[str, int]] = Field(
        description="Each way the book writes its names, and how often, most often first."
    )

    @classmethod
    def of(cls, member: CastMember) -> CharacterOut:
        entry = member.entry
        return cls(
            source=entry.source,
            target=entry.target,
            aliases=list(entry.aliases),
            gender=entry.gender,
            pronoun=member.pronoun,
            pronoun_set=bool(entry.pronoun),
            speech=entry.speech,
            status=entry.status.value,
            glossary=member.stored.glossary.label,
            variants=list(member.variants),
        )


class CharacterIn(BaseModel):
    name: str = Field(min_length=1, max_length=200, description="Any variant of its names.")
    gender: str | None = Field(default=None, max_length=40)
    pronoun: str | None = Field(default=None, max_length=MAX_PRONOUN_CHARS)
    speech: str | None = Field(default=None, max_length=MAX_SPEECH_CHARS)


class FormIn(BaseModel):
    speaker: str = Field(max_length=MAX_FORM_CHARS)
    listener: str = Field(max_length=MAX_FORM_CHARS)
    source_form: str = Field(max_length=MAX_FORM_CHARS)
    rendering: str = Field(max_length=MAX_FORM_CHARS)
    # "register" names a method of pydantic's models: the field takes it as its alias.
    register_: str = Field(default="", alias="register", max_length=MAX_REGISTER_CHARS)
    note: str = Field(default="", max_length=MAX_NOTE_CHARS)
    since_chapter: int | None = Field(
        default=None, ge=1, le=MAX_CHAPTER, description="From this chapter on; null: throughout."
    )
    since_paragraph: int | None = Field(
        default=None, ge=1, le=MAX_PARAGRAPH, description="...from this paragraph of it."
    )
    series: str | None = Field(default=None, max_length=100)

    def form(self, book_id: str) -> FormOfAddress:
        since = None
        if self.since_chapter is not None:
            since = Since(book_id, self.since_chapter, (self.since_paragraph or 1) - 1)
        return FormOfAddress(
            self.speaker,
            self.listener,
            self.source_form,
            self.rendering,
            self.register_,
            self.note,
            since,
        )


class FormOut(BaseModel):
    key: str = Field(description="What names the row to remove, accept or reject it.")
    speaker: str
    listener: str
    source_form: str
    rendering: str
    register_: str = Field(alias="register")
    note: str
    since_chapter: int | None
    since_paragraph: int | None
    status: str
    glossary: str
    chapters: list[int] = Field(description="Where it was seen: both there, its form written.")

    @classmethod
    def of(cls, row: AddressRow) -> FormOut:
        form, since = row.form, row.form.since
        return cls(
            key=form.key,
            speaker=form.speaker,
            listener=form.listener,
            source_form=form.source_form,
            rendering=form.rendering,
            register=form.register,
            note=form.note,
            since_chapter=since.chapter if since else None,
            since_paragraph=since.index + 1 if since else None,
            status=form.status.value,
            glossary=row.stored.glossary.label,
            chapters=list(row.chapters),
        )


class CastOut(BaseModel):
    characters: list[CharacterOut]
    forms: list[FormOut]


class Keys(BaseModel):
    keys: list[str] = Field(
        default_factory=list, max_length=1000, description="Rows by key; empty for every one."
    )


class Key(BaseModel):
    key: str = Field(min_length=1, max_length=2000)


# -- the page ---------------------------------------------------------------------------


@router.get("/books/{book_id}/cast", include_in_schema=False)
async def cast_page(
    request: Request, honyaku: App, book_id: str, proposed: bool = False
) -> HTMLResponse:
    book = await honyaku.books.info(book_id)
    view = await honyaku.cast.view(book.id, proposed=proposed)
    waiting = [m.entry.source for m in view.members if m.entry.status is EntryStatus.PROPOSED]
    return page(
        request,
        "cast.html",
        book=book,
        view=view,
        proposed=proposed,
        waiting_characters=waiting,
        waiting_forms=sum(1 for row in view.rows if row.form.status is EntryStatus.PROPOSED),
        grid=_grid(view),
    )


def _grid(view: CastView) -> list[tuple[str, list[tuple[str, list[FormOut]]]]]:
    """The address book by speaker, then by listener: its cells, each with its rows."""
    rows = {id(row): FormOut.of(row) for row in view.rows}
    return [
        (
            speaker,
            [
                (listener, [rows[id(row)] for row in view.between(speaker, listener)])
                for listener in view.listeners
            ],
        )
        for speaker in view.speakers
    ]


# -- the API ----------------------------------------------------------------------------


@router.get("/api/books/{book_id}/cast")
async def get_cast(honyaku: App, book_id: str, proposed: bool = False) -> CastOut:
    """The characters the book sees and its address book (only proposals, with
    ``proposed``), with the variants and chapters the book shows."""
    return _cast_out(await honyaku.cast.view(book_id, proposed=proposed))


@router.post("/api/books/{book_id}/cast/characters")
async def set_character(honyaku: App, book_id: str, change: CharacterIn) -> EntryIn:
    """Change a character's gender, pronoun or speech (fields left out stay as they are)."""
    entry = await honyaku.cast.set_character(
        book_id, change.name, gender=change.gender, pronoun=change.pronoun, speech=change.speech
    )
    return EntryIn.from_entry(entry)


@router.post("/api/books/{book_id}/cast/forms", status_code=201)
async def add_form(honyaku: App, book_id: str, form: FormIn) -> FormOut:
    """Add a row to the address book, or change the one for the same speaker, listener, form
    and point: accepted."""
    book = await honyaku.books.info(book_id)
    made = await honyaku.cast.add_form(book.id, form.form(book.id), series=form.series)
    return _cast_out(await honyaku.cast.view(book.id), key=made.key).forms[0]


@router.post("/api/books/{book_id}/cast/forms/remove")
async def remove_form(honyaku: App, book_id: str, chosen: Key) -> list[str]:
    """Remove a row: a version that says so, kept in its history."""
    removed = await honyaku.cast.remove_form(book_id, chosen.key)
    return [removed.key]


@router.post("/api/books/{book_id}/cast/forms/accept")
async def accept_forms(honyaku: App, book_id: str, chosen: Keys) -> list[str]:
    """Accept the proposed rows of ``keys``, or every one."""
    return [form.key for form in await honyaku.cast.accept_forms(book_id, chosen.keys)]


@router.post("/api/books/{book_id}/cast/forms/reject")
async def reject_forms(honyaku: App, book_id: str, chosen: Keys) -> list[str]:
    """Reject the proposed rows of ``keys``, or every one: each removed as a version."""
    return [form.key for form in await honyaku.cast.reject_forms(book_id, chosen.keys)]


def _cast_out(view: CastView, *, key: str | None = None) -> CastOut:
    rows = [row for row in view.rows if key is None or row.form.key == key]
    return CastOut(
        characters=[CharacterOut.of(member) for member in view.members],
        forms=[FormOut.of(row) for row in rows],
    )
