"""The JSON API the pages use and scripts can use; ``/openapi.json`` describes it.

Every handler calls the application (``honyaku.application``) and shapes what it answers;
the application keeps the database off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, UploadFile
from fastapi import Path as PathParam
from fastapi.responses import FileResponse
from sse_starlette import EventSourceResponse
from starlette.background import BackgroundTask

from honyaku.application import PAGE_PARAGRAPHS, Honyaku, JobProgress, JobRequest, ModelChoice
from honyaku.domain.model_profile import ModelProfile
from honyaku.domain.selection import parse_chapter_numbers
from honyaku.domain.workflow import JobKind
from honyaku.errors import UserError
from honyaku.formats import ExportFormat
from honyaku.jobs.estimate import Estimate
from honyaku.web.i18n import _, message_of
from honyaku.web.schemas import (
    ERROR_RESPONSES,
    AnswerIn,
    BookDetail,
    BookOut,
    BookSettings,
    ChapterDetail,
    ChapterOut,
    Created,
    DiffPartOut,
    ExportFormatName,
    JobOut,
    JobResume,
    JobStart,
    LogLineOut,
    ManualVersion,
    ModelCheckOut,
    ParagraphOut,
    ParkedQuestionOut,
    SettingsPatch,
    VersionOut,
    Waiting,
)
from honyaku.web.workbench import App, Bench

UPLOAD_CHUNK_BYTES = 1024 * 1024
MAX_NUMBER = 2**31 - 1
"""The largest chapter number, position or version id a path or query may name: beyond it
nothing exists, and the database could not even be asked."""
MAX_PAGE_PARAGRAPHS = 1000
MAX_FILE_NAME_CHARS = 120
HEARTBEAT_S = 15

router = APIRouter(prefix="/api", responses=ERROR_RESPONSES)


# -- books ----------------------------------------------------------------------------------


@router.get("/books")
async def list_books(honyaku: App) -> list[BookOut]:
    return [BookOut.of(book) for book in await honyaku.books.all()]


@router.post("/books", status_code=201)
async def add_book(
    bench: Bench,
    file: Annotated[UploadFile, File(description="A TXT, Aozora text or XHTML, or EPUB file.")],
    title: Annotated[str | None, Form()] = None,
    source_lang: Annotated[str | None, Form()] = None,
    target_lang: Annotated[str, Form()] = "zh-CN",
    chapter_pattern: Annotated[str | None, Form()] = None,
    again: Annotated[
        bool, Form(description="Import it even if the library holds the same book.")
    ] = False,
) -> Created:
    """Import a book, as ``honyaku import`` does; a book the library already holds is
    refused (409) unless ``again``."""
    with tempfile.TemporaryDirectory(prefix="honyaku-upload-") as folder:
        path = Path(folder) / uploaded_file_name(file.filename)
        await save_capped(file, path, bench.upload_limit_bytes)
        book = await bench.honyaku.books.import_file(
            path,
            title=title or None,
            source_lang=source_lang or None,
            target_lang=target_lang or "zh-CN",
            chapter_pattern=chapter_pattern or None,
            again=again,
        )
    return Created(id=book.id)


def uploaded_file_name(uploaded: str | None) -> str:
    """The uploaded file's own name, for its title and its errors; no folders, nothing that
    is not printable."""
    name = Path((uploaded or "").replace("\\", "/")).name
    name = "".join(ch for ch in name if ch.isprintable()).strip(" .")[:MAX_FILE_NAME_CHARS]
    return name or "book"


async def save_capped(upload: UploadFile, path: Path, limit_bytes: int) -> None:
    size = 0
    with path.open("wb") as saved:
        while chunk := await upload.read(UPLOAD_CHUNK_BYTES):
            size += len(chunk)
            if size > limit_bytes:
                raise UserError(
                    _("the file is larger than {size} MB").format(size=f"{limit_bytes / 2**20:g}")
                )
            saved.write(chunk)


@router.get("/books/{book_id}")
async def get_book(honyaku: App, book_id: str) -> BookDetail:
    detail = await honyaku.books.detail(book_id)
    return BookDetail(
        **BookOut.of(detail.summary).model_dump(),
        settings=detail.book.settings,
        chapter_list=[ChapterOut.of(c) for c in detail.chapters],
    )


@router.delete("/books/{book_id}", status_code=204)
async def remove_book(honyaku: App, book_id: str) -> None:
    await honyaku.books.delete(await honyaku.books.resolve(book_id))


@router.patch("/books/{book_id}/settings")
async def patch_settings(honyaku: App, book_id: str, patch: SettingsPatch) -> BookSettings:
    changes = patch.model_dump(exclude_unset=True)
    return await honyaku.settings.change(await honyaku.books.resolve(book_id), **changes)


@router.get("/books/{book_id}/estimate")
async def get_estimate(
    honyaku: App,
    book_id: str,
    kind: JobKind = JobKind.TRANSLATION,
    chapters: str | None = None,
    model: str | None = None,
    retranslate: bool = False,
    paragraphs: Annotated[list[str] | None, Query()] = None,
) -> Estimate:
    """What a job would send and cost with the saved ``model``; nothing is sent."""
    request = await _request(honyaku, book_id, kind, chapters, retranslate)
    request = replace(request, paragraphs=paragraphs)
    choice = await honyaku.models.saved(model) if model else None
    return await honyaku.jobs.estimate(request, choice)


@router.get("/books/{book_id}/chapters/{number}")
async def get_chapter(
    honyaku: App,
    book_id: str,
    number: Annotated[int, PathParam(ge=1, le=MAX_NUMBER)],
    start: Annotated[int, Query(ge=0, le=MAX_NUMBER, description="First position.")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_PARAGRAPHS)] = PAGE_PARAGRAPHS,
) -> ChapterDetail:
    """Up to ``limit`` of the chapter's paragraphs from position ``start`` (empty ones
    counted), with their versions: a long chapter is read a window at a time."""
    view = await honyaku.books.chapter(book_id, number, start=start, limit=limit)
    chapter = view.chapter
    return ChapterDetail(
        book_id=book_id,
        number=chapter.number,
        id=chapter.id,
        title=chapter.title,
        translated_title=chapter.translated_title,
        paragraph_count=chapter.paragraphs,
        start=view.start,
        previous_title=chapter.previous_title,
        paragraphs=[
            ParagraphOut(
                id=p.id,
                index=p.index,
                text=p.text,
                translation=p.translation,
                previous_source=p.previous_source,
                versions=[VersionOut.of(v) for v in view.versions.get(p.id, [])],
            )
            for p in view.paragraphs
        ],
    )


@router.post("/books/{book_id}/paragraphs/{paragraph_id}/versions", status_code=201)
async def add_manual_version(
    honyaku: App, book_id: str, paragraph_id: str, version: ManualVersion
) -> list[VersionOut]:
    """Write a version by hand; it becomes the selected one, and the others are kept."""
    versions = await honyaku.versions.write(book_id, paragraph_id, version.text)
    return [VersionOut.of(v) for v in versions]


@router.post("/books/{book_id}/paragraphs/{paragraph_id}/versions/{version_id}/select")
async def select_version(
    honyaku: App,
    book_id: str,
    paragraph_id: str,
    version_id: Annotated[int, PathParam(ge=1, le=MAX_NUMBER)],
) -> list[VersionOut]:
    versions = await honyaku.versions.select(book_id, paragraph_id, version_id)
    return [VersionOut.of(v) for v in versions]


@router.get("/books/{book_id}/paragraphs/{paragraph_id}/diff")
async def diff_versions(
    honyaku: App,
    book_id: str,
    paragraph_id: str,
    old: Annotated[int, Query(ge=1, le=MAX_NUMBER, description="A version's id.")],
    new: Annotated[int, Query(ge=1, le=MAX_NUMBER, description="Another version's id.")],
) -> list[DiffPartOut]:
    """What changed from version ``old`` of the paragraph to version ``new``."""
    parts = await honyaku.versions.diff(book_id, paragraph_id, old, new)
    return [DiffPartOut(change=part.change.value, text=part.text) for part in parts]


@router.get("/books/{book_id}/export", response_class=FileResponse)
async def export(
    honyaku: App, book_id: str, format: ExportFormatName = "epub", bilingual: bool = False
) -> FileResponse:
    book = await honyaku.books.get(book_id)
    folder = tempfile.mkdtemp(prefix="honyaku-export-")
    name = f"{book.title}.{book.target_lang}.{format}"
    path = Path(folder) / "export"
    await honyaku.books.export(book_id, path, ExportFormat(format), bilingual=bilingual)
    return FileResponse(path, filename=name, background=BackgroundTask(_remove, Path(folder)))


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()


# -- models ---------------------------------------------------------------------------------


@router.get("/models")
async def list_models(honyaku: App) -> list[ModelProfile]:
    return await honyaku.models.all()


@router.post("/models", status_code=201)
async def save_model(honyaku: App, profile: ModelProfile) -> ModelProfile:
    """Save a model profile: its server, protocol and key variable, never a key."""
    return await honyaku.models.save(profile)


@router.post("/models/check")
async def check_model(honyaku: App, profile: ModelProfile) -> ModelCheckOut:
    """Ask the model once, saved or not: is its server there, does it take the key, does
    it call tools natively (else honyaku speaks XML with it)?"""
    found = await honyaku.models.check(profile)
    return ModelCheckOut(
        reachable=found.reachable,
        key_accepted=found.key_accepted,
        native_tools=found.native_tools,
        key_variable=found.key_variable,
        problem=found.problem,
        works=found.works,
    )


@router.delete("/models/{name}", status_code=204)
async def remove_model(honyaku: App, name: str) -> None:
    await honyaku.models.remove(name)


# -- jobs -----------------------------------------------------------------------------------


@router.post("/books/{book_id}/jobs", status_code=201)
async def start_job(honyaku: App, book_id: str, start: JobStart) -> Created:
    """Start a translation, polish or proofreading job in the background."""
    request = await _request(honyaku, book_id, start.kind, start.chapters, start.retranslate)
    request = replace(request, paragraphs=start.paragraphs, max_cost=start.max_cost)
    return Created(id=await honyaku.jobs.start(request, await _model(honyaku, start.model)))


async def _request(
    honyaku: Honyaku,
    book_id: str,
    kind: JobKind,
    chapters: str | None,
    retranslate: bool = False,
) -> JobRequest:
    count = await honyaku.books.chapter_count(book_id)
    numbers = parse_chapter_numbers(chapters or None, count)
    return JobRequest(book_id=book_id, kind=kind, chapters=numbers, retranslate=retranslate)


async def _model(honyaku: Honyaku, name: str) -> ModelChoice:
    try:
        return await honyaku.models.saved(name)
    except UserError as exc:
        raise UserError(
            _("{reason}: add one on the Models page").format(reason=message_of(exc))
        ) from None


@router.get("/jobs")
async def list_jobs(honyaku: App, book_id: str | None = None) -> list[JobOut]:
    return [job_out(progress) for progress in await honyaku.jobs.all(book_id)]


@router.get("/jobs/{job_id}")
async def get_job(honyaku: App, job_id: str) -> JobOut:
    return job_out(await honyaku.jobs.progress(job_id))


@router.post("/jobs/{job_id}/stop", status_code=202)
async def stop_job(honyaku: App, job_id: str) -> JobOut:
    return job_out(await honyaku.jobs.stop(job_id))


@router.post("/jobs/{job_id}/resume", status_code=201)
async def resume_job(honyaku: App, job_id: str, resume: JobResume) -> Created:
    """Run a stopped job again: it goes on where its accepted work stopped."""
    return Created(id=await honyaku.jobs.resume(job_id, resume.model))


@router.get("/jobs/{job_id}/actions")
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


@router.get("/jobs/{job_id}/events", response_class=EventSourceResponse)
async def job_events(honyaku: App, job_id: str) -> EventSourceResponse:
    """The job's progress as server-sent events: a snapshot first, then its changes, a few
    a second at most, until it ends."""
    await honyaku.jobs.get(job_id)

    async def stream() -> AsyncIterator[dict[str, Any]]:
        async for update in honyaku.jobs.watch(job_id):
            yield _event({"type": "progress", **job_out(update.progress).model_dump()})
            if update.log_grew:
                yield _event({"type": "log"})

    return EventSourceResponse(stream(), ping=HEARTBEAT_S)


def job_out(progress: JobProgress) -> JobOut:
    """A job's figures as the API answers them."""
    return JobOut.model_validate(progress.figures())


# -- questions and approvals ---------------------------------------------------------------


@router.get("/questions")
async def waiting(bench: Bench) -> Waiting:
    """What waits for the person: the dialog on screen, how many wait behind it, and the
    questions of queued jobs, parked until someone answers."""
    stored = await bench.honyaku.questions.waiting()
    return Waiting(
        shown=bench.front_end.shown,
        queued=bench.honyaku.broker.queued,
        stored=[ParkedQuestionOut.of(q) for q in stored],
    )


@router.post("/questions/{request_id}/answer", status_code=204)
async def answer(bench: Bench, request_id: str, reply: AnswerIn) -> None:
    bench.front_end.answer(request_id, reply.model_dump())


@router.post("/questions/stored/{question_id}/answer", status_code=204)
async def answer_stored(
    honyaku: App, question_id: Annotated[int, PathParam(ge=1, le=MAX_NUMBER)], reply: AnswerIn
) -> None:
    """Answer a queued job's question: its chunk goes on, on whichever worker takes it."""
    await honyaku.questions.answer(question_id, reply.model_dump())


@router.get("/questions/events", response_class=EventSourceResponse)
async def question_events(bench: Bench) -> EventSourceResponse:
    """Dialogs to show and to close, for as long as a page is open; and the questions of
    queued jobs (``stored``) each time one is asked or settled, on any server."""
    told: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def shown() -> None:
        async for message in bench.front_end.watch():
            await told.put(message)

    async def stored() -> None:
        said: list[dict[str, Any]] | None = None
        async for _change in bench.honyaku.questions.changes():
            found = await bench.honyaku.questions.waiting()
            listed = [ParkedQuestionOut.of(q).model_dump(mode="json") for q in found]
            if listed != said:
                await told.put({"type": "stored", "questions": listed})
                said = listed

    async def stream() -> AsyncIterator[dict[str, Any]]:
        tasks = [asyncio.create_task(shown()), asyncio.create_task(stored())]
        try:
            while True:
                yield _event(await told.get())
        finally:
            for task in tasks:
                task.cancel()

    return EventSourceResponse(stream(), ping=HEARTBEAT_S)


def _event(message: dict[str, Any]) -> dict[str, Any]:
    return {"event": message["type"], "data": json.dumps(message, ensure_ascii=False, default=str)}
