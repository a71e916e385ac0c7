"""A book's new edition from the workbench: ``POST /api/books/{id}/edition``, as
``honyaku import --update`` does it, with a dry run that only says what would change."""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile
from pydantic import BaseModel, Field

from honyaku.web.schemas import ERROR_RESPONSES
from honyaku.web.uploads import save_capped, uploaded_file_name
from honyaku.web.workbench import Bench

router = APIRouter(prefix="/api", responses=ERROR_RESPONSES)


class Tally(BaseModel):
    unchanged: int
    changed: int
    new: int
    gone: int


class EditionOut(BaseModel):
    book_id: str
    edition: int | None = Field(description="The edition written; null for a dry run.")
    chapters: Tally
    moved_chapters: int
    paragraphs: Tally = Field(description="Paragraphs with text; empty ones are layout.")
    book_paragraphs: int = Field(description="The book's paragraphs before the edition.")


@router.post("/books/{book_id}/edition")
async def import_edition(
    bench: Bench,
    book_id: str,
    file: Annotated[UploadFile, File(description="The new edition: TXT, XHTML or EPUB.")],
    dry_run: Annotated[bool, Form(description="Only say what would change.")] = False,
    force: Annotated[
        bool, Form(description="Take a file that holds almost nothing of the book.")
    ] = False,
) -> EditionOut:
    """Make the file the book's new edition, keeping every translation that still fits."""
    with tempfile.TemporaryDirectory(prefix="honyaku-upload-") as folder:
        path = Path(folder) / uploaded_file_name(file.filename)
        await save_capped(file, path, bench.upload_limit_bytes)
        honyaku = bench.honyaku
        updated = await honyaku.editions.update(
            await honyaku.books.resolve(book_id), path, dry_run=dry_run, force=force
        )
    summary = updated.summary
    return EditionOut(
        book_id=updated.id,
        edition=updated.edition,
        chapters=Tally(**asdict(summary.chapters)),
        moved_chapters=summary.moved_chapters,
        paragraphs=Tally(**asdict(summary.paragraphs)),
        book_paragraphs=summary.book_paragraphs,
    )
