"""What the assistant can do: read the library, keep the plan, start jobs, ask.

Every result carries ``message`` (a sentence for the person and the model) and ``data``, as
the planner's results do. A book argument may be left out in a session about a book.
Writing a version, deleting a plan task and starting a job need the person's approval.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from honyaku.agent import QUESTION_TOOLS, SKIPPED_QUESTION_TOOLS, Result, Tool, ToolContext, tool
from honyaku.assistant.app import App
from honyaku.domain.book import Paragraph
from honyaku.domain.plan import PlanTask, parse_date, parse_view_context
from honyaku.domain.text_search import TextQuery
from honyaku.domain.workflow import JobKind
from honyaku.errors import ToolError, UserError
from honyaku.jobs import JobRequest
from honyaku.llm.models import ModelChoice, ModelOptions

MAX_READ = 50
MAX_FOUND = 30

BookId = Annotated[
    str | None,
    Field(description="The book's id; leave out to mean the book this chat is about."),
]
JobKindName = Literal["translation", "polish", "proofreading"]
Chapters = Annotated[
    str | None, Field(description='Chapter numbers like "5-8" or "1,3"; leave out for all.')
]


@dataclass
class ChatContext(ToolContext):
    app: App
    """The application, whose use cases the tools call."""
    model: ModelChoice
    """The model jobs started from the chat run with."""
    book_id: str | None = None
    """The book the chat is about, if any."""

    async def book_meant(self, book_id: str | None) -> str:
        """The id of the book meant: the one named, or the chat's own."""
        if book_id:
            try:
                return await self.app.books.resolve(book_id)
            except UserError as exc:
                raise ToolError("INVALID_PARAMETER", str(exc)) from None
        if self.book_id is None:
            raise ToolError("MISSING_PARAMETER", "this chat is about no book: give book_id")
        return self.book_id


def _done(message: str, data: Any = None) -> Result:
    return {"success": True, "message": message, "data": data}


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


# -- the library -----------------------------------------------------------------------------


@tool()
async def list_books(context: ChatContext) -> Result:
    """List the books in the library with their languages and progress."""
    books = [asdict(b) for b in await context.app.books.all()]
    return _done(f"{_count(len(books), 'book')} in the library", {"books": books})


@tool()
async def book_info(context: ChatContext, book_id: BookId = None) -> Result:
    """A book's title, languages and settings, and each chapter's title and progress."""
    found = await context.book_meant(book_id)
    book = await context.app.books.info(found)
    chapters = [asdict(c) for c in await context.app.books.progress(found)]
    done = sum(c["translated"] for c in chapters)
    total = sum(c["work_paragraphs"] for c in chapters)
    data = {
        "id": found,
        "title": book.title,
        "source_lang": book.source_lang,
        "target_lang": book.target_lang,
        "chapters": chapters,
    }
    return _done(f"「{book.title}」: {len(chapters)} chapters, {done}/{total} translated", data)


@tool()
async def read_paragraphs(
    context: ChatContext,
    chapter: Annotated[int, Field(ge=1, description="The chapter's number, from 1.")],
    start: Annotated[int, Field(ge=1, description="The first paragraph, from 1.")] = 1,
    count: Annotated[int, Field(ge=1, le=MAX_READ)] = 20,
    book_id: BookId = None,
) -> Result:
    """Read a chapter's paragraphs: each one's id, source text and selected translation."""
    book = await context.app.books.whole(await context.book_meant(book_id), [chapter])
    if not book.chapters:
        raise ToolError("INVALID_PARAMETER", f"the book has no chapter {chapter}")
    paragraphs = book.chapters[0].paragraphs[start - 1 : start - 1 + count]
    shown = [_paragraph(p) for p in paragraphs]
    message = f"{_count(len(shown), 'paragraph')} of chapter {chapter} from {start}"
    return _done(message, {"paragraphs": shown})


@tool()
async def search_paragraphs(
    context: ChatContext,
    query: Annotated[str, Field(min_length=1, description="Text to find, or a regex.")],
    regex: bool = False,
    in_translation: Annotated[bool, Field(description="Search translations, not sources.")] = False,
    book_id: BookId = None,
) -> Result:
    """Find paragraphs whose source (or translation) contains the text or matches the regex."""
    book = await context.book_meant(book_id)
    try:
        result = await context.app.search.find(
            book,
            TextQuery(query, regex=regex),
            source=not in_translation,
            translation=in_translation,
        )
    except UserError as exc:
        raise ToolError("INVALID_PARAMETER", str(exc)) from None
    found = [
        {"chapter": hit.located.chapter_number, **_paragraph(hit.located.paragraph)}
        for hit in result.hits[:MAX_FOUND]
    ]
    more = f" (the first {MAX_FOUND} shown)" if result.total > MAX_FOUND else ""
    message = f"{_count(result.total, 'paragraph')} found{more}"
    return _done(message, {"paragraphs": found})


@tool()
async def paragraph_versions(
    context: ChatContext, paragraph_id: str, book_id: BookId = None
) -> Result:
    """Every version of a paragraph's translation: id, kind, model, time, which is selected."""
    versions = await context.app.versions.all(await context.book_meant(book_id), paragraph_id)
    data = [
        {
            "version_id": v.id,
            "text": v.text,
            "kind": v.kind.value,
            "model": v.model,
            "created_at": v.created_at.isoformat(timespec="seconds"),
            "selected": v.selected,
        }
        for v in versions
    ]
    return _done(f"{_count(len(data), 'version')} of paragraph {paragraph_id}", {"versions": data})


@tool()
async def select_version(
    context: ChatContext, paragraph_id: str, version_id: int, book_id: BookId = None
) -> Result:
    """Make one of a paragraph's versions the one the book uses."""
    book = await context.book_meant(book_id)
    await context.app.versions.select(book, paragraph_id, version_id)
    return _done(f"version {version_id} is now paragraph {paragraph_id}'s translation")


@tool(needs_approval=True)
async def write_version(
    context: ChatContext,
    paragraph_id: str,
    text: Annotated[str, Field(min_length=1, description="The paragraph's text, on one line.")],
    book_id: BookId = None,
) -> Result:
    """Write a new translation of a paragraph, as a manual version; nothing is overwritten."""
    versions = await context.app.versions.write(
        await context.book_meant(book_id), paragraph_id, text
    )
    # A text the paragraph already held is not written again: that version is selected.
    selected = next(v for v in versions if v.selected)
    return _done(f"paragraph {paragraph_id} now uses this text: version {selected.id}, selected")


def _paragraph(paragraph: Paragraph) -> dict[str, Any]:
    return {
        "id": paragraph.id,
        "index": paragraph.index + 1,
        "text": paragraph.text,
        "translation": paragraph.translation,
    }


# -- the plan --------------------------------------------------------------------------------------


@tool()
async def create_task(
    context: ChatContext,
    title: Annotated[str, Field(min_length=1)],
    area_id: Annotated[str | None, Field(description="The book the task is about.")] = None,
    scheduled_date: Annotated[str | None, Field(description="YYYY-MM-DD; leave out.")] = None,
    chapters: Chapters = None,
    job_kind: JobKindName | None = None,
) -> Result:
    """Add a task to the translator's plan, in a book's area, on a day or unscheduled."""
    book_id = await context.book_meant(area_id) if area_id else None
    day = parse_date(scheduled_date) if scheduled_date else None
    task = await context.app.plans.create(
        title,
        book_id=book_id,
        scheduled_date=day,
        chapters=await _chapter_numbers(context, book_id, chapters),
        job_kind=job_kind,
    )
    return _done(f"task 「{task.title}」 created", _task(task))


@tool()
async def read_tasks(
    context: ChatContext,
    view_context: Annotated[
        str, Field(description="daily::YYYY-MM-DD, staging (no date) or area::<book id>.")
    ],
) -> Result:
    """List the plan's tasks of a day, the unscheduled ones, or a book's."""
    tasks = await context.app.plans.read(parse_view_context(view_context))
    return _done(f"{_count(len(tasks), 'task')} found", {"tasks": [_task(t) for t in tasks]})


@tool()
async def update_task(
    context: ChatContext, task_id: str, title: str | None = None, completed: bool | None = None
) -> Result:
    """Rename a task or mark it done (or not done)."""
    task = await context.app.plans.update(task_id, title=title, completed=completed)
    return _done("task updated", _task(task))


@tool()
async def create_schedule(context: ChatContext, task_id: str, scheduled_date: str) -> Result:
    """Schedule a task on a day (YYYY-MM-DD)."""
    day = parse_date(scheduled_date)
    task = await context.app.plans.update(task_id, scheduled_date=day)
    return _done(f"task scheduled on {day.isoformat()}", _task(task))


@tool(needs_approval=True)
async def delete_task(context: ChatContext, task_id: str) -> Result:
    """Delete a task from the plan."""
    task = await context.app.plans.delete(task_id)
    return _done(f"task 「{task.title}」 deleted")


def _task(task: PlanTask) -> dict[str, Any]:
    return {
        "id": task.id,
        "title": task.title,
        "area_id": task.book_id,
        "chapters": task.chapters,
        "job_kind": task.job_kind,
        "scheduled_date": task.scheduled_date.isoformat() if task.scheduled_date else None,
        "completed": task.completed,
    }


async def _chapter_numbers(
    context: ChatContext, book_id: str | None, chapters: str | None
) -> list[int] | None:
    if not chapters:
        return None
    if book_id is None:
        raise ToolError("MISSING_PARAMETER", "chapters belong to a book: give its id too")
    try:
        return await context.app.books.chapter_numbers(book_id, chapters)
    except UserError as exc:
        raise ToolError("INVALID_PARAMETER", str(exc)) from None


# -- work ------------------------------------------------------------------------------------


@tool(needs_approval=True)
async def start_job(
    context: ChatContext, kind: JobKindName, chapters: Chapters = None, book_id: BookId = None
) -> Result:
    """Start a translation, polish or proofreading job over chapters, in the background,
    with the book's own model (and its fallbacks) where it has one, else the chat's."""
    book = await context.book_meant(book_id)
    numbers = await _chapter_numbers(context, book, chapters)
    request = JobRequest(book_id=book, kind=JobKind(kind), chapters=numbers)
    chosen = await context.app.models.choose(ModelOptions(saved=True), book=book)
    model = chosen if chosen.model is not None else context.model
    job_id = await context.app.jobs.start(request, model)
    return _done(f"{kind} job {job_id} started", {"job_id": job_id})


@tool()
async def job_progress(context: ChatContext, job_id: str) -> Result:
    """A job's status, its paragraphs done, requests, tokens and spending."""
    progress = await context.app.jobs.progress(job_id)
    done, total = progress.paragraphs_done, progress.paragraphs_total
    message = f"job {job_id} is {progress.status}: {done}/{total} paragraphs"
    return _done(message, progress.figures())


BOOK_TOOLS = (
    list_books,
    book_info,
    read_paragraphs,
    search_paragraphs,
    paragraph_versions,
    select_version,
    write_version,
)
PLAN_TOOLS = (create_task, read_tasks, update_task, create_schedule, delete_task)
WORK_TOOLS = (start_job, job_progress)
ASSISTANT_TOOLS = BOOK_TOOLS + PLAN_TOOLS + WORK_TOOLS + QUESTION_TOOLS


def assistant_tools(*, questions: bool) -> tuple[Tool, ...]:
    """The assistant's tools; ``questions`` off, ``ask_user`` is answered without asking."""
    if questions:
        return ASSISTANT_TOOLS
    return BOOK_TOOLS + PLAN_TOOLS + WORK_TOOLS + SKIPPED_QUESTION_TOOLS
