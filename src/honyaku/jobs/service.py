"""Jobs as every front end runs them: open a job over a scope, run what is left of it, stop it.

A job is run by one of two drivers of the same run (``jobs.run``): ``JobService.run`` runs
the whole job here, its chapters in parallel, each chapter's chunks in order, and yields its
events; ``JobService.run_chapter`` runs one chapter of a queued job on a worker. Either way
the action log and the cost are kept from those same events, and accepted batches are written
as they come, so a job that dies (crash, SIGKILL, Ctrl-C) resumes where they stopped.

Chunks are planned at the size that bills the model least and fits its context window
(``sizing``), and planned again as the run learns (``replanning``). A resumed job plans its
chunks waiting to run again when the size changed since.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping

from honyaku.domain.pricing import Prices
from honyaku.errors import HonyakuError, WorkerStopping
from honyaku.jobs.events import ChunkFailure, JobEvent, JobFinished, Where
from honyaku.jobs.planning import still_to_do
from honyaku.jobs.progress import JobProgress
from honyaku.jobs.records import JobRecords, job_scope
from honyaku.jobs.requests import ChapterEnd, ChapterOrder, JobRequest
from honyaku.jobs.run import JobRun, QueuedChapter, RunDeps, open_run, planned_chunks
from honyaku.jobs.spending import spending_cap
from honyaku.llm.models import ModelChoice
from honyaku.store.jobs import ACTIVE, Job, JobStatus, Opened


class JobService:
    def __init__(self, deps: RunDeps) -> None:
        self.deps = deps
        self.stores = deps.stores
        self._running: dict[str, asyncio.Task[object]] = {}
        """The jobs run here, by id: a stop asked here cancels them at once."""

    async def run(self, request: JobRequest, choice: ModelChoice) -> AsyncIterator[JobEvent]:
        """Run the job ``request`` asks for with the chosen model, here, its chapters
        ``request.concurrency`` at once: ``JobStarted``, every chunk's events, then
        ``JobFinished``. A fatal provider error or a stop is raised after the job's state is
        saved."""
        task = asyncio.current_task()
        assert task is not None
        run: JobRun | None = None
        try:
            async with open_run(self.deps, request, choice) as run:
                self._running[run.job.id] = task
                try:
                    yield run.started
                    async for event in run.lanes(concurrency=request.concurrency):
                        yield event
                finally:
                    self._running.pop(run.job.id, None)
        except HonyakuError:
            if run is not None:
                # What was done and what is left, as for any end, before why it stopped.
                yield JobFinished(await run.outcome(stopped=True))
            raise
        yield JobFinished(await run.outcome())

    async def run_chapter(self, order: ChapterOrder, choice: ModelChoice) -> ChapterEnd:
        """Run one chapter of a queued job here, on a worker: its chunks in order, each
        question parked for a person; then settle the job's status."""
        records = JobRecords(self.stores)
        job = await records.run(records.join, order.job_id, order.stops)
        if job is None:
            return ChapterEnd.STOPPED
        request = JobRequest(
            book_id=job.book_id,
            kind=job.kind,
            chapters=job.chapters,
            retranslate=job.retranslate,
            max_cost=order.max_cost,
        )
        chapter = QueuedChapter(job, order.chapter, ledger=f"{job.id}:{order.run}")
        task = asyncio.current_task()
        assert task is not None
        run: JobRun | None = None
        try:
            async with open_run(self.deps, request, choice, queued=chapter) as run:
                async for _event in run.lanes(concurrency=1):
                    pass
        except WorkerStopping:
            return ChapterEnd.GIVEN_BACK
        except asyncio.CancelledError:
            if run is None or not run.stop_seen:
                raise  # the worker is shutting down hard: the chunk is given back
            task.uncancel()
            return ChapterEnd.STOPPED
        except HonyakuError:
            return ChapterEnd.STOPPED
        if run.stop_seen and task.cancelling():
            # The heartbeat saw the stop as the chapter ended: the cancel it sent would strike
            # the next await. Taken back, the stop is settled as one its beat missed.
            task.uncancel()
        settled = records.of(job)
        status = await settled.run(settled.settle, job.stop_requests)
        if status is JobStatus.INTERRUPTED:
            return ChapterEnd.STOPPED
        return ChapterEnd.BLOCKED if run.blocked else ChapterEnd.DONE

    def open_queued(self, request: JobRequest, choice: ModelChoice, queued: Opened) -> Job:
        """Open the job ``request`` asks for (or reopen it) as a queued one, and queue its work
        (``queued``) in the same transaction; the model is the workers' to open."""
        scope = job_scope(self.stores.library, request)
        book = self.stores.library.whole_book(request.book_id, chapter_numbers=scope.chapters)
        for model in (choice, *choice.fallbacks):
            spending_cap(request.max_cost, book, model.prices)
        # Planned at the book's size (or the one asked): the model is the workers' to learn.
        chunk_chars = request.chunk_chars or book.settings.chunk_chars
        job, _ = JobRecords(self.stores).open_job(
            scope,
            planned_chunks(book, scope, chunk_chars),
            model=str(choice.model),
            protocol=choice.protocol.value,
            resume=request.resume,
            chunk_chars=chunk_chars,
            queued=queued,
        )
        return job

    async def stop(self, job_id: str) -> None:
        """Stop a running job, here at once, in another process at its next heartbeat."""
        await asyncio.to_thread(self.stores.jobs.request_stop, job_id)
        if task := self._running.get(job_id):
            task.cancel()

    def progress(
        self, job_id: str, prices: Mapping[str, Prices | None] | None = None
    ) -> JobProgress:
        """A stored job's figures: its work paragraphs, those done, what each model spent
        (at ``prices``, by model, where given)."""
        jobs, chunks = self.stores.jobs, self.stores.chunks
        job = jobs.get(job_id)
        book = self.stores.library.whole_book(job.book_id, chapter_numbers=job.chapters)
        only = None if job.paragraphs is None else set(job.paragraphs)
        paragraphs, to_do = still_to_do(
            book,
            job.kind,
            retranslate=job.retranslate,
            written=jobs.paragraphs_done(job.id),
            only=only,
        )
        progress = JobProgress.of(job, len(paragraphs), len(paragraphs) - len(to_do), prices)
        progress.workers = chunks.holders(job.id)
        failed = [item for item in chunks.items(job.id) if item.failure is not None]
        progress.failures = [
            ChunkFailure(Where.of(item.planned), item.failure)
            for item in failed
            if item.failure is not None
        ]
        if job.shown_status not in ACTIVE:
            account = JobRecords(self.stores).account(job)
            progress.left, progress.coverage = account.left, account.coverage
        return progress
