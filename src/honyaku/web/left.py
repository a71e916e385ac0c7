"""What is left of a book, in the workbench: the paragraphs and chapter titles a job could
not translate, each with why ("needs you"), to write by hand, run again with another model
(``POST /api/books/{id}/jobs`` with their ids), or leave as they are (the export keeps their
source text and says how many were left)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from honyaku.application import Honyaku, Leftover
from honyaku.web.schemas import ERROR_RESPONSES, ChaptersQuery, LeftoverOut
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
    return page(
        request,
        "left.html",
        book=book,
        coverage=found.coverage,
        needs_you=needs_you[:PAGE_ITEMS],
        total=len(needs_you),
        untried=len(found.left) - len(needs_you),
        chapters=chapters,
        profiles=await honyaku.models.all(),
    )


@router.get("/api/books/{book_id}/left")
async def list_left(honyaku: App, book_id: str, chapters: ChaptersQuery = "") -> LeftoverOut:
    """What is not translated yet (only in ``chapters``, e.g. ``1-3,7``, if given): each
    paragraph and chapter title, with why a job left it, and how much is translated."""
    return LeftoverOut.of(await _leftover(honyaku, book_id, chapters or ""))


async def _leftover(honyaku: Honyaku, book_id: str, chapters: str) -> Leftover:
    numbers = await honyaku.books.chapter_numbers(book_id, chapters)
    return await honyaku.books.left(book_id, chapters=numbers)
