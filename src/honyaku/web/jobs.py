"""Jobs: the page listing them and each one's page; the API that starts, lists, stops and
resumes them and reads their log; their progress as server-sent events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from sse_starlette import EventSourceResponse

from honyaku.application import Honyaku, JobRequest, ModelChoice, ModelOptions
from honyaku.domain.workflow import JobKind
from honyaku.errors import NotFoundError, UserError
from honyaku.web.events import HEARTBEAT_S, event
from honyaku.web.i18n import _, message_of
from honyaku.web.schemas import ERROR_RESPONSES, Created, JobOut, JobResume, JobStart, LogLineOut
from honyaku.web.templating import page
from honyaku.web.workbench import App

router = APIRouter(responses=ERROR_RESPONSES)


# -- the pages ------------------------------------------------------------------------------


@router.get("/jobs", include_in_schema=False)
async def jobs_page(request: Request, honyaku: App) -> HTMLResponse:
    books = {book.id: book for book in await honyaku.books.all()}
    listed = [JobOut.of(progress) for progress in await honyaku.jobs.all()]
    return page(request, "jobs.html", jobs=listed, books=books)


@router.get("/jobs/{job_id}", include_in_schema=False)
async def job_page(request: Request, honyaku: App, job_id: str) -> HTMLResponse:
    found = JobOut.of(await honyaku.jobs.progress(job_id))
    return page(
        request,
        "job.html",
        job=found,
        book=await honyaku.books.info(found.book_id),
        lines=await honyaku.jobs.log(job_id),
    )


# -- the API --------------------------------------------------------------------------------


@router.post("/api/books/{book_id}/jobs", status_code=201)
async def start_job(honyaku: App, book_id: str, start: JobStart) -> Created:
    """Start a translation, polish or proofreading job in the background."""
    request = await job_request(honyaku, book_id, start.kind, start.chapters, start.retranslate)
    request = replace(request, paragraphs=start.paragraphs, max_cost=start.max_cost)
    fallbacks = tuple(start.fallbacks) if start.fallbacks is not None else None
    options = ModelOptions(model=start.model, fallbacks=fallbacks, saved=True)
    model = await _model(honyaku, options, book_id)
    return Created(id=await honyaku.jobs.start(request, model))


async def job_request(
    honyaku: Honyaku,
    book_id: str,
    kind: JobKind,
    chapters: str | None,
    retranslate: bool = False,
) -> JobRequest:
    """The job a request asks for: ``chapters`` as the person writes them (``"1-3,7"``)."""
    numbers = await honyaku.books.chapter_numbers(book_id, chapters)
    return JobRequest(book_id=book_id, kind=kind, chapters=numbers, retranslate=retranslate)


async def _model(honyaku: Honyaku, options: ModelOptions, book_id: str) -> ModelChoice:
    """The saved model ``options`` name, else the book's."""
    try:
        chosen = await honyaku.models.choose(options, book=book_id)
    except NotFoundError as exc:
        raise NotFoundError(
            _("{reason}: add one on the Models page").format(reason=message_of(exc))
        ) from None
    if chosen.model is None:
        raise UserError(_("choose a saved model to run the job with"))
    return chosen


@router.get("/api/jobs")
async def list_jobs(honyaku: App, book_id: str | None = None) -> list[JobOut]:
    return [JobOut.of(progress) for progress in await honyaku.jobs.all(book_id)]


@router.get("/api/jobs/{job_id}")
async def get_job(honyaku: App, job_id: str) -> JobOut:
    return JobOut.of(await honyaku.jobs.progress(job_id))


@router.post("/api/jobs/{job_id}/stop", status_code=202)
async def stop_job(honyaku: App, job_id: str) -> JobOut:
    return JobOut.of(await honyaku.jobs.stop(job_id))


@router.post("/api/jobs/{job_id}/resume", status_code=201)
async def resume_job(honyaku: App, job_id: str, resume: JobResume) -> Created:
    """Run a stopped job again: it goes on where its accepted work stopped."""
    return Created(id=await honyaku.jobs.resume(job_id, resume.model))


@router.get("/api/jobs/{job_id}/actions")
async def job_actions(honyaku: App, job_id: str, reasoning: bool = True) -> list[LogLineOut]:
    """The job's log, as ``honyaku show --actions`` prints it."""
    return [
        LogLineOut(
            created_at=line.entry.created_at,
            job_id=job_id,
            where=line.where,
            text=line.text,
            reasoning=line.is_reasoning,
        )
        for line in await honyaku.jobs.log(job_id, reasoning=reasoning)
    ]


@router.get("/api/jobs/{job_id}/events", response_class=EventSourceResponse)
async def job_events(honyaku: App, job_id: str) -> EventSourceResponse:
    """The job's progress as server-sent events: a snapshot first, then its changes, a few
    a second at most, until it ends."""
    await honyaku.jobs.get(job_id)

    async def stream() -> AsyncIterator[dict[str, Any]]:
        async for update in honyaku.jobs.watch(job_id):
            yield event({"type": "progress", **JobOut.of(update.progress).model_dump()})
            if update.log_grew:
                yield event({"type": "log"})

    return EventSourceResponse(stream(), ping=HEARTBEAT_S)
