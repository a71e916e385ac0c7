"""The paragraphs the quality checks flagged, in the workbench: their page, by kind of
warning, each linked to its place in its chapter; a warning dismissed by the translator; the
flagged paragraphs retranslated as one job (``POST /api/books/{id}/jobs`` with their ids)."""

from __future__ import annotations

from collections import Counter

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from honyaku.application import FlaggedParagraph, Honyaku
from honyaku.web.schemas import ERROR_RESPONSES, ChaptersQuery
from honyaku.web.templating import page
from honyaku.web.workbench import App

PAGE_PARAGRAPHS = 200
"""Flagged paragraphs a page shows at once; a kind or a chapter narrows to the others."""

router = APIRouter(responses=ERROR_RESPONSES)


class WarningOut(BaseModel):
    code: str
    message: str


class FlaggedOut(BaseModel):
    chapter_number: int
    chapter_id: str
    paragraph_id: str
    index: int = Field(description="Position in the chapter, empty paragraphs counted.")
    text: str
    translation: str
    warnings: list[WarningOut]

    @classmethod
    def of(cls, flagged: FlaggedParagraph) -> FlaggedOut:
        return cls(
            chapter_number=flagged.chapter_number,
            chapter_id=flagged.chapter_id,
            paragraph_id=flagged.paragraph_id,
            index=flagged.index,
            text=flagged.text,
            translation=flagged.translation,
            warnings=[WarningOut(code=w.code, message=w.message) for w in flagged.warnings],
        )


class Dismissal(BaseModel):
    codes: list[str] = Field(
        default_factory=list, description="The warnings' codes; empty for all of them."
    )


class Dismissed(BaseModel):
    dismissed: int


@router.get("/books/{book_id}/quality", include_in_schema=False)
async def quality_page(
    request: Request, honyaku: App, book_id: str, kind: str = "", chapters: str = ""
) -> HTMLResponse:
    book = await honyaku.books.info(book_id)
    every = await _flagged(honyaku, book.id, chapters, "")
    kinds = Counter(w.code for f in every for w in f.warnings)
    shown = [f for f in every if not kind or any(w.code == kind for w in f.warnings)]
    return page(
        request,
        "quality.html",
        book=book,
        flagged=shown[:PAGE_PARAGRAPHS],
        total=len(shown),
        kinds=sorted(kinds.items()),
        kind=kind,
        chapters=chapters,
        profiles=await honyaku.models.all(),
    )


@router.get("/api/books/{book_id}/flagged")
async def list_flagged(
    honyaku: App, book_id: str, chapters: ChaptersQuery = "", kind: str = ""
) -> list[FlaggedOut]:
    """Paragraphs whose selected translation has warnings (of ``kind``, if given), in book
    order; only in ``chapters`` (e.g. ``1-3,7``) if given."""
    return (await _flagged(honyaku, book_id, chapters or "", kind))[:PAGE_PARAGRAPHS]


async def _flagged(honyaku: Honyaku, book_id: str, chapters: str, kind: str) -> list[FlaggedOut]:
    numbers = await honyaku.books.chapter_numbers(book_id, chapters)
    found = await honyaku.books.flagged(book_id, chapters=numbers)
    return [FlaggedOut.of(f) for f in found if not kind or any(w.code == kind for w in f.warnings)]


@router.post("/api/books/{book_id}/paragraphs/{paragraph_id}/warnings/dismiss")
async def dismiss_warnings(
    honyaku: App, book_id: str, paragraph_id: str, dismissal: Dismissal
) -> Dismissed:
    """The translator found no mistake: the warnings stay dismissed on this version."""
    count = await honyaku.books.dismiss_warnings(book_id, paragraph_id, dismissal.codes)
    return Dismissed(dismissed=count)
