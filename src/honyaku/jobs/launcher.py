"""Where the jobs a front end starts run, and how their progress reaches whoever watches.

``JobLauncher`` is the one interface the application starts, stops and follows jobs
through. ``InProcessLauncher`` runs each job as a task of this process's event loop (the web
app, a chat); a job queue with workers elsewhere is another implementation of the same
interface. Watchers get the job's figures (``JobProgress``) first, then again when they
change, no oftener than ``WATCH_INTERVAL_S``: a busy job's events are coalesced, not queued.
A job that another process runs is followed through the database (``watch_stored``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from honyaku.errors import HonyakuError, SpendingCapReached
from honyaku.jobs.events import JobStarted
from honyaku.jobs.progress import JobProgress
from honyaku.jobs.requests import JobRequest
from honyaku.jobs.service import JobService
from honyaku.llm.models import ModelChoice
from honyaku.store.jobs import ACTIVE, STOPPED_AS_ASKED, JobStatus

WATCH_INTERVAL_S = 0.25
STORED_WATCH_S = 1.0
"""How often a job run elsewhere (a worker, another terminal) is read again while followed."""


@dataclass(frozen=True, slots=True)
class JobUpdate:
    progress: JobProgress
    log_grew: bool
    """The job's action log has grown since the previous update."""


class JobLauncher(Protocol):
    async def start(self, request: JobRequest, model: ModelChoice) -> str:
        """Start the job; its id once it is open, or the reason it could not open."""
        ...

    async def stop(self, job_id: str) -> None: ...

    async def progress(self, job_id: str) -> JobProgress:
        """The job's figures: live where it is followed, else as stored."""
        ...

    def watch(self, job_id: str) -> AsyncIterator[JobUpdate]:
        """The job's figures now, then at each change until it ends."""
        ...

    async def aclose(self) -> None:
        """Stop following; jobs running in this process are stopped, to be resumed."""
        ...


class _Followed:
    """One job running here: its figures and those watching them."""

    def __init__(self, progress: JobProgress) -> None:
        self.progress = progress
        self._watchers: dict[asyncio.Event, list[bool]] = {}

    def changed(self, *, log_grew: bool) -> None:
        for woken, grew in self._watchers.items():
            grew[0] = grew[0] or log_grew
            woken.set()

    async def watch(self) -> AsyncIterator[JobUpdate]:
        woken, grew = asyncio.Event(), [False]
        self._watchers[woken] = grew
        shown: dict[str, object] | None = None
        try:
            while True:
                woken.clear()
                news = _without_clocks(self.progress.figures())
                ended = not self.progress.running_here
                if news != shown or ended:
                    # Only news is sent: an event that changed no figure waits for one.
                    yield JobUpdate(self.progress, log_grew=grew[0])
                    shown, grew[0] = news, False
                if ended:
                    return
                # Whatever happened during the pause is in the next update, the end included.
                await asyncio.sleep(WATCH_INTERVAL_S)
                await woken.wait()
        finally:
            del self._watchers[woken]


CLOCKS = ("elapsed_s", "eta_s", "waiting_s", "waiting_expected_s")
"""Figures that change with time alone: no news by themselves."""


def _without_clocks(figures: dict[str, object]) -> dict[str, object]:
    return {name: value for name, value in figures.items() if name not in CLOCKS}


async def watch_stored(service: JobService, job_id: str) -> AsyncIterator[JobUpdate]:
    """A job another process runs, followed through the database: its figures now, then
    whenever they change, until it is no longer queued, running or waiting."""
    progress = await asyncio.to_thread(service.progress, job_id)
    yield JobUpdate(progress, log_grew=False)
    while progress.status in ACTIVE:
        await asyncio.sleep(STORED_WATCH_S)
        now = await asyncio.to_thread(service.progress, job_id)
        if now.figures() != progress.figures():
            grew = (now.cost.requests, now.error) != (progress.cost.requests, progress.error)
            yield JobUpdate(now, log_grew=grew)
        progress = now


class InProcessLauncher:
    """Jobs run in the background of this process."""

    def __init__(self, service: JobService) -> None:
        self.service = service
        self._followed: dict[str, _Followed] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, request: JobRequest, model: ModelChoice) -> str:
        opened: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(self._drive(request, model, opened))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return await opened

    async def stop(self, job_id: str) -> None:
        await self.service.stop(job_id)

    async def progress(self, job_id: str) -> JobProgress:
        if followed := self._followed.get(job_id):
            return followed.progress
        return await asyncio.to_thread(self.service.progress, job_id)

    async def watch(self, job_id: str) -> AsyncIterator[JobUpdate]:
        if followed := self._followed.get(job_id):
            async for update in followed.watch():
                yield update
            return
        async for update in watch_stored(self.service, job_id):
            yield update

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _drive(
        self, request: JobRequest, choice: ModelChoice, opened: asyncio.Future[str]
    ) -> None:
        followed: _Followed | None = None
        try:
            async for event in self.service.run(request, choice):
                if isinstance(event, JobStarted):
                    followed = _Followed(JobProgress.starting(event))
                    self._followed[event.job.id] = followed
                    opened.set_result(event.job.id)
                if followed is not None:
                    followed.changed(log_grew=followed.progress.follow(event))
        except asyncio.CancelledError:
            self._ended(followed, JobStatus.INTERRUPTED, STOPPED_AS_ASKED)
            if not opened.done():
                opened.set_exception(HonyakuError("the job was stopped before it began"))
        except HonyakuError as exc:
            stopped = isinstance(exc, SpendingCapReached)
            self._ended(followed, JobStatus.INTERRUPTED if stopped else JobStatus.FAILED, str(exc))
            if not opened.done():
                opened.set_exception(exc)

    def _ended(self, followed: _Followed | None, status: JobStatus, error: str | None) -> None:
        if followed is not None:
            followed.progress.end(status, error)
            followed.changed(log_grew=True)
