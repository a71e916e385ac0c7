"""The JSON API the pages use and scripts can use; ``/openapi.json`` describes it.

Handlers that touch the database are plain functions, run off the event loop by FastAPI;
those that touch jobs or dialogs run on the loop, where those live.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import AsyncIterator
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from sse_starlette import EventSourceResponse
from starlette.background import BackgroundTask

from honyaku.books import delete_book, export_book, import_book
from honyaku.domain.book import TranslationKind
from honyaku.domain.model_profile import ModelProfile
from honyaku.domain.selection import parse_chapter_numbers
from honyaku.domain.workflow import JobKind
from honyaku.errors import NotFoundError, UserError
from honyaku.formats import ExportFormat
from honyaku.jobs import JobRequest, change_settings
from honyaku.jobs.estimate import Estimate, estimate_job
from honyaku.jobs.log_lines import NOTABLE_ACTIONS, log_lines
from honyaku.llm.models import ModelChoice
from honyaku.web.schemas import (
    AnswerIn,
    BookDetail,
    BookOut,
    BookSettings,
    ChapterDetail,
    ChapterOut,
    Created,
    ExportFormatName,
    JobOut,
    JobResume,
    JobStart,
    LogLineOut,
    ManualVersion,
    ParagraphOut,
    SettingsPatch,
    VersionOut,
    Waiting,
)
from honyaku.web.workbench import Workbench, workbench

UPLOAD_CHUNK_BYTES = 1024 * 1024
HEARTBEAT_S = 15

router = APIRouter(prefix="/api")
Bench = Annotated[Workbench, Depends(workbench)]


# -- books ----------------------------------------------------------------------------------


@router.get("/books")
def list_books(bench: Bench) -> list[BookOut]:
    return [BookOut.of(book) for book in bench.library.list_books()]


@router.post("/books", status_code=201)
async def add_book(
    bench: Bench,
    file: Annotated[UploadFile, File(description="A TXT, Aozora text or XHTML, or EPUB file.")],
    title: Annotated[str | None, Form()] = None,
    source_lang: Annotated[str | None, Form()] = None,
    target_lang: Annotated[str, Form()] = "zh-CN",
    chapter_pattern: Annotated[str | None, Form()] = None,
) -> Created:
    """Import a book, as ``honyaku import`` does."""
    with tempfile.TemporaryDirectory(prefix="honyaku-upload-") as folder:
        path = Path(folder) / "book"
        await _save_capped(file, path, bench.upload_limit_bytes)
        book = await run_in_threadpool(
            import_book,
            bench.library,
            path,
            title=title or None,
            source_lang=source_lang or None,
            target_lang=target_lang or "zh-CN",
            chapter_pattern=chapter_pattern or None,
        )
    return Created(id=book.id)


async def _save_capped(upload: UploadFile, path: Path, limit_bytes: int) -> None:
    size = 0
    with path.open("wb") as saved:
        while chunk := await upload.read(UPLOAD_CHUNK_BYTES):
            size += len(chunk)
            if size > limit_bytes:
                raise UserError(f"the file is larger than {limit_bytes / 2**20:g} MB")
            saved.write(chunk)


@router.get("/books/{book_id}")
def get_book(bench: Bench, book_id: str) -> BookDetail:
    library = bench.library
    summary = next((b for b in library.list_books() if b.id == book_id), None)
    if summary is None:
        raise NotFoundError(f"no book with id {book_id!r}")
    return BookDetail(
        **BookOut.of(summary).model_dump(),
        settings=library.settings(book_id),
        chapter_list=[ChapterOut.of(c) for c in library.progress(book_id)],
    )


@router.delete("/books/{book_id}", status_code=204)
def remove_book(bench: Bench, book_id: str) -> None:
    delete_book(bench.library, bench.library.resolve(book_id))


@router.patch("/books/{book_id}/settings")
def patch_settings(bench: Bench, book_id: str, patch: SettingsPatch) -> BookSettings:
    changes = patch.model_dump(exclude_none=True)
    return change_settings(bench.library, bench.library.resolve(book_id), **changes)


@router.get("/books/{book_id}/estimate")
def get_estimate(
    bench: Bench,
    book_id: str,
    kind: JobKind = JobKind.TRANSLATION,
    chapters: str | None = None,
    model: str | None = None,
) -> Estimate:
    """What a job would send and cost with the saved ``model``; nothing is sent."""
    library = bench.library
    book_id = library.resolve(book_id)
    numbers = parse_chapter_numbers(chapters or None, library.chapter_count(book_id))
    choice = bench.model(model) if model else None
    return estimate_job(
        library,
        book_id,
        kind,
        chapters=numbers,
        model=choice.model if choice else None,
        prices=choice.prices if choice else None,
        window=choice.context_window if choice else None,
    )


@router.get("/books/{book_id}/chapters/{number}")
def get_chapter(bench: Bench, book_id: str, number: int) -> ChapterDetail:
    library = bench.library
    chapters = library.get_book(book_id, chapter_numbers=[number]).chapters
    if not chapters:
        raise NotFoundError(f"book {book_id} has no chapter {number}")
    chapter = chapters[0]
    versions = library.chapter_versions(book_id, chapter.id)
    return ChapterDetail(
        book_id=book_id,
        number=chapter.order,
        id=chapter.id,
        title=chapter.title,
        translated_title=chapter.translated_title,
        paragraphs=[
            ParagraphOut(
                id=p.id,
                index=p.index,
                text=p.text,
                translation=p.translation,
                versions=[VersionOut.of(v) for v in versions.get(p.id, [])],
            )
            for p in chapter.paragraphs
        ],
    )


@router.post("/books/{book_id}/paragraphs/{paragraph_id}/versions", status_code=201)
def add_manual_version(
    bench: Bench, book_id: str, paragraph_id: str, version: ManualVersion
) -> list[VersionOut]:
    """Write a version by hand; it becomes the selected one, and the others are kept."""
    text = version.text.strip()
    if not text or "\n" in text:
        raise UserError("a version is one non-empty line")
    library = bench.library
    library.add_translations(book_id, {paragraph_id: text}, kind=TranslationKind.MANUAL)
    return [VersionOut.of(v) for v in library.versions(book_id, paragraph_id)]


@router.post("/books/{book_id}/paragraphs/{paragraph_id}/versions/{version_id}/select")
def select_version(
    bench: Bench, book_id: str, paragraph_id: str, version_id: int
) -> list[VersionOut]:
    library = bench.library
    library.select_version(book_id, paragraph_id, version_id)
    return [VersionOut.of(v) for v in library.versions(book_id, paragraph_id)]


@router.get("/books/{book_id}/export", response_class=FileResponse)
def export(
    bench: Bench, book_id: str, format: ExportFormatName = "epub", bilingual: bool = False
) -> FileResponse:
    library = bench.library
    book = library.book(book_id)
    folder = tempfile.mkdtemp(prefix="honyaku-export-")
    name = f"{book.title}.{book.target_lang}.{format}"
    path = Path(folder) / "export"
    export_book(library, book_id, path, ExportFormat(format), bilingual=bilingual)
    return FileResponse(
        path,
        filename=name,
        background=BackgroundTask(_remove, Path(folder)),
    )


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()


# -- models ---------------------------------------------------------------------------------


@router.get("/models")
def list_models(bench: Bench) -> list[ModelProfile]:
    return bench.profiles.all()


@router.post("/models", status_code=201)
def save_model(bench: Bench, profile: ModelProfile) -> ModelProfile:
    """Save a model profile: its server, protocol and key variable, never a key."""
    ModelChoice.from_profile(profile).check()
    bench.profiles.save(profile)
    return profile


@router.delete("/models/{name}", status_code=204)
def remove_model(bench: Bench, name: str) -> None:
    bench.profiles.remove(name)


# -- jobs -----------------------------------------------------------------------------------


@router.post("/books/{book_id}/jobs", status_code=201)
async def start_job(bench: Bench, book_id: str, start: JobStart) -> Created:
    """Start a translation, polish or proofreading job; it runs in this process."""
    library = bench.library
    count = await run_in_threadpool(library.chapter_count, book_id)
    request = JobRequest(
        book_id,
        start.kind,
        parse_chapter_numbers(start.chapters or None, count),
        retranslate=start.retranslate,
    )
    model = bench.model(start.model)
    return Created(id=await bench.runs.start(request, model, model=start.model))


@router.get("/jobs")
def list_jobs(bench: Bench, book_id: str | None = None) -> list[JobOut]:
    books = [book_id] if book_id else [b.id for b in bench.library.list_books()]
    jobs = [job for book in books for job in bench.jobs.jobs(book)]
    jobs.sort(key=lambda job: job.created_at, reverse=True)
    return [JobOut(**asdict(bench.job_progress(job.id))) for job in jobs]


@router.get("/jobs/{job_id}")
def get_job(bench: Bench, job_id: str) -> JobOut:
    return JobOut(**asdict(bench.job_progress(job_id)))


@router.post("/jobs/{job_id}/stop", status_code=202)
async def stop_job(bench: Bench, job_id: str) -> JobOut:
    bench.runs.stop(job_id)
    return JobOut(**asdict(await run_in_threadpool(bench.job_progress, job_id)))


@router.post("/jobs/{job_id}/resume", status_code=201)
async def resume_job(bench: Bench, job_id: str, resume: JobResume) -> Created:
    """Run a stopped job again: it goes on where its accepted work stopped."""
    job = await run_in_threadpool(bench.jobs.store.get, job_id)
    name = resume.model or bench.runs.model_of(job_id) or _profile_for(bench, job.model)
    request = JobRequest(
        job.book_id, job.kind, job.chapters, retranslate=job.retranslate, resume=job.id
    )
    return Created(id=await bench.runs.start(request, bench.model(name), model=name))


def _profile_for(bench: Bench, model: str) -> str:
    for profile in bench.profiles.all():
        if profile.model == model or profile.name == model:
            return profile.name
    raise UserError(f"choose a saved model to resume with (the job ran with {model!r})")


@router.get("/jobs/{job_id}/actions")
def job_actions(bench: Bench, job_id: str, reasoning: bool = True) -> list[LogLineOut]:
    """The job's log, as ``honyaku show --actions`` prints it."""
    job = bench.jobs.store.get(job_id)
    recorded = [a for a in bench.jobs.actions(job.book_id, NOTABLE_ACTIONS) if a.job_id == job_id]
    return [
        LogLineOut(
            created_at=line.entry.created_at,
            job_id=job_id,
            where=line.where,
            text=line.text,
            reasoning=line.is_reasoning,
        )
        for line in log_lines(recorded)
        if reasoning or not line.is_reasoning
    ]


@router.get("/jobs/{job_id}/events", response_class=EventSourceResponse)
async def job_events(bench: Bench, job_id: str) -> EventSourceResponse:
    """The job's progress as server-sent events: a snapshot first, then every change."""
    progress = await run_in_threadpool(bench.job_progress, job_id)

    async def stream() -> AsyncIterator[dict[str, Any]]:
        run = bench.runs.get(job_id)
        if run is None:
            yield _event({"type": "progress", **asdict(progress)})
            return
        async for message in run.watch():
            yield _event(message)

    return EventSourceResponse(stream(), ping=HEARTBEAT_S)


# -- questions and approvals ---------------------------------------------------------------


@router.get("/questions")
async def waiting(bench: Bench) -> Waiting:
    """What waits for the person: the dialog on screen, and how many wait behind it."""
    return Waiting(shown=bench.front_end.shown, queued=bench.broker.queued)


@router.post("/questions/{request_id}/answer", status_code=204)
async def answer(bench: Bench, request_id: str, reply: AnswerIn) -> None:
    bench.front_end.answer(request_id, reply.model_dump())


@router.get("/questions/events", response_class=EventSourceResponse)
async def question_events(bench: Bench) -> EventSourceResponse:
    """Dialogs to show and to close, for as long as a page is open."""

    async def stream() -> AsyncIterator[dict[str, Any]]:
        async for message in bench.front_end.watch():
            yield _event(message)

    return EventSourceResponse(stream(), ping=HEARTBEAT_S)


def _event(message: dict[str, Any]) -> dict[str, Any]:
    return {"event": message["type"], "data": json.dumps(message, ensure_ascii=False, default=str)}
