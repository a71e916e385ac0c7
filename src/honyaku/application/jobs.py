"""Jobs as every front end asks for them: estimated, run here in the foreground (the
terminal), started in the background through the launcher (the web app, the assistant, a
queue later), stopped, resumed, followed, and their log read.

Every figure a front end shows comes from ``JobProgress``. The rules a job must pass to run
(a model that can work, a cap with prices) are the engine's, checked before its model is
even connected.

Before a new translation of a book whose ``write_from_memory`` is on is planned, the
paragraphs the series' memory holds the very source of are written from it
(``Memory.write_exact``): the job finds them done.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from honyaku.application.memory import Memory
from honyaku.application.models import Models
from honyaku.domain.workflow import JobKind
from honyaku.errors import UserError
from honyaku.jobs import JobEvent, JobLauncher, JobProgress, JobRequest, JobService, JobUpdate
from honyaku.jobs.estimate import Estimate, estimate_job
from honyaku.jobs.log_lines import NOTABLE_ACTIONS, LogLine, log_lines
from honyaku.llm.models import ModelChoice, ToolProtocol
from honyaku.store import Job, Stores


class Jobs:
    def __init__(
        self,
        stores: Stores,
        service: JobService,
        launcher: JobLauncher,
        models: Models,
        memory: Memory,
    ) -> None:
        self._stores = stores
        self._service = service
        self._launcher = launcher
        self._models = models
        self._memory = memory
        self._started_with: dict[str, str] = {}
        """The saved model each job started here runs with, to resume it with the same."""

    async def estimate(self, request: JobRequest, model: ModelChoice | None = None) -> Estimate:
        """What the job would send and cost with ``model``; nothing is sent."""
        return await asyncio.to_thread(
            estimate_job,
            self._stores,
            request.book_id,
            request.kind,
            chapters=request.chapters,
            paragraphs=request.paragraphs,
            retranslate=request.retranslate,
            model=model.model if model else None,
            prices=model.prices if model else None,
            window=model.context_window if model else None,
            xml=model is not None and model.protocol is ToolProtocol.XML,
            chunk_chars=request.chunk_chars,
            batch_prices=model.batch_prices() if model else None,
        )

    async def run(self, request: JobRequest, model: ModelChoice) -> AsyncIterator[JobEvent]:
        """Run the job here, in the foreground: its events as they come."""
        await self.from_memory(request)
        async for event in self._service.run(request, model):
            yield event

    async def start(self, request: JobRequest, model: ModelChoice) -> str:
        """Start the job in the background; its id once it is open, or why it cannot run (a
        bad model, a cap without prices), as the engine found when it opened it."""
        await self.from_memory(request)
        job_id = await self._launcher.start(request, model)
        if model.profile or model.model:
            self._started_with[job_id] = model.profile or str(model.model)
        return job_id

    async def from_memory(self, request: JobRequest) -> int:
        """Before a new translation over a book whose ``write_from_memory`` is on: its
        paragraphs without a translation that the memory holds the very source of, written
        from it; how many. A retranslation, or a job resumed by id, writes none."""
        if request.kind is not JobKind.TRANSLATION or request.retranslate or request.resume:
            return 0
        settings = await asyncio.to_thread(self._stores.library.settings, request.book_id)
        if not settings.write_from_memory:
            return 0
        return await self._memory.write_exact(request.book_id, request.chapters, request.paragraphs)

    async def resume(self, job_id: str, model_name: str | None = None) -> str:
        """Run a stopped job again with ``model_name`` (by default the model it ran with):
        it goes on where its accepted work stopped."""
        job = await self.get(job_id)
        name = (
            model_name
            or self._started_with.get(job_id)
            or await self._models.profile_for(job.model)
        )
        if name is None:
            raise UserError(
                "choose a saved model to resume with (the job ran with {model!r})", model=job.model
            )
        request = JobRequest(
            book_id=job.book_id,
            kind=job.kind,
            chapters=None if job.paragraphs else job.chapters,
            paragraphs=job.paragraphs,
            retranslate=job.retranslate,
            resume=job.id,
        )
        return await self.start(request, await self._models.saved(name))

    async def stop(self, job_id: str) -> JobProgress:
        await self._launcher.stop(job_id)
        return await self.progress(job_id)

    async def get(self, job_id: str) -> Job:
        return await asyncio.to_thread(self._stores.jobs.get, job_id)

    async def progress(self, job_id: str) -> JobProgress:
        return await self._launcher.progress(job_id)

    def watch(self, job_id: str) -> AsyncIterator[JobUpdate]:
        """The job's figures now, then as they change until it ends."""
        return self._launcher.watch(job_id)

    async def all(self, book_id: str | None = None) -> list[JobProgress]:
        """The jobs of a book, or of every book, newest first."""

        def jobs() -> list[Job]:
            library, store = self._stores.library, self._stores.jobs
            books = [book_id] if book_id else [b.id for b in library.list_books()]
            found = [job for book in books for job in store.for_book(book)]
            return sorted(found, key=lambda job: job.created_at, reverse=True)

        return [await self.progress(job.id) for job in await asyncio.to_thread(jobs)]

    async def log(self, job_id: str, *, reasoning: bool = True) -> list[LogLine]:
        """The job's log, as ``honyaku show --actions`` prints it."""

        def log() -> list[LogLine]:
            job = self._stores.jobs.get(job_id)
            actions = self._stores.jobs.actions(job.book_id, kinds=NOTABLE_ACTIONS)
            lines = log_lines([a for a in actions if a.job_id == job_id])
            return [line for line in lines if reasoning or not line.is_reasoning]

        return await asyncio.to_thread(log)
