"""The workbench's pages, rendered on the server: plain URLs a person can bookmark.

They show what the library holds; everything they change goes through the JSON API, from a
few small scripts (``static/js``).
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from honyaku.application import PAGE_BOOKS, PAGE_PARAGRAPHS, PROVIDER_KINDS, TOOL_NAMES
from honyaku.web import i18n
from honyaku.web.api import MAX_NUMBER, job_out
from honyaku.web.words import provider_word, tool_word, word
from honyaku.web.workbench import App

templates = Jinja2Templates(directory=FilePath(__file__).with_name("templates"))
i18n.install(templates.env)
templates.env.globals.update(word=word, tool_word=tool_word, provider_word=provider_word)
router = APIRouter(include_in_schema=False)


def page(request: Request, template: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, template, context)


@router.get("/")
async def library(
    request: Request, honyaku: App, start: Annotated[int, Query(ge=0, le=MAX_NUMBER)] = 0
) -> HTMLResponse:
    books, total = await honyaku.books.page(start, PAGE_BOOKS)
    return page(
        request, "library.html", books=books, start=start, total=total, page_size=PAGE_BOOKS
    )


@router.get("/books/{book_id}")
async def book(request: Request, honyaku: App, book_id: str) -> HTMLResponse:
    detail = await honyaku.books.detail(book_id)
    return page(
        request,
        "book.html",
        book=detail.book,
        chapters=detail.chapters,
        profiles=await honyaku.models.all(),
        jobs=[job_out(progress) for progress in await honyaku.jobs.all(book_id)],
        tool_names=TOOL_NAMES,
    )


@router.get("/books/{book_id}/chapters/{number}", response_model=None)
async def chapter(
    request: Request,
    honyaku: App,
    book_id: str,
    number: Annotated[int, Path(ge=1, le=MAX_NUMBER)],
    start: Annotated[int, Query(ge=0, le=MAX_NUMBER)] = 0,
    at: Annotated[str | None, Query(description="A paragraph's id: the page it is on.")] = None,
) -> HTMLResponse | RedirectResponse:
    """A page of the chapter's paragraphs side by side with their translations."""
    if at is not None:
        found = await honyaku.books.locate(book_id, at)
        first = found.paragraph.index // PAGE_PARAGRAPHS * PAGE_PARAGRAPHS
        place = f"/books/{book_id}/chapters/{found.chapter_number}?start={first}#p-{at}"
        return RedirectResponse(place, status_code=303)
    view = await honyaku.books.chapter(book_id, number, start=start)
    return page(
        request,
        "chapter.html",
        book=view.book,
        chapter=view.chapter,
        view=view,
        count=view.count,
        stop=min(view.start + PAGE_PARAGRAPHS, view.chapter.paragraphs),
        page_size=PAGE_PARAGRAPHS,
        profiles=await honyaku.models.all(),
    )


@router.get("/books/{book_id}/paragraphs/{paragraph_id}/versions")
async def versions(request: Request, honyaku: App, book_id: str, paragraph_id: str) -> HTMLResponse:
    """A paragraph's version list, as the chapter page draws it after a change."""
    book = await honyaku.books.get(book_id)
    found = await honyaku.versions.all(book_id, paragraph_id)
    return page(request, "versions.html", versions=found, lang=book.target_lang)


@router.get("/jobs")
async def jobs(request: Request, honyaku: App) -> HTMLResponse:
    books = {book.id: book for book in await honyaku.books.all()}
    listed = [job_out(progress) for progress in await honyaku.jobs.all()]
    return page(request, "jobs.html", jobs=listed, books=books)


@router.get("/jobs/{job_id}")
async def job(request: Request, honyaku: App, job_id: str) -> HTMLResponse:
    found = job_out(await honyaku.jobs.progress(job_id))
    return page(
        request,
        "job.html",
        job=found,
        book=await honyaku.books.get(found.book_id),
        lines=await honyaku.jobs.log(job_id),
    )


@router.get("/chat")
async def chat(request: Request, honyaku: App) -> HTMLResponse:
    return page(request, "chat.html", profiles=await honyaku.models.all())


@router.get("/models")
async def models(request: Request, honyaku: App) -> HTMLResponse:
    return page(request, "models.html", profiles=await honyaku.models.all(), kinds=PROVIDER_KINDS)


@router.api_route("/language/{code}", methods=["GET", "HEAD"])
async def choose_language(code: str, next: str = "/") -> RedirectResponse:
    """Speak ``code`` from now on (a cookie remembers it), and go back to the page ``next``."""
    back = next if next.startswith("/") and not next.startswith(("//", "/\\")) else "/"
    response = RedirectResponse(back, status_code=303)
    if code in i18n.LANGUAGES:
        response.set_cookie(**i18n.language_cookie(code))
    return response


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    response = page(request, "error.html", status=status, message=message)
    response.status_code = status
    return response
