"""A book's glossary in the workbench: its page, and the API it edits through.

Terms and characters listed and filtered, added, edited and removed, proposals accepted or
rejected (one by one or all), an entry's history, files in and out (CSV, TSV, GalTransl),
shared series attached and detached. Every change is a use case of ``honyaku.glossary``;
the extraction job is started like any job (``POST /api/books/{id}/jobs``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, Field
from starlette.background import BackgroundTask

from honyaku.application import Honyaku, StoredEntry
from honyaku.domain.glossary import (
    CHARACTER,
    DEFAULT_KIND,
    MAX_PRONOUN_CHARS,
    MAX_SPEECH_CHARS,
    EntryStatus,
    GlossaryEntry,
)
from honyaku.errors import UserError
from honyaku.web.schemas import ERROR_RESPONSES, Timestamp
from honyaku.web.templating import page
from honyaku.web.workbench import App

MAX_GLOSSARY_FILE_BYTES = 16 * 1024 * 1024
PAGE_ENTRIES = 200
"""Entries a page shows at once; a filter finds the others."""

router = APIRouter(responses=ERROR_RESPONSES)
GlossaryFormat = Literal["csv", "tsv", "txt"]
Kinds = Literal["all", "characters", "terms"]


class EntryIn(BaseModel):
    source: str = Field(max_length=200)
    target: str = Field(max_length=2000)
    note: str = Field(default="", max_length=4000)
    kind: str = Field(default=DEFAULT_KIND, max_length=40)
    aliases: list[str] = Field(default_factory=list, max_length=50)
    gender: str = Field(default="", max_length=40)
    reading: str = Field(default="", max_length=200)
    pronoun: str = Field(default="", max_length=MAX_PRONOUN_CHARS)
    speech: str = Field(default="", max_length=MAX_SPEECH_CHARS)

    @classmethod
    def from_entry(cls, entry: GlossaryEntry) -> EntryIn:
        return cls(
            source=entry.source,
            target=entry.target,
            note=entry.note,
            kind=entry.kind,
            aliases=list(entry.aliases),
            gender=entry.gender,
            reading=entry.reading,
            pronoun=entry.pronoun,
            speech=entry.speech,
        )

    def entry(self) -> GlossaryEntry:
        return GlossaryEntry(
            self.source,
            self.target,
            self.note,
            self.kind,
            tuple(self.aliases),
            self.gender,
            self.reading,
            pronoun=self.pronoun,
            speech=self.speech,
        )


class EntrySave(BaseModel):
    entry: EntryIn
    replaces: str | None = Field(
        default=None, description="The source of the entry being edited, if it changes."
    )
    series: str | None = None


class EntryOut(EntryIn):
    status: str
    glossary: str = Field(description='"book", or the shared glossary\'s name.')
    origin: str
    created_at: Timestamp
    removed: bool = False

    @classmethod
    def of(cls, stored: StoredEntry) -> EntryOut:
        return cls(
            **EntryIn.from_entry(stored.entry).model_dump(),
            status=stored.entry.status.value,
            glossary=stored.glossary.label,
            origin=stored.origin,
            created_at=stored.created_at,
            removed=stored.removed,
        )


class Sources(BaseModel):
    sources: list[str] = Field(
        default_factory=list, description="Proposed entries by source; empty for all of them."
    )
    series: str | None = None


class SourceRef(BaseModel):
    source: str = Field(min_length=1)
    series: str | None = None


class SeriesIn(BaseModel):
    name: str = Field(min_length=1, max_length=100)


class SeriesOut(BaseModel):
    attached: list[str]
    known: list[str]


class ImportOut(BaseModel):
    added: int
    changed: int
    unchanged: int


# -- the page ---------------------------------------------------------------------------


@router.get("/books/{book_id}/glossary", include_in_schema=False)
async def glossary_page(
    request: Request,
    honyaku: App,
    book_id: str,
    kind: Kinds = "all",
    q: str = "",
    proposed: bool = False,
    series: str | None = None,
) -> HTMLResponse:
    book = await honyaku.books.info(book_id)
    entries = await _entries(honyaku, book.id, kind, q, proposed, series or None)
    return page(
        request,
        "glossary.html",
        book=book,
        entries=entries[:PAGE_ENTRIES],
        total=len(entries),
        kind=kind,
        q=q,
        proposed=proposed,
        series=series or "",
        waiting=len(await honyaku.glossary.entries(book.id, status=EntryStatus.PROPOSED)),
        attached=await honyaku.glossary.series(book.id),
        known=await honyaku.glossary.all_series(),
        profiles=await honyaku.models.all(),
        character=CHARACTER,
    )


# -- the API ----------------------------------------------------------------------------


@router.get("/api/books/{book_id}/glossary")
async def list_entries(
    honyaku: App,
    book_id: str,
    kind: Kinds = "all",
    q: str = "",
    proposed: bool = False,
    series: str | None = None,
) -> list[EntryOut]:
    """The entries the book sees (or a shared glossary's), filtered."""
    return (await _entries(honyaku, book_id, kind, q, proposed, series))[:PAGE_ENTRIES]


async def _entries(
    honyaku: Honyaku, book_id: str, kind: Kinds, q: str, proposed: bool, series: str | None
) -> list[EntryOut]:
    characters = {"all": None, "characters": True, "terms": False}[kind]
    found = await honyaku.glossary.entries(
        book_id,
        series=series,
        status=EntryStatus.PROPOSED if proposed else None,
        characters=characters,
        query=q.strip(),
    )
    return [EntryOut.of(stored) for stored in found]


@router.post("/api/books/{book_id}/glossary", status_code=201)
async def save_entry(honyaku: App, book_id: str, save: EntrySave) -> EntryOut:
    """Add an entry, or change one (``replaces`` names its source before the change)."""
    glossary = honyaku.glossary
    if save.replaces:
        await glossary.edit(book_id, save.replaces, save.entry.entry(), series=save.series)
    else:
        await glossary.add(book_id, save.entry.entry(), series=save.series)
    history = await glossary.history(book_id, save.entry.source, series=save.series)
    return EntryOut.of(history[-1])


@router.post("/api/books/{book_id}/glossary/remove")
async def remove_entry(honyaku: App, book_id: str, ref: SourceRef) -> EntryIn:
    """Remove an entry: a version that says so, kept in its history."""
    removed = await honyaku.glossary.remove(book_id, ref.source, series=ref.series)
    return EntryIn.from_entry(removed)


@router.post("/api/books/{book_id}/glossary/accept")
async def accept_entries(honyaku: App, book_id: str, chosen: Sources) -> list[EntryIn]:
    accepted = await honyaku.glossary.accept(book_id, chosen.sources, series=chosen.series)
    return [EntryIn.from_entry(entry) for entry in accepted]


@router.post("/api/books/{book_id}/glossary/reject")
async def reject_entries(honyaku: App, book_id: str, chosen: Sources) -> list[EntryIn]:
    """Reject proposals: each removed as a version, so its history keeps it."""
    rejected = await honyaku.glossary.reject(book_id, chosen.sources, series=chosen.series)
    return [EntryIn.from_entry(entry) for entry in rejected]


@router.get("/api/books/{book_id}/glossary/history")
async def entry_history(
    honyaku: App, book_id: str, source: str, series: str | None = None
) -> list[EntryOut]:
    """Every version of the entry for ``source``, oldest first."""
    history = await honyaku.glossary.history(book_id, source, series=series)
    return [EntryOut.of(stored) for stored in history]


@router.post("/api/books/{book_id}/glossary/import")
async def import_entries(
    honyaku: App,
    book_id: str,
    file: Annotated[UploadFile, File(description="A .csv, .tsv or GalTransl .txt file.")],
    series: Annotated[str | None, Form()] = None,
) -> ImportOut:
    """Add a file's entries, accepted."""
    suffix = Path(file.filename or "").suffix.lower()
    if suffix not in (".csv", ".tsv", ".txt"):
        raise UserError("a glossary file is .csv, .tsv or .txt (GalTransl's dictionary)")
    data = await file.read(MAX_GLOSSARY_FILE_BYTES + 1)
    if len(data) > MAX_GLOSSARY_FILE_BYTES:
        raise UserError(
            "a glossary file is at most {size} MB", size=MAX_GLOSSARY_FILE_BYTES // 2**20
        )
    with tempfile.TemporaryDirectory(prefix="honyaku-glossary-") as folder:
        path = Path(folder) / f"glossary{suffix}"
        path.write_bytes(data)
        summary = await honyaku.glossary.import_file(book_id, path, series=series or None)
    return ImportOut(added=summary.added, changed=summary.changed, unchanged=summary.unchanged)


@router.get("/api/books/{book_id}/glossary/export", response_class=FileResponse)
async def export_entries(
    honyaku: App, book_id: str, format: GlossaryFormat = "csv", series: str | None = None
) -> FileResponse:
    """The entries the book sees (or a shared glossary's) as a file."""
    book = await honyaku.books.info(book_id)
    folder = Path(tempfile.mkdtemp(prefix="honyaku-glossary-"))
    path = folder / f"glossary.{format}"
    await honyaku.glossary.export_file(book.id, path, series=series or None)
    name = f"{series or book.title}.glossary.{format}"
    return FileResponse(path, filename=name, background=BackgroundTask(_remove, folder))


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()


@router.get("/api/books/{book_id}/glossary/series")
async def list_series(honyaku: App, book_id: str) -> SeriesOut:
    """The shared glossaries the book is attached to, and every one there is."""
    await honyaku.books.info(book_id)
    return SeriesOut(
        attached=await honyaku.glossary.series(book_id),
        known=await honyaku.glossary.all_series(),
    )


@router.post("/api/books/{book_id}/glossary/series", status_code=201)
async def attach_series(honyaku: App, book_id: str, series: SeriesIn) -> SeriesOut:
    """Attach a shared glossary (made if new)."""
    await honyaku.glossary.attach(book_id, series.name)
    return await list_series(honyaku, book_id)


@router.post("/api/books/{book_id}/glossary/series/detach")
async def detach_series(honyaku: App, book_id: str, series: SeriesIn) -> SeriesOut:
    await honyaku.glossary.detach(book_id, series.name)
    return await list_series(honyaku, book_id)
