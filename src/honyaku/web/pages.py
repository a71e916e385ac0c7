"""The workbench's pages, rendered on the server: plain URLs a person can bookmark.

They show what the library holds; everything they change goes through the JSON API, from a
few small scripts (``static/js``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from honyaku.application import PROVIDER_KINDS, TOOL_NAMES
from honyaku.web.api import get_chapter, job_out
from honyaku.web.workbench import App

templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
router = APIRouter(include_in_schema=False)


def page(request: Request, template: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, template, context)


@router.get("/")
async def library(request: Request, honyaku: App) -> HTMLResponse:
    return page(request, "library.html", books=await honyaku.books.all())


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


@router.get("/books/{book_id}/chapters/{number}")
async def chapter(request: Request, honyaku: App, book_id: str, number: int) -> HTMLResponse:
    found = await get_chapter(honyaku, book_id, number)
    count = await honyaku.books.chapter_count(book_id)
    return page(
        request,
        "chapter.html",
        book=await honyaku.books.get(book_id),
        chapter=found,
        count=count,
        profiles=await honyaku.models.all(),
    )


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


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    response = page(request, "error.html", status=status, message=message)
    response.status_code = status
    return response
