"""One run of a job: opened and closed in one place, driven over lanes.

A run is a job's work in one process, driven one of two ways: the whole job here, its
chapters over several lanes at once (``JobService.run``), or one chapter of a queued job on a
worker (``JobService.run_chapter``). ``open_run`` opens either kind: it opens the model from
the choice, sets the run's spending cap and chunk sizing, opens the job (or joins the queued
one), and starts the heartbeat. On the way out, however the run ended, it writes what the run
did, gives its claims back and says how the job ended. ``JobRun.lanes`` is the only thing the
two drivers do differently: many chapters at once, or one.

A chapter's lane runs its chunks in order, each read as it stands when its turn comes (the
rest may have been planned again meanwhile), claiming each before it runs it
(``chunk_driver``). A chunk another process holds, or takes over, leaves it the chapter.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from honyaku.agent.broker import Broker
from honyaku.domain.book import Book
from honyaku.domain.workflow import JobKind
from honyaku.errors import SpendingCapReached, WorkerStopping
from honyaku.jobs.action_log import ActionLog
from honyaku.jobs.chunk_driver import ChunkDeps, ChunkDriver
from honyaku.jobs.chunk_run import ChunkTalk
from honyaku.jobs.claims import Claims
from honyaku.jobs.events import JobEvent, JobOutcome, JobStarted
from honyaku.jobs.heartbeat import heartbeat_s, keep_beating
from honyaku.jobs.instructions import job_prompt, job_registry
from honyaku.jobs.planning import plan_chunks, split_book
from honyaku.jobs.progress import JobProgress
from honyaku.jobs.records import JobRecords, in_thread, scope_of
from honyaku.jobs.replanning import Replanner
from honyaku.jobs.requests import JobRequest
from honyaku.jobs.scheduler import merged
from honyaku.jobs.sizing import ChunkSizing, sizing_for
from honyaku.jobs.spending import purse, spending_cap
from honyaku.llm.models import ConnectedModel, ModelChoice, ModelOpener, ToolProtocol
from honyaku.store.chunks import ChunkItem, ChunkStatus, Claim, PlannedChunk
from honyaku.store.glossary import BookGlossary
from honyaku.store.jobs import STOPPED_AS_ASKED, Job, JobScope, JobStatus
from honyaku.store.stores import Stores


@dataclass(frozen=True, slots=True)
class RunDeps:
    """What every run works with, whichever driver drives it."""

    stores: Stores
    broker: Broker
    open_model: ModelOpener


@dataclass(frozen=True, slots=True)
class QueuedChapter:
    """A run of one chapter of a queued job, on a worker: its questions park their chunk for
    a person, and its spending is one ledger with the other workers' runs."""

    job: Job
    chapter: int
    ledger: str
    """The key of the queued run's spending ledger."""


class JobRun:
    """One run's state: its job and book, what it has left, its figures, how it ended."""

    def __init__(
        self,
        job: Job,
        book: Book,
        records: JobRecords,
        chunks: ChunkDriver,
        started: JobStarted,
        progress: JobProgress,
        chapters: list[int],
    ) -> None:
        self.job, self.book, self.records, self.chunks = job, book, records, chunks
        self.claims = chunks.deps.claims
        self.started = started
        self.progress = progress
        """The run's figures, from when it started."""
        self.chapters = chapters
        """The chapters with chunks left to run, the lanes to drive."""
        self.log = ActionLog(records)
        self.stop_seen = False
        """The heartbeat found the job asked to stop."""
        self.blocked = False
        """A chunk of a lane was held by another live process."""
        self.capped: SpendingCapReached | None = None
        """Why the run stopped taking chunks: the next request could pass its cap."""

    async def lanes(self, *, concurrency: int) -> AsyncIterator[JobEvent]:
        """The run's chapters, ``concurrency`` at once, their events as they come; each is
        kept in the job's log and figures first."""
        async for event in merged(self.chapters, self._chapter, concurrency=concurrency):
            await self.log.follow(event)
            self.progress.follow(event)
            yield event
        if self.capped is not None:
            raise self.capped

    async def outcome(self) -> JobOutcome:
        """How the job stands now that the run's lanes ended, its end written."""
        failures = [(f.where.chapter, f.reason) for f in self.progress.failures]
        job, elsewhere = await self.records.end(failures)
        progress = self.progress
        return JobOutcome(
            job,
            progress.failures,
            progress.paragraphs_total,
            progress.paragraphs_done,
            progress.paragraphs_busy,
            elsewhere,
        )

    async def _chapter(self, number: int) -> AsyncIterator[JobEvent]:
        """A chapter's chunks in order, until one is held elsewhere, waits for a person, or
        the run's cap is reached."""
        after = 0
        while self.capped is None:
            item = await self.records.next_item(number, after)
            if item is None:
                return
            claim = await self.claims.take(item.pk)
            if claim is None:
                continue  # planned again meanwhile: read the chapter's rest again
            after = item.planned.number
            if claim is ChunkStatus.RUNNING:
                self.blocked = True
                return
            if not isinstance(claim, Claim):
                return  # it waits for a person, or ended meanwhile
            try:
                async for event in self.chunks.run(claim):
                    yield event
            except SpendingCapReached as reached:
                # The other chapters finish what they have paid for, then stop too.
                self.capped = reached
                return
            if self.claims.left_here(claim.token):
                return


@asynccontextmanager
async def open_run(
    deps: RunDeps,
    request: JobRequest,
    choice: ModelChoice,
    *,
    queued: QueuedChapter | None = None,
) -> AsyncIterator[JobRun]:
    """A run of the job ``request`` asks for (or of ``queued``'s chapter) with the chosen
    model, from its model opened to its claims given back."""
    beat_s = heartbeat_s()
    records = JobRecords(deps.stores)
    scope = scope_of(queued.job) if queued else await records.scope(request)
    book = await records.book(request.book_id, scope.chapters)
    cap = spending_cap(request.max_cost, book, choice.prices)
    async with deps.open_model(choice, language=book.target_lang) as model:
        sizing = await _sizing(records, book, request.kind, model, choice)
        fixed = request.chunk_chars
        if queued:
            # Its chunks keep the size they were queued with: workers do not plan them again
            # each by what it learned, only what did not fit the model's window.
            fixed = queued.job.chunk_chars or book.settings.chunk_chars
        chunk_chars = fixed or sizing.chunk_chars()
        if queued:
            job, resumed = queued.job, True
        else:
            planned = planned_chunks(book, scope, chunk_chars)
            job, resumed = await in_thread(
                records.open_job,
                scope,
                planned,
                model=model.provider.model,
                protocol=model.protocol.value,
                resume=request.resume,
                chunk_chars=chunk_chars,
            )
        records = records.of(job)
        replanner = Replanner(
            records,
            book,
            sizing,
            model.window,
            chunk_chars=job.chunk_chars or chunk_chars,
            fixed=fixed,
        )
        if resumed and not queued and job.chunk_chars != chunk_chars:
            await replanner.replan(chunk_chars)
        shared = (deps.stores.spending, queued.ledger) if queued else None
        chunk_deps = ChunkDeps(
            deps.stores,
            records,
            Claims(records),
            replanner,
            await _talk(records, deps.broker, book, job.kind, request, model, sizing),
            deps.broker,
            purse(cap, choice.prices, shared),
            BookGlossary(deps.stores.glossary, book.id),
            book.settings.question_wait_hours * 3600 if queued else None,
        )
        run = await _started(records, job, book, chunk_deps, choice, queued, resumed=resumed)
        task = asyncio.current_task()
        assert task is not None
        heartbeat = asyncio.create_task(keep_beating(run, task, beat_s))
        try:
            yield run
        except BaseException as exc:
            # However the run ended (a stop, Ctrl-C, a refused key, a worker stopping), what
            # it did and what it cost are written, and its chunks are free for the next run.
            # On the loop: a cancelled task cannot wait for a thread, and these are a few
            # short writes.
            run.log.write_now()
            records.release_now(run.claims.end())
            if ending := _job_ending(exc, on_worker=queued is not None, stop_seen=run.stop_seen):
                records.finish_now(*ending)
            raise
        finally:
            heartbeat.cancel()


def _job_ending(
    exc: BaseException, *, on_worker: bool, stop_seen: bool
) -> tuple[JobStatus, str] | None:
    """How ``exc`` ends the run's job; ``None`` when the job goes on elsewhere (a worker
    stopping gives its chunk back)."""
    if isinstance(exc, WorkerStopping):
        return None
    if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | GeneratorExit):
        if on_worker and not stop_seen:
            return None  # the worker is shutting down hard: its chapter goes on elsewhere
        return JobStatus.INTERRUPTED, STOPPED_AS_ASKED
    if isinstance(exc, SpendingCapReached):
        return JobStatus.INTERRUPTED, str(exc)
    return JobStatus.FAILED, str(exc) or type(exc).__name__


async def _sizing(
    records: JobRecords, book: Book, kind: JobKind, model: ConnectedModel, choice: ModelChoice
) -> ChunkSizing:
    name = model.provider.model
    record = await records.model_record(name, kind)
    return await asyncio.to_thread(
        sizing_for,
        book,
        kind,
        model=name,
        record=record,
        prices=choice.prices,
        window=model.window.tokens,
        xml=model.protocol is ToolProtocol.XML,
    )


async def _talk(
    records: JobRecords,
    broker: Broker,
    book: Book,
    kind: JobKind,
    request: JobRequest,
    model: ConnectedModel,
    sizing: ChunkSizing,
) -> ChunkTalk:
    """How every chunk of the run talks to the model: the same prompt and tools for each."""
    approval = await records.approvals(broker, book.id)
    return ChunkTalk(
        model.provider,
        job_registry(kind, book.settings, approval),
        job_prompt(book, kind),
        request.limits,
        model.window,
        sizing.tokens,
    )


async def _started(
    records: JobRecords,
    job: Job,
    book: Book,
    deps: ChunkDeps,
    choice: ModelChoice,
    queued: QueuedChapter | None,
    *,
    resumed: bool,
) -> JobRun:
    total, to_do = await records.to_do(job, book)
    items = await records.items()
    if queued:
        items = [i for i in items if i.planned.chapter_number == queued.chapter]
    chapters = _lanes(items)
    left = sum(1 for item in items if item.status is not ChunkStatus.DONE)
    started = JobStarted(job, total, total - len(to_do), left, resumed)
    progress = JobProgress.starting(started, choice.prices)
    return JobRun(
        job, book, records, ChunkDriver(deps, job, book, to_do), started, progress, chapters
    )


def _lanes(items: Sequence[ChunkItem]) -> list[int]:
    """The chapters with chunks left to run, one lane each, those with the most chunks
    first: the job ends closest to its critical path."""
    left = Counter(i.planned.chapter_number for i in items if i.status is not ChunkStatus.DONE)
    return sorted(left, key=lambda number: (-left[number], number))


def planned_chunks(book: Book, scope: JobScope, chunk_chars: int) -> list[PlannedChunk]:
    """The chunks of a new job over ``scope``, at ``chunk_chars``."""
    only = None if scope.paragraphs is None else set(scope.paragraphs)
    chapters = split_book(
        book,
        scope.kind,
        retranslate=scope.retranslate,
        written=set(),
        chunk_chars=chunk_chars,
        only=only,
    )
    return plan_chunks(chapters)
