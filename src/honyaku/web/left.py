"""What is left of a book, in the workbench: the paragraphs and chapter titles a job could
not translate, each with why ("needs you"), to write by hand, run again with another model
than the one that left them (``POST /api/books/{id}/jobs`` with their ids), or leave as they
are on purpose (``POST /api/books/{id}/left/as-is``: no job translates them, the export keeps
their source text, and they are listed apart, each undone in one click)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from honyaku.application import Honyaku, Leftover
from honyaku.web.schemas import (
    ERROR_RESPONSES,
    ChaptersQuery,
    LeftAsIsIn,
    LeftAsIsOut,
    LeftoverOut,
)
from honyaku.web.templating import page
from honyaku.web.workbench import App

PAGE_ITEMS = 200
"""Paragraphs and titles the page shows at once; chapters narrow to the others."""

router = APIRouter(responses=ERROR_RESPONSES)


@router.get("/books/{book_id}/left", include_in_schema=False)
async def left_page(
    request: Request, honyaku: App, book_id: str, chapters: str = ""
) -> HTMLResponse:
    book = await honyaku.books.info(book_id)
    found = await _leftover(honyaku, book.id, chapters)
    needs_you = found.needs_you
    left_by = {item.why.model for item in needs_you if item.why and item.why.model}
    offered = await honyaku.models.other_than(left_by)
    return page(
        request,
        "left.html",
        book=book,
        coverage=found.coverage,
        needs_you=needs_you[:PAGE_ITEMS],
        total=len(needs_you),
        untried=len(found.left) - len(needs_you),
        kept=found.kept[:PAGE_ITEMS],
        chapters=chapters,
        profiles=await honyaku.models.all(),
        offered=offered.name if offered else None,
    )


@router.get("/api/books/{book_id}/left")
async def list_left(honyaku: App, book_id: str, chapters: ChaptersQuery = "") -> LeftoverOut:
    """What is not translated yet (only in ``chapters``, e.g. ``1-3,7``, if given): each
    paragraph and chapter title, with why a job left it, and how much is translated."""
    return LeftoverOut.of(await _leftover(honyaku, book_id, chapters or ""))


@router.post("/api/books/{book_id}/left/as-is")
async def leave_as_is(honyaku: App, book_id: str, chosen: LeftAsIsIn) -> LeftAsIsOut:
    """Leave the paragraphs as they are on purpose (``left``: true), or no longer (false):
    no job translates them, and they are listed apart from what needs the translator."""
    changed = await honyaku.books.leave_as_is(book_id, chosen.paragraph_ids, left=chosen.left)
    return LeftAsIsOut(changed=changed)


async def _leftover(honyaku: Honyaku, book_id: str, chapters: str) -> Leftover:
    numbers = await honyaku.books.chapter_numbers(book_id, chapters)
    return await honyaku.books.left(book_id, chapters=numbers)
