"""Jobs started on the job queue: opened and queued here, run by workers anywhere, followed
and stopped through the database from any front end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from honyaku.jobs import JobProgress, JobRequest, JobService, JobUpdate
from honyaku.jobs.launcher import watch_stored
from honyaku.llm.models import ModelChoice
from honyaku.queue.orders import JobQueue
from honyaku.store import JobStatus
from honyaku.store.jobs import ACTIVE, STOPPED_AS_ASKED


class QueueLauncher:
    """The ``JobLauncher`` of a deployment with workers (``honyaku worker``)."""

    def __init__(self, service: JobService, queue: JobQueue | None = None) -> None:
        self.stores = service.stores
        self.service = service
        self.queue = queue or JobQueue.over(self.stores.database.url)

    async def start(self, request: JobRequest, model: ModelChoice) -> str:
        """Open the job and queue its chapters in one transaction; its id. Its model and its
        fallbacks are checked here (their addresses, and their prices against the cap), and
        connected by the workers, with keys from their own environment."""
        for each in (model, *model.fallbacks):
            each.check()
        queued = self.queue.opened(request, model)
        job = await asyncio.to_thread(self.service.open_queued, request, model, queued)
        return job.id

    async def stop(self, job_id: str) -> None:
        """Stop the job everywhere: workers running it stop at their next heartbeat, its
        orders not yet taken are withdrawn, and so are its questions."""
        await self.service.stop(job_id)
        await asyncio.to_thread(self._withdraw, job_id)

    def _withdraw(self, job_id: str) -> None:
        with self.stores.database.transaction() as session:
            self.queue.cancel(session, job_id)
        self.stores.questions.withdraw(job_id)
        # With none of its chunks running anywhere, no worker is left to see the stop.
        status = self.stores.jobs.get(job_id).status
        if status in ACTIVE and not self.stores.chunks.live_elsewhere(job_id):
            self.stores.jobs.finish(job_id, JobStatus.INTERRUPTED, STOPPED_AS_ASKED)

    async def progress(self, job_id: str) -> JobProgress:
        return await asyncio.to_thread(self.service.progress, job_id)

    def watch(self, job_id: str) -> AsyncIterator[JobUpdate]:
        return watch_stored(self.service, job_id)

    async def aclose(self) -> None:
        """Nothing runs here: the workers go on."""
