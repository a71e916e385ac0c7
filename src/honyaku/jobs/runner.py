"""Running a job over a book's chapters: chapters in parallel, each chapter's chunks in order.

Each chunk is a fresh conversation. Accepted batches are written as they come, so a job that
dies (crash, SIGKILL, Ctrl-C) resumes where they stopped: the next run of the same job kind
over the same chapters picks up the unfinished job and skips every paragraph it already wrote.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from honyaku.agent.loop import LoopLimits, Nudged, ToolFinished, ToolStarted, run_loop
from honyaku.agent.registry import Tool, ToolRegistry, result_summary
from honyaku.domain.book import Book, Chapter, Paragraph
from honyaku.domain.chunking import Chunk, split_into_chunks
from honyaku.domain.workflow import JobKind
from honyaku.errors import FatalProviderError, LoopError, ProviderError
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
from honyaku.llm.events import ChatProvider, Response, Retry
from honyaku.llm.messages import Message, SystemMessage, UserMessage
from honyaku.store.jobs import FAILED, FINISHED, INTERRUPTED, Action, Job, JobCost, JobStore
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
        tools: tuple[Tool, ...] = TASK_TOOLS,
        report: Callable[[JobEvent], None] = lambda event: None,
    ) -> None:
        self.library = library
        self.jobs = jobs
        self.provider = provider
        self.protocol = protocol
        self.registry = ToolRegistry(tools)
        self.report = report

    async def run(self, request: JobRequest) -> JobOutcome:
        book = self.library.get_book(request.book_id, chapter_numbers=request.chapters)
        job, resumed = self._open_job(request)
        done = self._done_before(job, book, request)
        plans = _plan(book, request, done)
        total = sum(len(_work_of(c, request.kind)) for c in book.chapters)
        already = total - sum(len(chunk.paragraphs) for plan in plans for chunk in plan.chunks)
        self.report(JobStarted(job, total, already, sum(len(p.chunks) for p in plans), resumed))
        failures: list[ChunkFailure] = []
        try:
            await self._run_chapters(job, book, request, plans, failures)
        except BaseException as exc:
            status = (
                INTERRUPTED
                if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt))
                else FAILED
            )
            self.jobs.finish(job.id, status, str(exc) or type(exc).__name__)
            raise
        self.jobs.finish(job.id, FAILED if failures else FINISHED, _failure_text(failures))
        finished = self.jobs.get(job.id)
        done_now = total - sum(_unfinished(plans, failures))
        return JobOutcome(finished, failures, total, done_now)

    def _open_job(self, request: JobRequest) -> tuple[Job, bool]:
        previous = self.jobs.resumable(request.book_id, request.kind, request.chapters)
        if previous is not None and not request.retranslate:
            self.jobs.reopen(previous.id)
            return previous, True
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

    async def _run_chapters(
        self,
        job: Job,
        book: Book,
        request: JobRequest,
        plans: list[_ChapterPlan],
        failures: list[ChunkFailure],
    ) -> None:
        gate = asyncio.Semaphore(request.concurrency)

        async def run_chapter(plan: _ChapterPlan) -> None:
            async with gate:
                for chunk in plan.chunks:
                    if failure := await self._run_chunk(
                        job, book, request, chunk, len(plan.chunks)
                    ):
                        failures.append(failure)

        # Longest chapters first: the job ends closest to its critical path.
        ordered = sorted(plans, key=lambda plan: -len(plan.chunks))
        try:
            async with asyncio.TaskGroup() as group:
                for plan in ordered:
                    group.create_task(run_chapter(plan))
        except BaseExceptionGroup as group:
            # Only a fatal error escapes a chapter (a refused key, an unknown model): the
            # first one says it all, and the other chapters were cancelled by it.
            raise group.exceptions[0] from None

    async def _run_chunk(
        self, job: Job, book: Book, request: JobRequest, chunk: Chunk, chunks_in_chapter: int
    ) -> ChunkFailure | None:
        task = ChunkTask(self.library, book, job.id, request.kind, chunk, self.provider.model)
        where = (chunk.chapter.order, chunk.number)
        self.report(ChunkStarted(*where, len(chunk.paragraphs)))
        history: list[Message] = [
            SystemMessage(system_prompt(request.kind, book.source_lang, book.target_lang)),
            UserMessage(chunk_message(chunk, request.kind, chunks_in_chapter=chunks_in_chapter)),
        ]
        recorder = _ActionRecorder(self.jobs, job.id, chunk)
        try:
            async for event in run_loop(
                self.provider, history, self.registry, task, task, request.limits
            ):
                await self._follow(event, task, recorder, where)
        except FatalProviderError:
            await recorder.flush()
            raise
        except (LoopError, ProviderError) as exc:
            recorder.add(Action("error", None, {"message": str(exc)}))
            await recorder.flush()
            self.report(ChunkFinished(*where, str(exc)))
            return ChunkFailure(*where, str(exc))
        await recorder.flush()
        if unchanged := len(chunk.paragraphs) - len(task.accepted):
            self.report(ParagraphsDone(unchanged))
        self.report(ChunkFinished(*where, None))
        return None

    async def _follow(
        self, event: object, task: ChunkTask, recorder: _ActionRecorder, where: tuple[int, int]
    ) -> None:
        match event:
            case Response(message=message, usage=usage):
                await recorder.flush()
                recorder.cost += JobCost(
                    requests=1,
                    input_chars=usage.input_chars,
                    output_chars=usage.output_chars,
                    input_tokens=usage.input_tokens or 0,
                    output_tokens=usage.output_tokens or 0,
                    cached_tokens=usage.cached_tokens or 0,
                )
                if message.text.strip():
                    recorder.add(Action("text", None, {"text": message.text}))
                self.report(RequestFinished(*where, usage))
            case Retry(attempt=attempt, delay_s=delay, reason=reason):
                recorder.cost += JobCost(retries=1)
                recorder.add(Action("retry", None, {"attempt": attempt, "reason": reason}))
                self.report(RetryScheduled(*where, attempt, delay, reason))
            case ToolStarted(call=call):
                payload = {"id": call.id, "arguments": dict(call.arguments)}
                if call.error:
                    payload |= {"raw_arguments": call.raw_arguments, "error": call.error.message}
                recorder.add(Action("tool_call", call.name, payload))
                recorder.accepted_before = len(task.accepted)
            case ToolFinished(call=call, result=result):
                recorder.add(Action("tool_result", call.name, {"id": call.id, **result}))
                if newly := len(task.accepted) - recorder.accepted_before:
                    self.report(ParagraphsDone(newly))
                self.report(ToolRan(*where, call.name, result_summary(result)))
            case Nudged(text=text):
                recorder.add(Action("nudge", None, {"text": text}))


@dataclass
class _ActionRecorder:
    """Buffers a chunk's actions and cost; writes them once per turn."""

    jobs: JobStore
    job_id: str
    chunk: Chunk
    actions: list[Action] = field(default_factory=list)
    cost: JobCost = field(default_factory=JobCost)
    accepted_before: int = 0

    def add(self, action: Action) -> None:
        self.actions.append(
            Action(
                action.kind, action.name, action.payload, self.chunk.chapter.id, self.chunk.number
            )
        )

    async def flush(self) -> None:
        if self.actions or self.cost != JobCost():
            actions, cost = self.actions, self.cost
            self.actions, self.cost = [], JobCost()
            await asyncio.to_thread(self.jobs.record, self.job_id, actions, cost)


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


def _unfinished(plans: list[_ChapterPlan], failures: list[ChunkFailure]) -> list[int]:
    failed = {(f.chapter, f.chunk) for f in failures}
    return [
        len(chunk.paragraphs)
        for plan in plans
        for chunk in plan.chunks
        if (plan.chapter.order, chunk.number) in failed
    ]


def _failure_text(failures: list[ChunkFailure]) -> str | None:
    if not failures:
        return None
    first = failures[0]
    where = f"chapter {first.chapter} chunk {first.chunk}"
    return f"{len(failures)} chunk(s) failed; first: {where}: {first.reason}"
