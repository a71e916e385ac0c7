"""The library and its books: the library page, a book's page, a chapter's pages with their
paragraphs' versions; and the API that imports, reads, sets up, exports and removes a book,
writes and selects a paragraph's versions, and estimates a job before it starts."""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from starlette.background import BackgroundTask

from honyaku.application import DEFAULT_TARGET, PAGE_BOOKS, PAGE_PARAGRAPHS, TOOL_NAMES
from honyaku.domain.workflow import JobKind
from honyaku.formats import ExportFormat
from honyaku.jobs.estimate import Estimate
from honyaku.web.jobs import job_request
from honyaku.web.schemas import (
    ERROR_RESPONSES,
    MAX_NUMBER,
    BookDetail,
    BookOut,
    BookSettings,
    ChapterDetail,
    ChapterOut,
    ChaptersQuery,
    Created,
    DiffPartOut,
    ExportFormatName,
    JobOut,
    ManualVersion,
    ParagraphOut,
    SettingsPatch,
    VersionOut,
)
from honyaku.web.templating import page
from honyaku.web.trials import book_trials
from honyaku.web.uploads import save_capped, uploaded_file_name
from honyaku.web.workbench import App, Bench

MAX_PAGE_PARAGRAPHS = 1000

router = APIRouter(responses=ERROR_RESPONSES)


# -- the pages ------------------------------------------------------------------------------


@router.get("/", include_in_schema=False)
async def library_page(
    request: Request, honyaku: App, start: Annotated[int, Query(ge=0, le=MAX_NUMBER)] = 0
) -> HTMLResponse:
    books, total = await honyaku.books.page(start, PAGE_BOOKS)
    has_model = bool(await honyaku.models.all())
    return page(
        request,
        "library.html",
        books=books,
        start=start,
        total=total,
        page_size=PAGE_BOOKS,
        # The first steps are shown until the library has a model of its own and a book.
        first_steps=not (has_model and total),
        has_model=has_model,
    )


@router.get("/books/{book_id}", include_in_schema=False)
async def book_page(request: Request, honyaku: App, book_id: str) -> HTMLResponse:
    detail = await honyaku.books.detail(book_id)
    left = await honyaku.books.left(book_id)
    return page(
        request,
        "book.html",
        book=detail.book,
        chapters=detail.chapters,
        needs_you=Counter(item.chapter for item in left.needs_you),
        profiles=await honyaku.models.all(),
        jobs=[JobOut.of(progress) for progress in await honyaku.jobs.all(book_id)],
        trials=await book_trials(honyaku, detail.book.id),
        tool_names=TOOL_NAMES,
    )


@router.get("/books/{book_id}/chapters/{number}", response_model=None, include_in_schema=False)
async def chapter_page(
    request: Request,
    honyaku: App,
    book_id: str,
    number: Annotated[int, PathParam(ge=1, le=MAX_NUMBER)],
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
    left = await honyaku.books.left(book_id, chapters=[number])
    rated = await honyaku.books.rated(book_id, chapters=[number])
    return page(
        request,
        "chapter.html",
        book=view.book,
        chapter=view.chapter,
        view=view,
        needs_you={item.id: item for item in left.needs_you},
        rated={item.paragraph_id: item for item in rated},
        count=view.count,
        stop=min(view.start + PAGE_PARAGRAPHS, view.chapter.paragraphs),
        page_size=PAGE_PARAGRAPHS,
        profiles=await honyaku.models.all(),
    )


@router.get("/books/{book_id}/paragraphs/{paragraph_id}/versions", include_in_schema=False)
async def versions_page(
    request: Request, honyaku: App, book_id: str, paragraph_id: str
) -> HTMLResponse:
    """A paragraph's version list, as the chapter page draws it after a change."""
    book = await honyaku.books.info(book_id)
    paragraph, found = await honyaku.versions.shown(book_id, paragraph_id)
    return page(
        request,
        "versions.html",
        versions=found,
        lang=book.target_lang,
        paragraph=paragraph,
        ruby=book.settings.ruby,
    )


# -- the API --------------------------------------------------------------------------------


async def no_trial_copy(request: Request, honyaku: App) -> None:
    """Every address that names a book answers for the translator's own books only: a trial's
    copy is its trial's, to read through the trial and never to change or delete
    (``Books.check_visible``). A dependency of every route (``web.app``)."""
    for book_id in (request.path_params.get("book_id"), request.query_params.get("book_id")):
        if book_id:
            await honyaku.books.check_visible(book_id)


@router.get("/api/books")
async def list_books(honyaku: App) -> list[BookOut]:
    return [BookOut.of(book) for book in await honyaku.books.all()]


@router.post("/api/books", status_code=201)
async def add_book(
    bench: Bench,
    file: Annotated[UploadFile, File(description="A TXT, Aozora text or XHTML, or EPUB file.")],
    title: Annotated[str | None, Form()] = None,
    source_lang: Annotated[str | None, Form()] = None,
    target_lang: Annotated[str, Form()] = DEFAULT_TARGET,
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
            target_lang=target_lang or DEFAULT_TARGET,
            chapter_pattern=chapter_pattern or None,
            again=again,
        )
    return Created(id=book.id)


@router.get("/api/books/{book_id}")
async def get_book(honyaku: App, book_id: str) -> BookDetail:
    detail = await honyaku.books.detail(book_id)
    return BookDetail(
        **BookOut.of(detail.summary).model_dump(),
        settings=detail.book.settings,
        chapter_list=[ChapterOut.of(c) for c in detail.chapters],
    )


@router.delete("/api/books/{book_id}", status_code=204)
async def remove_book(honyaku: App, book_id: str) -> None:
    await honyaku.books.delete(await honyaku.books.resolve(book_id))


@router.patch("/api/books/{book_id}/settings")
async def patch_settings(honyaku: App, book_id: str, patch: SettingsPatch) -> BookSettings:
    changes = patch.model_dump(exclude_unset=True)
    return await honyaku.settings.change(await honyaku.books.resolve(book_id), **changes)


@router.get("/api/books/{book_id}/estimate")
async def get_estimate(
    honyaku: App,
    book_id: str,
    kind: JobKind = JobKind.TRANSLATION,
    chapters: ChaptersQuery = None,
    model: str | None = None,
    retranslate: bool = False,
    paragraphs: Annotated[list[str] | None, Query()] = None,
) -> Estimate:
    """What a job would send and cost with the saved ``model``; nothing is sent."""
    request = await job_request(honyaku, book_id, kind, chapters, retranslate)
    request = replace(request, paragraphs=paragraphs)
    choice = await honyaku.models.saved(model) if model else None
    return await honyaku.jobs.estimate(request, choice)


@router.get("/api/books/{book_id}/chapters/{number}")
async def get_chapter(
    honyaku: App,
    book_id: str,
    number: Annotated[int, PathParam(ge=1, le=MAX_NUMBER)],
    start: Annotated[int, Query(ge=0, le=MAX_NUMBER, description="First position.")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE_PARAGRAPHS)] = PAGE_PARAGRAPHS,
) -> ChapterDetail:
    """Up to ``limit`` of the chapter's paragraphs from position ``start`` (empty ones
    counted), with their versions: a long chapter is read a page at a time."""
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


@router.post("/api/books/{book_id}/paragraphs/{paragraph_id}/versions", status_code=201)
async def add_manual_version(
    honyaku: App, book_id: str, paragraph_id: str, version: ManualVersion
) -> list[VersionOut]:
    """Write a version by hand; it becomes the selected one, and the others are kept."""
    versions = await honyaku.versions.write(book_id, paragraph_id, version.text)
    return [VersionOut.of(v) for v in versions]


@router.post("/api/books/{book_id}/paragraphs/{paragraph_id}/versions/{version_id}/select")
async def select_version(
    honyaku: App,
    book_id: str,
    paragraph_id: str,
    version_id: Annotated[int, PathParam(ge=1, le=MAX_NUMBER)],
) -> list[VersionOut]:
    versions = await honyaku.versions.select(book_id, paragraph_id, version_id)
    return [VersionOut.of(v) for v in versions]


@router.get("/api/books/{book_id}/paragraphs/{paragraph_id}/diff")
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


@router.get("/api/books/{book_id}/export", response_class=FileResponse)
async def export(
    honyaku: App, book_id: str, format: ExportFormatName = "epub", bilingual: bool = False
) -> FileResponse:
    book = await honyaku.books.info(book_id)
    folder = tempfile.mkdtemp(prefix="honyaku-export-")
    name = f"{book.title}.{book.target_lang}.{format}"
    path = Path(folder) / "export"
    await honyaku.books.export(book_id, path, ExportFormat(format), bilingual=bilingual)
    return FileResponse(path, filename=name, background=BackgroundTask(_remove, Path(folder)))


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
