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

from honyaku.errors import NotFoundError
from honyaku.jobs import TOOL_NAMES
from honyaku.jobs.log_lines import NOTABLE_ACTIONS, log_lines
from honyaku.llm.models import PROVIDER_KINDS
from honyaku.web.api import Bench, get_chapter, get_job

templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
router = APIRouter(include_in_schema=False)


def page(request: Request, template: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, template, context)


@router.get("/")
def library(request: Request, bench: Bench) -> HTMLResponse:
    return page(request, "library.html", books=bench.library.list_books())


@router.get("/books/{book_id}")
def book(request: Request, bench: Bench, book_id: str) -> HTMLResponse:
    library = bench.library
    return page(
        request,
        "book.html",
        book=library.book(book_id),
        chapters=library.progress(book_id),
        profiles=bench.profiles.all(),
        jobs=[bench.job_progress(job.id) for job in reversed(bench.jobs.jobs(book_id))],
        tool_names=TOOL_NAMES,
    )


@router.get("/books/{book_id}/chapters/{number}")
def chapter(request: Request, bench: Bench, book_id: str, number: int) -> HTMLResponse:
    count = bench.library.chapter_count(book_id)
    return page(
        request,
        "chapter.html",
        book=bench.library.book(book_id),
        chapter=get_chapter(bench, book_id, number),
        count=count,
    )


@router.get("/jobs")
def jobs(request: Request, bench: Bench) -> HTMLResponse:
    books = {book.id: book for book in bench.library.list_books()}
    listed = [job for book in books for job in bench.jobs.jobs(book)]
    listed.sort(key=lambda job: job.created_at, reverse=True)
    return page(
        request, "jobs.html", jobs=[bench.job_progress(job.id) for job in listed], books=books
    )


@router.get("/jobs/{job_id}")
def job(request: Request, bench: Bench, job_id: str) -> HTMLResponse:
    found = get_job(bench, job_id)
    recorded = [a for a in bench.jobs.actions(found.book_id, NOTABLE_ACTIONS) if a.job_id == job_id]
    return page(
        request,
        "job.html",
        job=found,
        book=bench.library.book(found.book_id),
        lines=log_lines(recorded),
    )


@router.get("/models")
def models(request: Request, bench: Bench) -> HTMLResponse:
    return page(request, "models.html", profiles=bench.profiles.all(), kinds=PROVIDER_KINDS)


def not_found_page(request: Request, error: NotFoundError) -> HTMLResponse:
    return error_page(request, 404, str(error))


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    response = page(request, "error.html", status=status, message=message)
    response.status_code = status
    return response
