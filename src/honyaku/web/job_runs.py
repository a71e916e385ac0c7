"""Jobs started from the web app, running in its process, and the pages that watch them.

Each job runs as a task of the server's event loop, reading ``JobService.run``. What it has
done so far is kept as a small snapshot (``JobProgress``) that every watching page gets
first, then again at each change, with a hint when the action log has grown.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from typing import Any

from honyaku.errors import HonyakuError
from honyaku.jobs import (
    ChunkEvent,
    ChunkFinished,
    JobEvent,
    JobFinished,
    JobRequest,
    JobService,
    JobStarted,
    ParagraphsBusy,
    ParagraphsDone,
)
from honyaku.llm.events import Response, Retry
from honyaku.llm.models import ModelChoice, open_model
from honyaku.store import Job, LearnedProtocols


@dataclass
class JobProgress:
    """A job as its page draws it."""

    id: str
    book_id: str
    kind: str
    model: str
    status: str
    paragraphs_total: int
    paragraphs_done: int
    requests: int = 0
    tokens: int = 0
    retries: int = 0
    failures: list[str] = field(default_factory=list)
    busy: int = 0
    running_here: bool = False
    error: str | None = None

    @classmethod
    def of(cls, job: Job, total: int, done: int) -> JobProgress:
        cost = job.cost
        return cls(
            job.id,
            job.book_id,
            job.kind.value,
            job.model,
            job.shown_status.value,
            total,
            done,
            cost.requests,
            cost.input_tokens + cost.output_tokens,
            cost.retries,
            error=job.error,
        )

    def follow(self, event: JobEvent) -> bool:
        """Take in an event; ``True`` if the job's log grew with it."""
        match event:
            case ParagraphsDone(count=count):
                self.paragraphs_done += count
            case ParagraphsBusy(paragraph_ids=ids):
                self.busy += len(ids)
                self.paragraphs_done += len(ids)
                return True
            case ChunkEvent(event=Response(usage=usage)):
                self.requests += 1
                self.tokens += (usage.input_tokens or 0) + (usage.output_tokens or 0)
                return True
            case ChunkEvent(event=Retry()):
                self.retries += 1
            case ChunkFinished(where=where, error=str() as error):
                self.failures.append(f"chapter {where.chapter} chunk {where.chunk}: {error}")
                return True
            case JobFinished(outcome=outcome):
                self.status = outcome.job.status.value
                self.error = outcome.job.error
                return True
        return False


class JobRun:
    """One job running here: its progress and the pages watching it."""

    def __init__(self, progress: JobProgress) -> None:
        self.progress = progress
        self._pages: set[asyncio.Queue[dict[str, Any] | None]] = set()

    def follow(self, event: JobEvent) -> None:
        grew = self.progress.follow(event)
        self._tell({"type": "progress", **asdict(self.progress)})
        if grew:
            self._tell({"type": "log"})

    def end(self, status: str, error: str | None = None) -> None:
        self.progress.status = status
        self.progress.running_here = False
        self.progress.error = error
        self._tell({"type": "progress", **asdict(self.progress)})
        self._tell({"type": "log"})
        for queue in self._pages:
            queue.put_nowait(None)

    async def watch(self) -> AsyncIterator[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._pages.add(queue)
        try:
            yield {"type": "progress", **asdict(self.progress)}
            while self.progress.running_here and (message := await queue.get()) is not None:
                yield message
        finally:
            self._pages.discard(queue)

    def _tell(self, message: dict[str, Any]) -> None:
        for queue in self._pages:
            queue.put_nowait(message)


class JobRuns:
    """The jobs this process runs for the web app."""

    def __init__(self, service: JobService) -> None:
        self.service = service
        self._runs: dict[str, JobRun] = {}
        self._models: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def get(self, job_id: str) -> JobRun | None:
        return self._runs.get(job_id)

    def model_of(self, job_id: str) -> str | None:
        """The saved model a job started here ran with."""
        return self._models.get(job_id)

    async def start(self, request: JobRequest, choice: ModelChoice, *, model: str) -> str:
        """Start the job in the background with ``choice`` (the saved model ``model``); its
        id once it is open, or the reason it could not open (a bad model, an unreachable
        server, an unknown book)."""
        opened: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(self._drive(request, choice, opened))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        job_id = await opened
        self._models[job_id] = model
        return job_id

    def stop(self, job_id: str) -> None:
        self.service.stop(job_id)

    async def stop_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _drive(
        self, request: JobRequest, choice: ModelChoice, opened: asyncio.Future[str]
    ) -> None:
        run: JobRun | None = None
        library = self.service.library
        try:
            target = library.book(request.book_id).target_lang
            memory = LearnedProtocols(library.database)
            async with open_model(choice, memory, language=target) as model:
                async for event in self.service.run(request, model):
                    if isinstance(event, JobStarted):
                        run = self._opened(event, opened)
                    if run is not None:
                        run.follow(event)
            if run is not None:
                run.end(run.progress.status, run.progress.error)
        except asyncio.CancelledError:
            if run is not None:
                run.end("interrupted", "stopped")
            if not opened.done():
                opened.set_exception(HonyakuError("the job was stopped before it began"))
        except HonyakuError as exc:
            if run is not None:
                run.end("failed", str(exc))
            if not opened.done():
                opened.set_exception(exc)

    def _opened(self, event: JobStarted, opened: asyncio.Future[str]) -> JobRun:
        job = event.job
        progress = JobProgress.of(job, event.paragraphs_total, event.paragraphs_done)
        progress.status = "running"
        progress.running_here = True
        run = JobRun(progress)
        self._runs[job.id] = run
        opened.set_result(job.id)
        return run
