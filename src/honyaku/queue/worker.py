"""``honyaku worker``: a process that takes chapters of queued jobs and runs them.

Run as many as you like, on any machine that reaches the database and the model servers. Each
takes up to ``concurrency`` chapters at once from the queues of the model profiles it serves
(all, by default), opens each chapter's model with the keys of its own environment or its own
key store (``llm.keys``: an order names a key, never holds one), and runs the chapter's chunks
in order (``JobService.run_chapter``).

Beside that, every worker keeps house: an order whose worker went silent (killed, its machine
gone) for the claim timeout is queued again for another, whose claim then takes the chunk over
(the killed worker's late writes, if any, are refused by the claim's token); a question past
its book's deadline gets nobody's answer, so that its chapter goes on; and the orders of jobs
that have ended are deleted (those of a job still going are kept, to queue a chapter again).

SIGTERM (or Ctrl-C) stops a worker gracefully: it takes no more chapters, lets each reply in
flight finish and its calls run, then gives the chunk back, queues its chapter again, and
exits. A second signal stops it at once: its claims are given back all the same, and what was
running is queued again when its heartbeat is found stalled.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from honyaku.agent.broker import Broker
from honyaku.domain.key_addresses import KeyBinding
from honyaku.errors import ConfigError, HonyakuError, StoreError, WorkerStopping
from honyaku.jobs import ChapterEnd, ChapterOrder, JobService, RunDeps
from honyaku.jobs.heartbeat import heartbeat_s
from honyaku.llm.events import ChatProvider, StreamEvent
from honyaku.llm.messages import ChatRequest
from honyaku.llm.models import ConnectedModel, ModelChoice, ModelOpener
from honyaku.llm.wrapper import ProviderWrapper
from honyaku.queue.app import WORKER_CONTEXT, queue_app
from honyaku.queue.orders import JobQueue, choice_from_record, queue_of
from honyaku.store import JobStatus, Stores, this_process
from honyaku.store.leases import claim_timeout_s
from honyaku.store.schema import utc_now

if TYPE_CHECKING:
    import procrastinate
    from procrastinate.app import WorkerOptions


class StoppingGate(ProviderWrapper):
    """A provider that sends no new request once its worker is stopping: the reply in flight
    finishes, and the next request raises ``WorkerStopping`` instead of going out."""

    def __init__(self, inner: ChatProvider, stopping: asyncio.Event) -> None:
        super().__init__(inner)
        self.stopping = stopping

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        if self.stopping.is_set():
            raise WorkerStopping("the worker is stopping: the chunk is given back")
        async for event in self.inner.stream(request):
            yield event


class Worker:
    def __init__(
        self,
        stores: Stores,
        open_model: ModelOpener,
        *,
        concurrency: int = 1,
        profiles: Sequence[str] = (),
    ) -> None:
        self.stores = stores
        self.open_model = open_model
        self.service = JobService(RunDeps(stores, Broker(), self._gated))
        self.queue = JobQueue.over(stores.database.url)
        self.concurrency = concurrency
        self.profiles = tuple(profiles)
        self.name = this_process()
        self.stopping = asyncio.Event()

    def _options(self, beat_s: float, timeout_s: float) -> WorkerOptions:
        options: WorkerOptions = {
            "name": self.name,
            "concurrency": self.concurrency,
            "install_signal_handlers": False,
            "additional_context": {WORKER_CONTEXT: self},
            "update_heartbeat_interval": beat_s,
            "stalled_worker_timeout": timeout_s,
            "fetch_job_polling_interval": beat_s,
            "abort_job_polling_interval": beat_s,
            "delete_jobs": "never",  # an order is queued again from its last run
        }
        if self.profiles:  # else every queue
            options["queues"] = [queue_of(p) for p in self.profiles]
        return options

    async def serve(self, ready: Callable[[], None] = lambda: None) -> None:
        """Take and run orders until told to stop (SIGTERM, SIGINT)."""
        beat_s, timeout_s = heartbeat_s(), claim_timeout_s()
        app = queue_app(self.stores.database.url, connections=self.concurrency + 4)
        async with app.open_async():
            running = asyncio.create_task(app.run_worker_async(**self._options(beat_s, timeout_s)))
            house = asyncio.create_task(self._keep_house(app, beat_s, timeout_s))
            loop = asyncio.get_running_loop()
            for number in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(number, self._stop, running)
            ready()
            try:
                with contextlib.suppress(asyncio.CancelledError):
                    await running
            finally:
                house.cancel()
                for number in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(number)

    def _stop(self, running: asyncio.Task[None]) -> None:
        """The first signal drains the worker; cancelling its run a second time ends it."""
        self.stopping.set()
        running.cancel()

    async def run(self, order: dict[str, Any]) -> str:
        """Run one chapter order (the queue's task calls this); how it ended."""
        if self.stopping.is_set():
            await asyncio.to_thread(self._queue_again, order, 0.0)
            return ChapterEnd.GIVEN_BACK.value
        chapter = ChapterOrder(
            job_id=order["job_id"],
            chapter=order["chapter"],
            stops=order["stops"],
            run=order["run"],
            max_cost=order["max_cost"],
        )
        try:
            choice = await asyncio.to_thread(self._model_of, order)
            end = await self.service.run_chapter(chapter, choice)
        except HonyakuError as exc:
            # A model this worker cannot open (no key here, an unknown profile): said on the job.
            await asyncio.to_thread(
                self.stores.jobs.finish, chapter.job_id, JobStatus.FAILED, f"{self.name}: {exc}"
            )
            return ChapterEnd.STOPPED.value
        if end is ChapterEnd.BLOCKED:
            await asyncio.to_thread(self._queue_again, order, claim_timeout_s() / 2)
        elif end is ChapterEnd.GIVEN_BACK:
            await asyncio.to_thread(self._queue_again, order, 0.0)
        return end.value

    @asynccontextmanager
    async def _gated(self, choice: ModelChoice, *, language: str) -> AsyncIterator[ConnectedModel]:
        """The model opened with this worker's keys, sending nothing new once it stops."""
        async with self.open_model(choice, language=language) as model:
            yield replace(model, provider=StoppingGate(model.provider, self.stopping))

    def _model_of(self, order: dict[str, Any]) -> ModelChoice:
        """The order's model and its fallbacks, each a saved profile read here or a model
        and its server as the order names it."""
        record = order["model"]
        bound = self.stores.profiles.key_bindings()
        choice = self._choice_of(record, bound)
        fallbacks = tuple(self._choice_of(each, bound) for each in record.get("fallbacks", ()))
        return replace(choice, fallbacks=fallbacks)

    def _choice_of(self, record: dict[str, Any], bound: list[KeyBinding]) -> ModelChoice:
        """A saved profile's model, its keys going only where profiles bound them; or a model
        typed in a terminal, its key named there."""
        if name := record["profile"]:
            profile = self.stores.profiles.get(name)
            if profile is None:
                raise ConfigError(f"no model profile named {name!r}")
            return ModelChoice.from_profile(profile, key_bindings=bound)
        return choice_from_record(record)

    def _queue_again(self, order: dict[str, Any], after_s: float) -> None:
        queue = queue_of(order["model"]["profile"])
        at = utc_now() + timedelta(seconds=after_s) if after_s else None
        with self.stores.database.transaction() as session:
            self.queue.queue(session, order, queue, at)

    def _forget_ended(self) -> None:
        with self.stores.database.transaction() as session:
            self.queue.forget_ended(session)

    async def _keep_house(self, app: procrastinate.App, beat_s: float, timeout_s: float) -> None:
        from procrastinate.exceptions import ProcrastinateException  # there: ``app`` is

        manager = app.job_manager
        while True:
            await asyncio.sleep(beat_s)
            try:
                for stalled in await manager.get_stalled_jobs(seconds_since_heartbeat=timeout_s):
                    with contextlib.suppress(ProcrastinateException):  # another worker was first
                        await manager.retry_job(stalled)
                await asyncio.to_thread(self.stores.questions.expire, self.queue.requeue)
                await asyncio.to_thread(self._forget_ended)
            except (StoreError, ProcrastinateException):
                continue  # the database is away: tried again at the next beat
