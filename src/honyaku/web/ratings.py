"""What a rating job found, in the workbench: the rated paragraphs, lowest first, filtered by
score and by kind of problem, each linked to its place, and the chosen ones retranslated as
one job (``POST /api/books/{id}/jobs`` with their ids)."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from honyaku.application import Honyaku, RatedParagraph
from honyaku.domain.rating import HIGHEST, ISSUES, LOWEST
from honyaku.web.schemas import ERROR_RESPONSES, ChaptersQuery
from honyaku.web.templating import page
from honyaku.web.workbench import App

PAGE_PARAGRAPHS = 200
"""Rated paragraphs a page shows at once; a score, a problem or chapters narrow to others."""
Below = Annotated[
    int | None, Query(ge=LOWEST + 1, le=HIGHEST + 1, description="Scores under this.")
]
IssueQuery = Annotated[str, Query(max_length=40, description="Only those with this problem.")]

router = APIRouter(responses=ERROR_RESPONSES)


class RatedOut(BaseModel):
    chapter_number: int
    paragraph_id: str
    position: int
    text: str
    translation: str
    score: int
    issues: list[str]
    comment: str
    model: str

    @classmethod
    def of(cls, rated: RatedParagraph) -> RatedOut:
        return cls.model_validate(asdict(rated))


@router.get("/books/{book_id}/ratings", include_in_schema=False)
async def ratings_page(
    request: Request,
    honyaku: App,
    book_id: str,
    below: Below = None,
    issue: IssueQuery = "",
    chapters: str = "",
) -> HTMLResponse:
    book = await honyaku.books.info(book_id)
    every = await _rated(honyaku, book.id, chapters, below, "")
    issues = Counter(found for rated in every for found in rated.issues)
    shown = [rated for rated in every if not issue or issue in rated.issues]
    return page(
        request,
        "ratings.html",
        book=book,
        rated=shown[:PAGE_PARAGRAPHS],
        total=len(shown),
        issues=[(name, issues[name]) for name in ISSUES if issues[name]],
        scores=range(LOWEST + 1, HIGHEST + 2),
        below=below,
        issue=issue,
        chapters=chapters,
        profiles=await honyaku.models.all(),
    )


@router.get("/api/books/{book_id}/ratings")
async def list_ratings(
    honyaku: App,
    book_id: str,
    below: Below = None,
    issue: IssueQuery = "",
    chapters: ChaptersQuery = "",
) -> list[RatedOut]:
    """The paragraphs whose selected translation a rating job scored, lowest score first
    (book order among equals): only those under ``below``, with ``issue``, in ``chapters``
    (e.g. ``1-3,7``), if given."""
    found = await _rated(honyaku, book_id, chapters or "", below, issue)
    return [RatedOut.of(rated) for rated in found[:PAGE_PARAGRAPHS]]


async def _rated(
    honyaku: Honyaku, book_id: str, chapters: str, below: int | None, issue: str
) -> list[RatedParagraph]:
    numbers = await honyaku.books.chapter_numbers(book_id, chapters)
    found = await honyaku.books.rated(book_id, below=below, chapters=numbers)
    return sorted(
        (rated for rated in found if not issue or issue in rated.issues),
        key=lambda rated: rated.score,
    )
