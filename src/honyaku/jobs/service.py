"""Jobs as every front end runs them: open a job over a scope, run what is left of it, stop it.

``JobService.run`` opens the job (resuming an unfinished one over the same scope, or joining
one another process is running), then runs its chapters in parallel, each chapter's chunks in
order, claiming each chunk before it runs it. It yields the job's events; the action log and
the cost are kept from those same events before they are passed on. Accepted batches are
written as they come, so a job that dies (crash, SIGKILL, Ctrl-C) resumes where they stopped.

A heartbeat renews this process's claims and its share of the job's lease while the job
runs, stops the run when someone asked the job to stop (``JobService.stop``, from this or any
other process), and ends the conversation of a chunk another process took over (this one's
heartbeat had stalled past the claim timeout). Every write made under a claim shows its token,
so such a chunk's late writes are refused whatever the heartbeat knows yet.

Chunks are planned at the size that bills the model least and fits its context window
(``sizing``). As chunks end, the job learns how the model works; when that moves the best
size by more than a quarter, the chunks waiting to run are planned again. A chunk whose
conversation did not fit the window hands its rest over, and its chapter's rest (and every
other chapter's) is planned again in chunks that fit. A resumed job plans its chunks waiting
to run again when the size changed since.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import partial

from honyaku.agent.broker import Broker
from honyaku.agent.loop import LoopLimits
from honyaku.agent.registry import ToolRegistry
from honyaku.agent.replies import request_record
from honyaku.domain.book import Book, Chapter, Paragraph
from honyaku.domain.chunk_sizing import Weights
from honyaku.domain.chunking import Chunk, describe_failed_parts
from honyaku.domain.pricing import Prices
from honyaku.domain.tokens import TokenRatio
from honyaku.domain.workflow import ChunkWorkflow, JobKind
from honyaku.errors import (
    ClaimLost,
    ConfigError,
    HonyakuError,
    SpendingCapReached,
    StoreError,
    UserError,
    WorkerStopping,
)
from honyaku.jobs.action_log import ActionLog
from honyaku.jobs.approvals import book_approvals
from honyaku.jobs.chunk_run import ChunkTalk, run_chunk
from honyaku.jobs.events import (
    ChunkFailure,
    ChunkFinished,
    ChunkParked,
    ChunkTakenOver,
    HandOver,
    JobEvent,
    JobFinished,
    JobOutcome,
    JobStarted,
    ParagraphsBusy,
    ParagraphsDone,
    Where,
)
from honyaku.jobs.instructions import job_prompt, job_registry
from honyaku.jobs.parking import (
    ParkingFrontEnd,
    workflow_from_record,
    workflow_record,
)
from honyaku.jobs.planning import is_done, plan_chunks, replanner, still_to_do, title_wanted
from honyaku.jobs.progress import JobProgress, cost_change
from honyaku.jobs.scheduler import merged
from honyaku.jobs.sizing import ChunkSizing, chunk_sizing
from honyaku.jobs.spending import (
    CappedProvider,
    Purse,
    SharedSpending,
    Spending,
    check_cap,
    reply_bound,
)
from honyaku.jobs.tools import ChunkContext
from honyaku.llm.messages import message_from_record, message_record
from honyaku.llm.models import ConnectedModel, ModelChoice, ToolProtocol
from honyaku.llm.tokenizers import token_counter
from honyaku.store.chunks import ChunkItem, ChunkStatus, Claim, ClaimToken, HandedBack, PlannedChunk
from honyaku.store.glossary import BookGlossary
from honyaku.store.jobs import STOPPED_AS_ASKED, Job, JobCost, JobScope, JobStatus, Opened
from honyaku.store.leases import CLAIM_TIMEOUT_VARIABLE, claim_timeout_s
from honyaku.store.library import Library
from honyaku.store.questions import ParkedConversation
from honyaku.store.spending import SpendingLedger
from honyaku.store.stores import Stores

CONCURRENCY = 4
HEARTBEAT_S = 10.0
RESIZE_CHANGE = 0.25
"""How far the best chunk size must move before the chunks waiting to run are planned again."""
HEARTBEAT_VARIABLE = "HONYAKU_HEARTBEAT_S"
"""Seconds between a running job's heartbeats (default 10)."""


@dataclass(frozen=True, slots=True)
class JobRequest:
    book_id: str
    kind: JobKind
    chapters: list[int] | None = None
    """1-based chapter numbers; ``None`` for every chapter."""
    concurrency: int = CONCURRENCY
    """Chapters worked on at once."""
    retranslate: bool = False
    limits: LoopLimits = field(default_factory=LoopLimits)
    resume: str | None = None
    """The unfinished job to go on with; by default the one over the same scope, if any."""
    max_cost: float | None = None
    """What this run may spend at the model's prices; by default the book's ``max_cost``."""
    chunk_chars: int | None = None
    """Plan chunks of this size, not the one the model is best served by (a context window
    too small for it still makes them smaller)."""
    paragraphs: list[str] | None = None
    """Only these paragraphs (by id), in whichever chapters hold them; ``None`` for every
    work paragraph of the chapters."""


@dataclass(frozen=True, slots=True)
class ChapterOrder:
    """One chapter of a queued job, as the job queue hands it to a worker."""

    job_id: str
    chapter: int
    """1-based chapter number."""
    stops: int
    """The job's stops when its work was queued: one more since, and the order is void."""
    run: str
    """The queued run the order belongs to: its spending is counted together."""
    max_cost: float | None = None


class ChapterEnd(StrEnum):
    """How a queued chapter's turn on a worker ended."""

    DONE = "done"
    """Its chunks ran, or one waits for a person."""
    BLOCKED = "blocked"
    """Another live process holds one of its chunks: to be tried again later."""
    GIVEN_BACK = "given back"
    """The worker is stopping: the chunk it ran is given back, to go on elsewhere."""
    STOPPED = "stopped"
    """The job was stopped, reached its cap, or failed."""


class JobService:
    def __init__(self, stores: Stores, broker: Broker | None = None) -> None:
        self.stores = stores
        self.library = stores.library
        self.store = stores.jobs
        self.chunks = stores.chunks
        self.broker = broker or Broker()
        self._running: dict[str, asyncio.Task[object]] = {}

    async def run(self, request: JobRequest, model: ConnectedModel) -> AsyncIterator[JobEvent]:
        """Run the job ``request`` asks for with ``model``: ``JobStarted``, every chunk's
        events, then ``JobFinished``. A fatal provider error or a stop is raised after the
        job's state is saved."""
        beat_s = heartbeat_s()
        scope = await asyncio.to_thread(job_scope, self.library, request)
        book = await asyncio.to_thread(
            self.library.get_book, request.book_id, chapter_numbers=scope.chapters
        )
        spending = _spending(request, book, model)
        sizing = await asyncio.to_thread(self._sizing, book, request.kind, model)
        chunk_chars = request.chunk_chars or sizing.chunk_chars()
        planned = _planned(book, scope, chunk_chars)
        job, resumed = await asyncio.to_thread(
            self.store.open,
            scope,
            model=model.provider.model,
            protocol=model.protocol.value,
            planned=planned,
            resume=request.resume,
            chunk_chars=chunk_chars,
        )
        run = await asyncio.to_thread(
            _Run, self, job, book, request, model, spending, sizing, beat_s
        )
        if resumed and job.chunk_chars != chunk_chars:
            await run.replan(chunk_chars)
        items = await asyncio.to_thread(self.chunks.items, job.id)
        lanes = run.lanes(items)
        left = sum(1 for item in items if item.status is not ChunkStatus.DONE)
        started = JobStarted(job, run.total, run.total - len(run.to_do), left, resumed)
        run.progress = JobProgress.starting(started, model.prices)
        yield started
        async for event in self._running_job(run, lanes):
            yield event

    def open_queued(self, request: JobRequest, choice: ModelChoice, queued: Opened) -> Job:
        """Open the job ``request`` asks for (or reopen it) as a queued one, and queue its work
        (``queued``) in the same transaction; the model is the workers' to connect."""
        scope = job_scope(self.library, request)
        book = self.library.get_book(request.book_id, chapter_numbers=scope.chapters)
        cap = request.max_cost if request.max_cost is not None else book.settings.max_cost
        check_cap(cap, choice.prices)
        # Planned at the book's size (or the one asked): the model is the workers' to learn.
        chunk_chars = request.chunk_chars or book.settings.chunk_chars
        planned = _planned(book, scope, chunk_chars)
        job, _ = self.store.open(
            scope,
            model=str(choice.model),
            protocol=choice.protocol.value,
            planned=planned,
            resume=request.resume,
            queued=queued,
            chunk_chars=chunk_chars,
        )
        return job

    async def run_chapter(self, order: ChapterOrder, model: ConnectedModel) -> ChapterEnd:
        """Run one chapter of a queued job here, on a worker: its chunks in order, each
        question parked for a person; then settle the job's status."""
        beat_s = heartbeat_s()
        job = await asyncio.to_thread(self.store.join, order.job_id, order.stops)
        if job is None:
            return ChapterEnd.STOPPED
        book = await asyncio.to_thread(
            self.library.get_book, job.book_id, chapter_numbers=job.chapters
        )
        # Its chunks keep the size they were queued with: workers do not plan them again
        # each by what it learned, only what did not fit the model's window.
        request = JobRequest(
            job.book_id,
            job.kind,
            job.chapters,
            1,
            job.retranslate,
            max_cost=order.max_cost,
            chunk_chars=job.chunk_chars or book.settings.chunk_chars,
        )
        spending = _spending(request, book, model, (self.stores.spending, f"{job.id}:{order.run}"))
        sizing = await asyncio.to_thread(self._sizing, book, job.kind, model)
        run = await asyncio.to_thread(
            _Run, self, job, book, request, model, spending, sizing, beat_s, parking=True
        )
        items = await asyncio.to_thread(self.chunks.items, job.id)
        lanes = run.lanes([i for i in items if i.planned.chapter_number == order.chapter])
        started = JobStarted(job, run.total, run.total - len(run.to_do), len(lanes), True)
        run.progress = JobProgress.starting(started, model.prices)
        end = await self._running_chapter(run, lanes)
        status = await asyncio.to_thread(self.store.settle, job.id, job.stop_requests)
        return ChapterEnd.STOPPED if status is JobStatus.INTERRUPTED else end

    async def _running_chapter(self, run: _Run, lanes: list[int]) -> ChapterEnd:
        job = run.job
        log = ActionLog(self.store, job.id)
        task = asyncio.current_task()
        assert task is not None
        heartbeat = asyncio.create_task(self._heartbeat(run, task))
        try:
            async for event in merged(lanes, run.chapter, concurrency=1):
                await log.follow(event)
                run.progress.follow(event)
            if run.capped is not None:
                raise run.capped
        except BaseException as exc:
            log.write_now()
            self.chunks.release(list(run.held))
            if isinstance(exc, WorkerStopping):
                return ChapterEnd.GIVEN_BACK
            if isinstance(exc, asyncio.CancelledError) and not run.stop_seen:
                raise  # the worker is shutting down hard: the chunk is given back
            if isinstance(exc, Exception) and not isinstance(exc, HonyakuError):
                raise
            stopped = isinstance(exc, asyncio.CancelledError | SpendingCapReached)
            status = JobStatus.INTERRUPTED if stopped else JobStatus.FAILED
            self.store.finish(job.id, status, str(exc) or STOPPED_AS_ASKED)
            if isinstance(exc, asyncio.CancelledError):
                task.uncancel()
            return ChapterEnd.STOPPED
        finally:
            heartbeat.cancel()
        if run.stop_seen and task.cancelling():
            # The heartbeat saw the stop as the chapter ended: the cancel it sent would strike
            # the next await. Taken back, the stop is settled as one its beat missed.
            task.uncancel()
        return ChapterEnd.BLOCKED if run.blocked else ChapterEnd.DONE

    def _sizing(self, book: Book, kind: JobKind, model: ConnectedModel) -> ChunkSizing:
        name = model.provider.model
        record = self.store.model_record(name, kind)
        factor = TokenRatio.refined(record.estimated_input_tokens, record.input_tokens, 1)
        xml = model.protocol is ToolProtocol.XML
        return chunk_sizing(
            book,
            kind,
            token_counter(name),
            record=record,
            weights=Weights.of(model.prices),
            factor=factor.factor,
            window=model.window.tokens,
            xml_language=book.target_lang if xml else None,
        )

    async def _running_job(self, run: _Run, lanes: list[int]) -> AsyncIterator[JobEvent]:
        job = run.job
        log = ActionLog(self.store, job.id)
        task = asyncio.current_task()
        assert task is not None
        self._running[job.id] = task
        heartbeat = asyncio.create_task(self._heartbeat(run, task))
        try:
            async for event in merged(lanes, run.chapter, concurrency=run.request.concurrency):
                await log.follow(event)
                run.progress.follow(event)
                yield event
            if run.capped is not None:
                raise run.capped
        except BaseException as exc:
            # However the run ended (a stop, Ctrl-C, a refused key), what it did and what it
            # cost are written, and its chunks are free for the next run. On the loop: a
            # cancelled task cannot wait for a thread, and these are a few short writes.
            log.write_now()
            self.chunks.release(run.end())
            asked = isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | GeneratorExit)
            stopped = asked or isinstance(exc, SpendingCapReached)
            status = JobStatus.INTERRUPTED if stopped else JobStatus.FAILED
            reason = STOPPED_AS_ASKED if asked else str(exc) or type(exc).__name__
            self.store.finish(job.id, status, reason)
            raise
        finally:
            heartbeat.cancel()
            self._running.pop(job.id, None)
        yield JobFinished(await asyncio.to_thread(self._outcome, run))

    async def stop(self, job_id: str) -> None:
        """Stop a running job, here at once, in another process at its next heartbeat."""
        await asyncio.to_thread(self.store.request_stop, job_id)
        if task := self._running.get(job_id):
            task.cancel()

    def progress(self, job_id: str, prices: Prices | None = None) -> JobProgress:
        """A stored job's figures: its work paragraphs, those done, what it spent."""
        job = self.store.get(job_id)
        book = self.library.get_book(job.book_id, chapter_numbers=job.chapters)
        written = self.store.paragraphs_done(job.id)
        paragraphs, to_do = still_to_do(
            book, job.kind, retranslate=job.retranslate, written=written, only=_only(job)
        )
        progress = JobProgress.of(job, len(paragraphs), len(paragraphs) - len(to_do), prices)
        progress.workers = self.chunks.holders(job.id)
        progress.failures = [
            ChunkFailure(_where(item.planned), item.error or "")
            for item in self.chunks.items(job.id)
            if item.status is ChunkStatus.FAILED
        ]
        return progress

    async def _heartbeat(self, run: _Run, task: asyncio.Task[object]) -> None:
        while True:
            await asyncio.sleep(run.heartbeat_s)
            try:
                beat = await asyncio.to_thread(
                    self.chunks.beat, run.job.id, list(run.held), run.job.stop_requests
                )
            except StoreError:
                continue  # tried again at the next beat: a claim outlives several missed ones
            run.give_up(beat.lost)
            if beat.stop:
                run.stop_seen = True
                task.cancel()
                return

    def _outcome(self, run: _Run) -> JobOutcome:
        job = run.job
        items = self.chunks.items(job.id)
        elsewhere = self.chunks.live_elsewhere(job.id)
        waiting = any(i.status is ChunkStatus.WAITING for i in items)
        if not elsewhere and not waiting:
            left = [i for i in items if i.status is not ChunkStatus.DONE]
            status = JobStatus.FAILED if left else JobStatus.FINISHED
            self.store.finish(job.id, status, _failure_text(run.progress.failures, left))
        elif not elsewhere:
            self.store.settle(job.id)
        progress = run.progress
        return JobOutcome(
            self.store.get(job.id),
            progress.failures,
            progress.paragraphs_total,
            progress.paragraphs_done,
            progress.paragraphs_busy,
            elsewhere,
        )


class _Run:
    """One run of one job in this process: its tools, its plan, what it has done so far."""

    def __init__(
        self,
        service: JobService,
        job: Job,
        book: Book,
        request: JobRequest,
        model: ConnectedModel,
        spending: Purse | None,
        sizing: ChunkSizing,
        heartbeat_s: float,
        *,
        parking: bool = False,
    ) -> None:
        self.service, self.job, self.book, self.request = service, job, book, request
        self.spending = spending
        self.model = model
        self.sizing = sizing
        self.chunk_chars = job.chunk_chars or sizing.chunk_chars()
        """The size the chunks waiting to run are planned with."""
        self.heartbeat_s = heartbeat_s
        self.parking = parking
        """A queued job's run: questions park their chunk for a person (``jobs.parking``)."""
        self.stop_seen = False
        """The heartbeat found the job asked to stop."""
        self.blocked = False
        """A chunk of a lane was held by another live process."""
        self.parked: set[ClaimToken] = set()
        self.held: dict[ClaimToken, asyncio.Task[object] | None] = {}
        """The claims this run holds, each with the lane running its chunk."""
        self.lost: set[ClaimToken] = set()
        """Claims another process took over."""
        self.ended = False
        """The run has ended: it takes no more claims."""
        self._claiming = threading.Lock()
        self.capped: SpendingCapReached | None = None
        """Why the run stopped taking chunks: the next request could pass its cap."""
        written = service.store.paragraphs_done(job.id)
        paragraphs, self.to_do = still_to_do(
            book, job.kind, retranslate=job.retranslate, written=written, only=_only(job)
        )
        if job.kind is JobKind.EXTRACTION:
            self.to_do = self._extraction_to_do()
        self.total = len(paragraphs)
        self.glossary = BookGlossary(service.stores.glossary, book.id)
        self.talk = ChunkTalk(
            model.provider,
            self._registry(),
            job_prompt(book, job.kind),
            request.limits,
            model.window,
            token_counter(model.provider.model),
        )
        self.progress: JobProgress
        """The run's figures, from when it starts."""

    def _extraction_to_do(self) -> set[str]:
        """Extraction writes no versions: what its finished chunks read is done."""
        return {
            pid
            for item in self.service.chunks.items(self.job.id)
            if item.status is not ChunkStatus.DONE
            for pid in item.planned.paragraph_ids
        }

    def _registry(self) -> ToolRegistry[ChunkContext]:
        service = self.service
        approval = book_approvals(service.broker, service.library, self.book.id)
        return job_registry(self.job.kind, self.book.settings, approval)

    def lanes(self, items: list[ChunkItem]) -> list[int]:
        """The chapters with chunks left to run, one lane each, those with the most chunks
        first: the job ends closest to its critical path."""
        left = Counter(i.planned.chapter_number for i in items if i.status is not ChunkStatus.DONE)
        return sorted(left, key=lambda number: (-left[number], number))

    async def replan(self, chunk_chars: int, handed_back: HandedBack | None = None) -> None:
        """Plan the chunks waiting to run (and what ``handed_back`` gives) at ``chunk_chars``."""
        chunks, job_id = self.service.chunks, self.job.id
        split = replanner(self.book, chunk_chars)
        await asyncio.to_thread(chunks.replan, job_id, split, handed_back=handed_back)
        await asyncio.to_thread(self.service.store.planned_with, job_id, chunk_chars)
        self.chunk_chars = chunk_chars

    async def chapter(self, number: int) -> AsyncIterator[JobEvent]:
        """A chapter's chunks in order, each read as it stands when its turn comes (the rest
        may have been planned again meanwhile); a chunk another process holds, or takes over,
        leaves it the chapter."""
        chunks, after = self.service.chunks, 0
        while self.capped is None:
            item = await asyncio.to_thread(chunks.next_item, self.job.id, number, after)
            if item is None:
                return
            claim = await asyncio.to_thread(self._claim, item.pk)
            if claim is None:
                continue  # planned again meanwhile: read the chapter's rest again
            after = item.planned.number
            if claim is ChunkStatus.RUNNING:
                self.blocked = True
                return
            if claim is ChunkStatus.WAITING:
                return
            if isinstance(claim, Claim):
                try:
                    async for event in self._claimed(claim):
                        yield event
                except SpendingCapReached as reached:
                    # The other chapters finish what they have paid for, then stop too.
                    self.capped = reached
                    return
                if claim.token in self.lost or claim.token in self.parked:
                    return

    def _claim(self, pk: int) -> Claim | ChunkStatus | None:
        """Claim chunk ``pk`` (in a worker thread) and hold it at once, so that the run's end
        gives it back even if its lane was cancelled meanwhile. Once the run has ended it takes
        nothing: ``RUNNING``, as for a chunk another process holds, ends the lane."""
        with self._claiming:
            if self.ended:
                return ChunkStatus.RUNNING
            claim = self.service.chunks.claim(pk)
            if isinstance(claim, Claim):
                self.held.setdefault(claim.token, None)
            return claim

    def end(self) -> list[ClaimToken]:
        """Take no more claims; the claims still held, to give back. Lanes of a run that
        ended may still be running until the job's stream is closed."""
        with self._claiming:
            self.ended = True
            return list(self.held)

    def give_up(self, lost: frozenset[ClaimToken]) -> None:
        """End the conversations of chunks another process took over."""
        for token in lost:
            lane = self.held.pop(token, None)
            self.lost.add(token)
            if lane is not None:
                lane.cancel()

    async def _claimed(self, claim: Claim) -> AsyncIterator[JobEvent]:
        """The claimed chunk's events, then its end written under its claim (with what it
        handed over planned again); or, if another process takes the chunk over meanwhile,
        ``ChunkTakenOver``."""
        token, lane = claim.token, asyncio.current_task()
        self.held[token] = lane
        try:
            chapter, work, gone = await asyncio.to_thread(self._work, claim)
            finished, parked, seen = None, None, JobCost()
            async for event in self._chunk(claim, chapter, work, gone):
                seen += cost_change(event) or JobCost()
                if isinstance(event, ChunkFinished):
                    finished = event
                elif isinstance(event, ChunkParked):
                    parked = event
                yield event
            error = finished.error if finished else None
            if finished and finished.handed_over:
                error = await self._hand_over(claim, work, finished.handed_over)
            # From here the claim is ended, not given back: its end is written in a thread
            # that runs on even if the run is stopped meanwhile.
            del self.held[token]
            if parked is not None:
                await asyncio.to_thread(self._park, token, parked)
                self.parked.add(token)
                return
            status = ChunkStatus.FAILED if error else ChunkStatus.DONE
            await asyncio.to_thread(self.service.chunks.finish, token, status, error)
            if finished and not finished.handed_over and not error:
                await self._learn(len(work), seen)
            return
        except ClaimLost as lost:
            reason = str(lost)
        except asyncio.CancelledError:
            if token not in self.lost or lane is None:
                raise  # a stop: a claim still held is given back
            lane.uncancel()
            reason = "the heartbeat found the chunk taken over by another process"
        self.held.pop(token, None)
        self.lost.add(token)
        yield ChunkTakenOver(_where(claim.item.planned), reason)

    def _park(self, token: ClaimToken, parked: ChunkParked) -> None:
        self.service.stores.questions.park(
            token,
            asker=parked.request.asker,
            request=request_record(parked.request),
            conversation=[message_record(m) for m in parked.conversation],
            workflow=workflow_record(parked.workflow),
            wait_s=self._wait_s,
        )

    @property
    def _wait_s(self) -> float:
        return self.book.settings.question_wait_hours * 3600

    async def _chunk(
        self, claim: Claim, chapter: Chapter, work: list[Paragraph], gone: int
    ) -> AsyncIterator[JobEvent]:
        planned = claim.item.planned
        questions = self.service.stores.questions
        if self.parking and (
            taken := await asyncio.to_thread(questions.take_parked, claim.item.pk)
        ):
            async for event in self._resumed(claim, taken):
                yield event
            return
        where = _where(planned)
        if claim.busy:
            yield ParagraphsBusy(where, claim.busy)
        if gone:
            yield ParagraphsDone(where, gone)
        shows_title = (
            planned.shows_title
            and not claim.busy
            and title_wanted(chapter, self.job.kind, retranslate=self.job.retranslate)
        )
        if work or shows_title:
            chunk = Chunk(chapter, planned.number, tuple(work), shows_title)
            context = self._context(chunk, claim.token)
            async for event in run_chunk(
                context, self._talk(context), chunks_in_chapter=planned.chunks_in_chapter
            ):
                yield event

    async def _resumed(self, claim: Claim, parked: ParkedConversation) -> AsyncIterator[JobEvent]:
        """The conversation a question parked, taken back up with its answer (or none)."""
        planned = claim.item.planned
        assigned = parked.workflow["assigned"]
        library, book_id = self.service.library, self.book.id
        chapter = await asyncio.to_thread(library.chapter, book_id, planned.chapter_id)
        found = await asyncio.to_thread(library.paragraphs, book_id, assigned)
        paragraphs = tuple(found[pid] for pid in assigned if pid in found)
        chunk = Chunk(chapter, planned.number, paragraphs, parked.workflow["needs_title"])
        front_end = ParkingFrontEnd(parked.reply, resumed=True, wait_s=self._wait_s)
        context = self._context(chunk, claim.token, front_end)
        context.workflow = workflow_from_record(context.workflow, parked.workflow, found)
        history = [message_from_record(record) for record in parked.conversation]
        async for event in run_chunk(
            context,
            self._talk(context),
            chunks_in_chapter=planned.chunks_in_chapter,
            resumed=history,
        ):
            yield event

    async def _learn(self, paragraphs: int, seen: JobCost) -> None:
        """Count how the chunk went (``seen``: its replies, those with a batch, the paragraphs
        batches saved); plan again if that moves the best size far enough."""
        tally = self.sizing.tally
        tally.add_chunk(paragraphs, seen.requests, seen.batch_replies, seen.batched_paragraphs)
        if self.request.chunk_chars:
            return
        best = self.sizing.chunk_chars()
        if abs(best - self.chunk_chars) > RESIZE_CHANGE * self.chunk_chars:
            await self.replan(best)

    async def _hand_over(self, claim: Claim, work: list[Paragraph], over: HandOver) -> str | None:
        """Plan what a chunk handed over in chunks that fit the window as now known; an error
        when no chunk can be smaller than the one that did not fit."""
        window = self.model.window
        self.sizing.window = window.tokens
        self.sizing.count_as(window.count_factor)
        best = min(self.sizing.chunk_chars(), self.request.chunk_chars or self.chunk_chars)
        handed = [p for p in work if p.id in set(over.paragraph_ids)]
        if len(handed) == len(work) and best >= sum(len(p.text) for p in handed):
            # Nothing done, and no smaller size would be chosen: halve it all the same.
            if len(handed) <= 1:
                return (
                    f"the model's context window ({window.tokens or '?'} tokens) cannot hold "
                    f"honyaku's instructions and one paragraph: {over.reason}"
                )
            best = sum(len(p.text) for p in handed) // 2
        kept = tuple(p.id for p in work if p.id not in set(over.paragraph_ids))
        await self.replan(best, HandedBack(claim.token, kept, over.paragraph_ids, over.title))
        return None

    def _work(self, claim: Claim) -> tuple[Chapter, list[Paragraph], int]:
        """The chunk's chapter, its paragraphs still to do, and how many of those it was planned
        with were done meanwhile (by another job or process)."""
        library, book_id = self.service.library, self.book.id
        chapter = library.chapter(book_id, claim.item.planned.chapter_id)
        found = library.paragraphs(book_id, claim.free)
        written = self.service.store.paragraphs_done(self.job.id, among=claim.free)
        kind, retranslate = self.job.kind, self.job.retranslate
        work = [
            found[pid]
            for pid in claim.free
            if not is_done(found[pid], kind, retranslate=retranslate, written=written)
        ]
        left = {p.id for p in work}
        gone = sum(1 for pid in claim.free if pid in self.to_do and pid not in left)
        return chapter, work, gone

    def _talk(self, context: ChunkContext) -> ChunkTalk:
        """How the chunk talks to the model: under the run's cap, where it has one."""
        if self.spending is None:
            return self.talk
        title = context.chunk.chapter.title
        bound = partial(reply_bound, context.workflow, title)
        return replace(self.talk, provider=CappedProvider(self.talk.provider, self.spending, bound))

    def _context(
        self, chunk: Chunk, claim: ClaimToken, front_end: ParkingFrontEnd | None = None
    ) -> ChunkContext:
        chapter = chunk.chapter
        kind = self.job.kind
        asker = (
            f"{kind} of «{self.book.title}», chapter {chapter.order} «{chapter.title}», "
            f"part {chunk.number}"
        )
        workflow = ChunkWorkflow(
            kind, {p.id: p for p in chunk.paragraphs}, chapter.id, needs_title=chunk.shows_title
        )
        broker = self.service.broker
        if self.parking:
            broker = Broker(front_end or ParkingFrontEnd(wait_s=self._wait_s))
        return ChunkContext(
            broker,
            asker,
            self.service.stores,
            self.book,
            self.job.id,
            self.talk.provider.model,
            chunk,
            workflow,
            self.glossary,
            claim,
        )


def heartbeat_s() -> float:
    """``HONYAKU_HEARTBEAT_S``, well under the claim timeout: a claim must outlive a few
    heartbeats that come late or fail."""
    setting = os.environ.get(HEARTBEAT_VARIABLE, "").strip()
    try:
        seconds = float(setting) if setting else HEARTBEAT_S
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= claim_timeout_s() / 3:
        raise ConfigError(
            f"{HEARTBEAT_VARIABLE} must be seconds above 0 and at most a third of "
            f"{CLAIM_TIMEOUT_VARIABLE} ({claim_timeout_s():g} s), not {setting!r}"
        )
    return seconds


def job_scope(library: Library, request: JobRequest) -> JobScope:
    """What the job works on: for some paragraphs only, those (once each, sorted, so that the
    same choice finds the same job to resume) and the chapters that hold them."""
    chapters, paragraphs = request.chapters, request.paragraphs
    if paragraphs is not None:
        if not paragraphs:
            raise UserError("choose at least one paragraph")
        paragraphs = sorted(set(paragraphs))
        chapters = library.chapter_numbers_of(request.book_id, paragraphs)
    return JobScope(request.book_id, request.kind, chapters, request.retranslate, paragraphs)


def _planned(book: Book, scope: JobScope, chunk_chars: int) -> list[PlannedChunk]:
    """The chunks of a new job over ``scope``, at ``chunk_chars``."""
    only = None if scope.paragraphs is None else set(scope.paragraphs)
    return plan_chunks(
        book,
        scope.kind,
        retranslate=scope.retranslate,
        written=set(),
        chunk_chars=chunk_chars,
        only=only,
    )


def _only(job: Job) -> set[str] | None:
    return None if job.paragraphs is None else set(job.paragraphs)


def _spending(
    request: JobRequest,
    book: Book,
    model: ConnectedModel,
    shared: tuple[SpendingLedger, str] | None = None,
) -> Purse | None:
    """What the run may spend, where it has a cap; a cap needs the model's prices. A queued
    run's ledger is ``shared`` by every worker running it: the ledger, and the run's key."""
    cap = request.max_cost if request.max_cost is not None else book.settings.max_cost
    check_cap(cap, model.prices)
    if cap is None or model.prices is None:
        return None
    if shared is not None:
        return SharedSpending(shared[0], shared[1], cap, model.prices)
    return Spending(cap, model.prices)


def _where(planned: PlannedChunk) -> Where:
    return Where(planned.chapter_number, planned.number, planned.chapter_id)


def _failure_text(failures: list[ChunkFailure], left: list[ChunkItem]) -> str | None:
    return describe_failed_parts([(f.where.chapter, f.reason) for f in failures], len(left))
