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
Consecutive chapters shorter than a chunk (and the first chunk of the chapter after them)
share a lane, and first one conversation (``domain.chunking.conversations``); then each goes
on as a chapter's lane would, with what that conversation left. A worker's run, one chapter
of a queued job, has a lane of its own.

A chapter whose parts failed is not done yet: in rounds, what failed is tried again, each
part split in halves so that what fails is isolated, down to a single paragraph; what still
fails then goes to the next model of the chain (``model_chain``), as it is. A failure every
part would meet (a refused key, the cap) is raised and stops the run instead.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from honyaku.agent.broker import Broker
from honyaku.domain.book import Book
from honyaku.domain.chunking import Opening, conversations
from honyaku.domain.rounds import (
    FailedPart,
    HandOver,
    Part,
    Round,
    RoundHistory,
    Split,
    Stop,
    Wait,
    next_round,
)
from honyaku.errors import SpendingCapReached, WorkerStopping
from honyaku.jobs.action_log import ActionLog
from honyaku.jobs.chunk_driver import ChunkDeps, ChunkDriver, ModelDeps
from honyaku.jobs.claims import Claims
from honyaku.jobs.events import JobEvent, JobOutcome, JobStarted, RoundStarted, Where
from honyaku.jobs.heartbeat import heartbeat_s, keep_beating
from honyaku.jobs.instructions import job_prompt, job_registry
from honyaku.jobs.model_chain import Connected, ModelChain
from honyaku.jobs.planning import plan_chunks, split_book
from honyaku.jobs.progress import JobProgress
from honyaku.jobs.records import JobRecords, scope_of
from honyaku.jobs.replanning import Replanner
from honyaku.jobs.requests import JobRequest
from honyaku.jobs.scheduler import merged
from honyaku.jobs.spending import purse, spending_cap
from honyaku.llm.models import ModelChoice, ModelOpener
from honyaku.store.chunks import ChunkItem, ChunkStatus, Claim, PlannedChunk
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
        deps: ChunkDeps,
        models: ModelChain,
        to_do: set[str],
        started: JobStarted,
        chapters: list[list[int]],
        pace_wait_s: float,
    ) -> None:
        self.job, self.book, self.deps, self.models = job, book, deps, models
        self.records, self.claims = deps.records, deps.claims
        self.to_do = to_do
        """The ids of the job's paragraphs left when the run began."""
        self.started = started
        self.progress = JobProgress.starting(started)
        """The run's figures, from when it started."""
        self.chapters = chapters
        """The chapters with chunks left to run, by lane: one chapter, or short ones that
        share a conversation."""
        self.pace_wait_s = pace_wait_s
        """How long a round first waits for a server that did not keep pace."""
        self.log = ActionLog(deps.records)
        self.stop_seen = False
        """The heartbeat found the job asked to stop."""
        self.blocked = False
        """A chunk of a lane was held by another live process."""
        self.capped: SpendingCapReached | None = None
        """Why the run stopped taking chunks: the next request could pass its cap."""

    async def lanes(self, *, concurrency: int) -> AsyncIterator[JobEvent]:
        """The run's chapters, ``concurrency`` at once, their events as they come; each is
        kept in the job's log and figures first."""
        async for event in merged(self.chapters, self._lane, concurrency=concurrency):
            await self.log.follow(event)
            self.progress.follow(event)
            yield event
        if self.capped is not None:
            raise self.capped

    async def outcome(self, *, stopped: bool = False) -> JobOutcome:
        """How the job stands now that the run's lanes ended (or it was ``stopped``, its
        end written already), as the database has it."""
        records = self.records
        ending = await records.run(records.end, self.job, stopped=stopped)
        progress = self.progress
        return JobOutcome(
            ending.job,
            ending.failures,
            ending.coverage.paragraphs,
            ending.coverage.paragraphs_done,
            progress.paragraphs_busy,
            ending.running_elsewhere,
            ending.left,
            ending.coverage,
            self.models.prices,
        )

    async def _lane(self, numbers: list[int]) -> AsyncIterator[JobEvent]:
        """The lane's chapters: short ones in one conversation first, if they share one;
        then each chapter's parts waiting to run, and its rounds."""
        first = self.models.first
        if len(numbers) > 1:
            async for event in self._converse(await self._together(numbers), first):
                yield event
        for number in numbers:
            async for event in self._pending(number, first):
                yield event
            async for event in self._rounds(number):
                yield event

    async def _together(self, numbers: list[int]) -> list[Claim]:
        """The first parts waiting to run of consecutive chapters of ``numbers``, claimed
        for one conversation: up to one that is not its chapter's last, or to a gap (a
        chapter whose first part is not there to take)."""
        claims: list[Claim] = []
        for number in numbers:
            item = await self.records.run(self.records.next_item, number, 0)
            claim = None
            if item is not None and item.status is ChunkStatus.PENDING:
                claim = await self.claims.take(item.pk)
            if not isinstance(claim, Claim):
                if claims:
                    break  # the chapters after this one are not next to those claimed
                continue
            claims.append(claim)
            if not _is_last(claim.item):
                break
        return claims

    async def _pending(self, number: int, model: ModelDeps) -> AsyncIterator[JobEvent]:
        """The chapter's parts waiting to run, in order, each in a conversation of its own
        with ``model``, past every part that has ended; until one is held elsewhere or waits
        for a person, or the run's cap is reached."""
        after = 0
        while self.capped is None:
            item = await self.records.run(self.records.next_item, number, after)
            if item is None:
                return
            claim = await self.claims.take(item.pk)
            if claim is None:
                continue  # planned again meanwhile: read the chapter's rest again
            after = item.planned.number
            if claim is ChunkStatus.RUNNING:
                self.blocked = True
                return
            if claim is ChunkStatus.WAITING:
                return  # the chapter waits for a person's answer with it
            if not isinstance(claim, Claim):
                continue  # it ended meanwhile
            async for event in self._converse([claim], model):
                yield event
            if self.claims.left_here(claim.token):
                return

    async def _converse(self, claims: list[Claim], model: ModelDeps) -> AsyncIterator[JobEvent]:
        """One conversation with ``model`` over the claimed parts; a cap reached ends the
        run's taking of parts, the other lanes finishing what they paid for."""
        if not claims:
            return
        if self.capped is not None:
            for claim in claims:
                await self.claims.give_back(claim.token)
            return
        driver = ChunkDriver(self.deps, model, self.job, self.book, self.to_do)
        try:
            async for event in driver.run(claims):
                yield event
        except SpendingCapReached as reached:
            self.capped = reached

    async def _rounds(self, number: int) -> AsyncIterator[JobEvent]:
        """While parts of the chapter failed: the next round (``domain.rounds``), carried
        out, until it says to stop."""
        history, round_ = RoundHistory(), 1
        records = self.records
        while self.capped is None and (
            failed := await records.run(records.failed_parts, self.job, number)
        ):
            step = next_round(
                [FailedPart(i.pk, part, i.failure.kind) for i, part in failed if i.failure],
                history,
                models=self.models.size,
                pace_wait_s=self.pace_wait_s,
            )
            if isinstance(step, Stop):
                return
            if isinstance(step, Wait):
                await asyncio.sleep(step.seconds)
            history, round_ = step.history, round_ + 1
            plan = _plan(step, {item.pk: part for item, part in failed})
            model = self.models.model(history.model)
            await records.run(records.retry, plan, round_)
            retried = tuple(Where.of(item.planned) for item, _ in failed if item.pk in plan)
            parts = sum(len(pieces) for pieces in plan.values())
            yield RoundStarted(number, round_, model.name, retried, parts)
            async for event in self._pending(number, model):
                yield event


def _plan(step: Round, failed: Mapping[int, Part]) -> dict[int, list[Part]]:
    """The parts a round runs, by the failed part each comes from."""
    match step:
        case Split(parts=parts):
            return {key: list(pieces) for key, pieces in parts.items()}
        case Wait(keys=keys) | HandOver(keys=keys):
            return {key: [failed[key]] for key in keys}
    return {}


@asynccontextmanager
async def open_run(
    deps: RunDeps,
    request: JobRequest,
    choice: ModelChoice,
    *,
    queued: QueuedChapter | None = None,
) -> AsyncIterator[JobRun]:
    """A run of the job ``request`` asks for (or of ``queued``'s chapter) with the chosen
    model and its fallbacks, from its model opened to its claims given back."""
    beat_s = heartbeat_s()
    records = JobRecords(deps.stores)
    scope = scope_of(queued.job) if queued else await records.run(records.scope, request)
    book = await records.run(records.book, request.book_id, scope.chapters)
    cap = spending_cap(request.max_cost, book, choice.prices)
    for fallback in choice.fallbacks:
        spending_cap(request.max_cost, book, fallback.prices)
    talk = (
        job_registry(
            request.kind,
            book.settings,
            await records.run(records.approvals, deps.broker, book.id),
        ),
        job_prompt(book, request.kind),
    )
    shared = (deps.stores.spending, queued.ledger) if queued else None
    async with AsyncExitStack() as opened:
        models = ModelChain(
            deps.open_model, opened, book, request, talk, purse(cap, choice.prices, shared)
        )
        chain = await models.connect(choice, records)
        job, resumed, replanner = await _job(records, request, scope, book, chain[0], queued)
        models.start(chain, replanner)
        run = await _started(deps, request, replanner, models, job, book, queued, resumed)
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
            run.records.release(run.claims.end())
            if ending := _job_ending(exc, on_worker=queued is not None, stop_seen=run.stop_seen):
                run.records.finish(*ending)
            raise
        finally:
            heartbeat.cancel()


async def _job(
    records: JobRecords,
    request: JobRequest,
    scope: JobScope,
    book: Book,
    first: Connected,
    queued: QueuedChapter | None,
) -> tuple[Job, bool, Replanner]:
    """The run's job, opened (or resumed) and planned at the size its model is best served
    by, or joined as the queue hands it over; whether it goes on from an earlier run; and
    how its chunks are planned again."""
    sizing, model = first.sizing, first.model
    fixed = request.chunk_chars
    if queued:
        # Its chunks keep the size they were queued with: workers do not plan them again each
        # by what it learned, only what did not fit the model's window.
        fixed = queued.job.chunk_chars or book.settings.chunk_chars
    chunk_chars = fixed or sizing.chunk_chars()
    if queued:
        job, resumed = queued.job, True
    else:
        job, resumed = await records.run(
            records.open_job,
            scope,
            planned_chunks(book, scope, chunk_chars),
            model=model.provider.model,
            protocol=model.protocol.value,
            resume=request.resume,
            chunk_chars=chunk_chars,
        )
    replanner = Replanner(
        records.of(job),
        book,
        sizing,
        model.window,
        chunk_chars=job.chunk_chars or chunk_chars,
        fixed=fixed,
    )
    if resumed and not queued and job.chunk_chars != chunk_chars:
        await replanner.replan(chunk_chars)
    return job, resumed, replanner


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


async def _started(
    deps: RunDeps,
    request: JobRequest,
    replanner: Replanner,
    models: ModelChain,
    job: Job,
    book: Book,
    queued: QueuedChapter | None,
    resumed: bool,
) -> JobRun:
    records = replanner.records
    total, to_do = await records.run(records.to_do, job, book)
    items = await records.run(records.items)
    if queued:
        items = [i for i in items if i.planned.chapter_number == queued.chapter]
    left = sum(1 for item in items if item.status is not ChunkStatus.DONE)
    started = JobStarted(job, total, total - len(to_do), left, resumed, models.prices)
    chunk_deps = ChunkDeps(
        records,
        Claims(records),
        deps.broker,
        records.book_glossary(book.id),
        book.settings.question_wait_hours * 3600 if queued else None,
    )
    lanes = [[queued.chapter]] if queued else _lanes(items, book, replanner.chunk_chars)
    return JobRun(job, book, chunk_deps, models, to_do, started, lanes, request.pace_wait_s)


def _lanes(items: Sequence[ChunkItem], book: Book, chunk_chars: int) -> list[list[int]]:
    """The chapters with chunks left to run by lane, a lane each or short ones together,
    those with the most chunks first: the job ends closest to its critical path."""
    left = [i for i in items if i.status is not ChunkStatus.DONE]
    chunks = Counter(i.planned.chapter_number for i in left)
    chars = {p.id: len(p.text) for c in book.chapters for p in c.paragraphs}
    first: dict[int, ChunkItem] = {}
    for item in left:
        first.setdefault(item.planned.chapter_number, item)
    openings = [
        Opening(n, sum(chars.get(pid, 0) for pid in item.planned.paragraph_ids), chunks[n] == 1)
        if item.status is ChunkStatus.PENDING
        else n
        for n, item in sorted(first.items())
    ]
    lanes = conversations(openings, chunk_chars)
    return sorted(lanes, key=lambda lane: (-sum(chunks[n] for n in lane), lane[0]))


def _is_last(item: ChunkItem) -> bool:
    """The chunk is the last of its chapter's plan: the next chapter may follow it."""
    return item.planned.number == item.planned.chunks_in_chapter


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
