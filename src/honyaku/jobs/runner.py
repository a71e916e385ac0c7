"""Running a job over a book's chapters: chapters in parallel, each chapter's chunks in order.

Each chunk is a fresh conversation. Accepted batches are written as they come, so a job that
dies (crash, SIGKILL, Ctrl-C) resumes where they stopped: the next run of the same job kind
over the same chapters picks up the unfinished job and skips every paragraph it already wrote.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from honyaku.agent.broker import ApprovalPolicy, Broker
from honyaku.agent.loop import LoopLimits, Nudged, ToolFinished, ToolStarted, run_loop
from honyaku.agent.questions import (
    QUESTION_TOOL_NAMES,
    QUESTION_TOOLS,
    SKIPPED_QUESTION_TOOLS,
    question_summary,
)
from honyaku.agent.registry import Result, ToolRegistry, result_summary
from honyaku.domain.book import Book, Chapter, Paragraph
from honyaku.domain.chunking import Chunk, split_into_chunks
from honyaku.domain.workflow import JobKind
from honyaku.errors import FatalProviderError, LoopError, ProviderError, UserError
from honyaku.jobs.events import (
    ChunkFinished,
    ChunkStarted,
    JobEvent,
    JobStarted,
    ParagraphsDone,
    RequestFinished,
    RetryScheduled,
    ToolRan,
)
from honyaku.jobs.prompts import chunk_message, system_prompt
from honyaku.jobs.task import ChunkTask
from honyaku.jobs.tools import TASK_TOOLS
from honyaku.llm.events import ChatProvider, Response, Retry, Usage
from honyaku.llm.messages import Message, SystemMessage, ToolCall, UserMessage
from honyaku.store.jobs import Action, Job, JobCost, JobStatus, JobStore
from honyaku.store.library import Library

CONCURRENCY = 4


@dataclass(frozen=True, slots=True)
class JobRequest:
    book_id: str
    kind: JobKind
    chapters: list[int] | None = None
    concurrency: int = CONCURRENCY
    retranslate: bool = False
    limits: LoopLimits = field(default_factory=LoopLimits)


@dataclass(frozen=True, slots=True)
class ChunkFailure:
    chapter: int
    chunk: int
    reason: str


@dataclass(frozen=True, slots=True)
class JobOutcome:
    job: Job
    failures: list[ChunkFailure]
    paragraphs_total: int
    paragraphs_done: int

    @property
    def ok(self) -> bool:
        return not self.failures


@dataclass
class _ChapterPlan:
    chapter: Chapter
    chunks: list[Chunk] = field(default_factory=list)


class JobRunner:
    def __init__(
        self,
        library: Library,
        jobs: JobStore,
        provider: ChatProvider,
        *,
        protocol: str = "native",
        broker: Broker | None = None,
        report: Callable[[JobEvent], None] = lambda event: None,
    ) -> None:
        self.library = library
        self.jobs = jobs
        self.provider = provider
        self.protocol = protocol
        self.broker = broker or Broker()
        self.report = report

    async def run(self, request: JobRequest) -> JobOutcome:
        book = self.library.get_book(request.book_id, chapter_numbers=request.chapters)
        job, resumed = self._open_job(request)
        plans = _plan(book, request, self._done_before(job, book, request))
        total = sum(len(_work_of(c, request.kind)) for c in book.chapters)
        to_do = sum(len(chunk.paragraphs) for plan in plans for chunk in plan.chunks)
        chunks = sum(len(p.chunks) for p in plans)
        self.report(JobStarted(job, total, total - to_do, chunks, resumed))
        run = _JobRun(self, job, book, request)
        try:
            await run.all_chapters(plans)
        except BaseException as exc:
            stopped = isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt))
            status = JobStatus.INTERRUPTED if stopped else JobStatus.FAILED
            self.jobs.finish(job.id, status, str(exc) or type(exc).__name__)
            raise
        failures = run.failures
        status = JobStatus.FAILED if failures else JobStatus.FINISHED
        self.jobs.finish(job.id, status, _failure_text(failures))
        return JobOutcome(self.jobs.get(job.id), failures, total, total - to_do + run.done)

    def _open_job(self, request: JobRequest) -> tuple[Job, bool]:
        previous = self.jobs.resumable(request.book_id, request.kind, request.chapters)
        if previous is not None and previous.runs_elsewhere():
            raise UserError(
                f"job {previous.id} on this book is running in another process "
                f"({previous.owner}); wait for it to end, or stop it first"
            )
        if previous is not None and not request.retranslate:
            self.jobs.reopen(previous.id, model=self.provider.model, protocol=self.protocol)
            return self.jobs.get(previous.id), True
        job = self.jobs.create(
            request.book_id,
            request.kind,
            request.chapters,
            model=self.provider.model,
            protocol=self.protocol,
        )
        return job, False

    def _done_before(self, job: Job, book: Book, request: JobRequest) -> set[str]:
        done = self.jobs.paragraphs_done(job.id)
        if request.kind is JobKind.TRANSLATION and not request.retranslate:
            done |= {p.id for c in book.chapters for p in c.paragraphs if p.translation}
        return done


@dataclass
class _JobRun:
    """One run of a job: its tools, its chapters in parallel, each chunk a conversation."""

    runner: JobRunner
    job: Job
    book: Book
    request: JobRequest
    failures: list[ChunkFailure] = field(default_factory=list)
    done: int = 0
    """Paragraphs finished in this run."""

    def __post_init__(self) -> None:
        settings = self.book.settings
        approval = ApprovalPolicy(
            self.runner.broker,
            set(settings.approve_tools),
            set(settings.always_allow),
            remember_always=self._always_allow,
        )
        if settings.skip_ask_user:
            questions, hidden = SKIPPED_QUESTION_TOOLS, QUESTION_TOOL_NAMES
        else:
            questions, hidden = QUESTION_TOOLS, ()
        self.registry = ToolRegistry(TASK_TOOLS + questions, hidden=hidden, approval=approval)
        self.system_prompt = system_prompt(
            self.request.kind,
            self.book.source_lang,
            self.book.target_lang,
            questions=not settings.skip_ask_user,
        )

    def _always_allow(self, tool: str) -> None:
        allowed = self.runner.library.settings(self.book.id).always_allow
        if tool not in allowed:
            self.runner.library.update_settings(self.book.id, always_allow=[*allowed, tool])

    def report(self, event: JobEvent) -> None:
        if isinstance(event, ParagraphsDone):
            self.done += event.count
        self.runner.report(event)

    async def all_chapters(self, plans: list[_ChapterPlan]) -> None:
        gate = asyncio.Semaphore(self.request.concurrency)

        async def chapter(plan: _ChapterPlan) -> None:
            async with gate:
                for chunk in plan.chunks:
                    await self.chunk(chunk, len(plan.chunks))

        # Longest chapters first: the job ends closest to its critical path.
        ordered = sorted(plans, key=lambda plan: -len(plan.chunks))
        try:
            async with asyncio.TaskGroup() as group:
                for plan in ordered:
                    group.create_task(chapter(plan))
        except BaseExceptionGroup as group:
            # Only a fatal error escapes a chapter (a refused key, an unknown model): the
            # first one says it all, and the other chapters were cancelled by it.
            raise group.exceptions[0] from None

    async def chunk(self, chunk: Chunk, chunks_in_chapter: int) -> None:
        runner = self.runner
        task = ChunkTask(
            runner.library,
            self.book,
            self.job.id,
            self.request.kind,
            chunk,
            runner.provider.model,
            runner.broker,
        )
        log = _ChunkLog(runner.jobs, self.job.id, task, self.report)
        self.report(ChunkStarted(*log.where, len(chunk.paragraphs)))
        history: list[Message] = [
            SystemMessage(self.system_prompt),
            UserMessage(
                chunk_message(chunk, self.request.kind, chunks_in_chapter=chunks_in_chapter)
            ),
        ]
        try:
            async for event in run_loop(
                runner.provider, history, self.registry, task, task, self.request.limits
            ):
                await log.follow(event)
        except (LoopError, ProviderError) as exc:
            if isinstance(exc, FatalProviderError):
                raise
            log.add(Action("error", None, {"message": str(exc)}))
            self.report(ChunkFinished(*log.where, str(exc)))
            self.failures.append(ChunkFailure(*log.where, str(exc)))
            return
        finally:
            # However the chunk ended (done, failed, Ctrl-C, another chapter's fatal error),
            # what it did and what it cost are written.
            log.write_now()
        if unchanged := len(chunk.paragraphs) - len(task.accepted):
            self.report(ParagraphsDone(unchanged))
        self.report(ChunkFinished(*log.where, None))


@dataclass
class _ChunkLog:
    """Turns a chunk's conversation into actions, cost and progress; writes once per turn."""

    jobs: JobStore
    job_id: str
    task: ChunkTask
    report: Callable[[JobEvent], None]
    actions: list[Action] = field(default_factory=list)
    cost: JobCost = field(default_factory=JobCost)
    accepted_before: int = 0

    @property
    def where(self) -> tuple[int, int]:
        return self.task.chunk.chapter.order, self.task.chunk.number

    def add(self, action: Action) -> None:
        chunk = self.task.chunk
        self.actions.append(
            Action(action.kind, action.name, action.payload, chunk.chapter.id, chunk.number)
        )

    async def flush(self) -> None:
        """Write what the turn did, off the event loop so other chapters keep streaming."""
        if pending := self._take():
            await asyncio.to_thread(self.jobs.record, self.job_id, *pending)

    def write_now(self) -> None:
        if pending := self._take():
            self.jobs.record(self.job_id, *pending)

    def _take(self) -> tuple[list[Action], JobCost] | None:
        if not self.actions and self.cost == JobCost():
            return None
        taken = self.actions, self.cost
        self.actions, self.cost = [], JobCost()
        return taken

    async def follow(self, event: object) -> None:
        match event:
            case Response(message=message, usage=usage):
                await self.flush()
                self.cost += _cost_of(usage)
                if message.text.strip():
                    self.add(Action("text", None, {"text": message.text}))
                self.report(RequestFinished(*self.where, usage))
            case Retry(attempt=attempt, delay_s=delay, reason=reason):
                self.cost += JobCost(retries=1)
                self.add(Action("retry", None, {"attempt": attempt, "reason": reason}))
                self.report(RetryScheduled(*self.where, attempt, delay, reason))
            case ToolStarted(call=call):
                self._called(call)
            case ToolFinished(call=call, result=result):
                self._finished(call, result)
            case Nudged(text=text):
                self.add(Action("nudge", None, {"text": text}))

    def _called(self, call: ToolCall) -> None:
        payload = {"id": call.id, "arguments": dict(call.arguments)}
        if call.error:
            payload |= {"raw_arguments": call.raw_arguments, "error": call.error.message}
        self.add(Action("tool_call", call.name, payload))
        self.accepted_before = len(self.task.accepted)

    def _finished(self, call: ToolCall, result: Result) -> None:
        self.add(Action("tool_result", call.name, {"id": call.id, **result}))
        if call.name in QUESTION_TOOL_NAMES:
            self.add(
                Action("question", call.name, question_summary(call.name, call.arguments, result))
            )
        if newly := len(self.task.accepted) - self.accepted_before:
            self.report(ParagraphsDone(newly))
        self.report(ToolRan(*self.where, call.name, result_summary(result)))


def _cost_of(usage: Usage) -> JobCost:
    return JobCost(
        requests=1,
        input_chars=usage.input_chars,
        output_chars=usage.output_chars,
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cached_tokens=usage.cached_tokens or 0,
    )


def _work_of(chapter: Chapter, kind: JobKind) -> list[Paragraph]:
    """A chapter's work items: non-empty paragraphs, and for revisions only translated ones."""
    work = chapter.work_paragraphs
    return list(work) if kind is JobKind.TRANSLATION else [p for p in work if p.translation]


def _plan(book: Book, request: JobRequest, done: set[str]) -> list[_ChapterPlan]:
    plans = []
    for chapter in book.chapters:
        work = [p for p in _work_of(chapter, request.kind) if p.id not in done]
        with_title = request.kind is JobKind.TRANSLATION and (
            chapter.translated_title is None or request.retranslate
        )
        chunks = split_into_chunks(
            chapter, work, max_chars=book.settings.chunk_chars, with_title=with_title
        )
        if chunks:
            plans.append(_ChapterPlan(chapter, chunks))
    return plans


def _failure_text(failures: list[ChunkFailure]) -> str | None:
    if not failures:
        return None
    first = failures[0]
    where = f"chapter {first.chapter} chunk {first.chunk}"
    return f"{len(failures)} chunk(s) failed; first: {where}: {first.reason}"
