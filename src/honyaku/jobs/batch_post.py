"""Batch mode: each request of a run's conversations goes out as a line of the provider's
batch, half price, answered within a day.

The conversations are the same as in a streamed run: the agent loop, its tools, the chunk's
workflow and claim, the nudges and caps, written once (``agent.loop``). Only the provider is
another: ``BatchedProvider`` hands each request to the run's ``BatchPost`` and streams back
the line's answer as the ``Response`` a stream would have folded into. The post gathers the
requests of every conversation that has one, sends them in one batch once no more come
(every conversation of the run is waiting for an answer, or none has made a request for
``GATHER_S``), polls it with a growing pause (``HONYAKU_BATCH_POLL_S``), and hands each
conversation its answer; the conversations that need another step make their next request,
and those go out in the next batch, round after round.

Nothing is sent before it is kept. A conversation's request, and where its workflow stood,
are written (``store.batches.BatchConversations``) before its line is handed to the post; a
batch is written with its lines (``SENDING``) before it is submitted, and with its provider's
id once it was taken. A later process (the same command run again) takes each conversation
back up from what was kept and asks for the same line: a batch that carries it already is
polled, or its results fetched, rather than sent again. A batch the provider did not answer
a line of (it expired, it was cancelled, a passing error) has that line sent again, and only
it. The one window left is a process killed between the provider taking a batch and its id
being written (one HTTP answer and one commit): its row stays ``SENDING``, and its lines go
out again (``_sent_before``).

The spending cap holds before a batch goes out: each line's worst case (``spending``'s rule)
is reserved as it is admitted; a line that does not fit waits for the batch in flight to be
answered, and with none in flight the cap is reached.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from honyaku.errors import (
    ConfigError,
    HonyakuError,
    ProviderError,
    SpendingCapReached,
    TransientProviderError,
)
from honyaku.jobs.events import BatchAnswered, BatchSent, BatchWaiting, JobEvent
from honyaku.jobs.records import JobRecords
from honyaku.jobs.spending import Purse
from honyaku.llm.batches import (
    BatchClient,
    BatchCounts,
    BatchHandle,
    BatchRequest,
    BatchResult,
    BatchState,
    BatchStatus,
    LineState,
)
from honyaku.llm.events import ChatProvider, Response, StreamEvent, Usage, Waiting
from honyaku.llm.messages import ChatRequest
from honyaku.llm.wrapper import ProviderWrapper
from honyaku.store.batches import SENDING, JobBatch

POLL_S = 30.0
POLL_VARIABLE = "HONYAKU_BATCH_POLL_S"
"""Seconds before a batch is first polled (default 30); each pause after is longer."""
POLL_GROWTH = 1.5
POLL_MOST = 10
"""The longest pause between polls, in first pauses (five minutes by default)."""
GATHER_S = 2.0
"""Quiet before a batch goes out while a conversation is still at work (a question to a
person, a slow tool): no request for this long (shorter where polls are much quicker: fifty
first pauses)."""
TICK_S = 0.01
MOST_SENDS = 3
"""A line the provider did not answer is sent this many times at most, then fails."""
RESULTS_TRIES = 5


def poll_s() -> float:
    """``HONYAKU_BATCH_POLL_S``: seconds before a batch's first poll."""
    setting = os.environ.get(POLL_VARIABLE, "").strip()
    if not setting:
        return POLL_S
    try:
        seconds = float(setting)
    except ValueError:
        seconds = -1.0
    if seconds <= 0:
        raise ConfigError(f"{POLL_VARIABLE} must be seconds above 0, not {setting!r}")
    return seconds


@dataclass
class _Line:
    request: BatchRequest
    bound: float
    """The most tokens its reply could write (``spending.reply_bound``)."""
    answer: asyncio.Future[BatchResult] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    reserved: Any = None
    """What the cap reserved for it, while it is in flight."""


@dataclass
class _Ended:
    error: BaseException | None


class BatchPost:
    """A run's batches: the lines its conversations hand over, sent together, polled, and
    answered back to each."""

    def __init__(
        self,
        client: BatchClient,
        records: JobRecords,
        spending: Purse | None,
        model: str,
    ) -> None:
        self.client = client
        self.records = records
        self.spending = spending
        self.model = model
        self.poll_s = poll_s()
        self.gather_s = min(GATHER_S, 50 * self.poll_s)
        self.round = 0
        """Batches this run sent."""
        self._next: list[_Line] = []
        self._held: list[_Line] = []
        """Lines the cap keeps back until the batch in flight is answered."""
        self._waiting: dict[str, _Line] = {}
        """Lines in a batch, by custom id, until its answer comes."""
        self._polled: dict[str, asyncio.Task[None]] = {}
        """Each batch being polled, by its row's id."""
        self._arrivals = 0
        self._working = 0
        """Conversations (and lanes claiming parts) at work: not waiting for an answer."""
        self._kick = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None
        self._events: asyncio.Queue[JobEvent | _Ended] = asyncio.Queue()

    async def answer(self, request: BatchRequest, bound: float) -> BatchResult:
        """The answer to ``request``: from a batch that carries its line already (sent by
        this run, or by an earlier process), else from the next batch; a line not answered
        goes out again, ``MOST_SENDS`` times at most."""
        result: BatchResult | None = None
        kept = await self.records.run(self.records.batch_holding, request.custom_id)
        for sends in range(MOST_SENDS):
            line = _Line(request, bound)
            if sends == 0 and kept is not None and self._sent_before(kept):
                result = await self._join(kept, line)
            else:
                result = await self._send(line)
            if not result.resend:
                return result
        assert result is not None
        return result

    @staticmethod
    def _sent_before(kept: JobBatch) -> bool:
        """Whether a kept batch was taken by the provider: a row still ``SENDING`` is a
        process killed as it submitted, which only the provider could tell; its lines go out
        again."""
        return kept.state != SENDING

    async def _send(self, line: _Line) -> BatchResult:
        self._next.append(line)
        self._arrivals += 1
        self._kick.set()
        if self._sender is None:
            self._sender = asyncio.create_task(self._sending())
        return await line.answer

    async def _join(self, kept: JobBatch, line: _Line) -> BatchResult:
        """Wait for the answer to a line of a batch kept earlier (by another process)."""
        self._waiting[line.request.custom_id] = line
        if kept.id not in self._polled:
            handle = BatchHandle.from_record(kept.handle)
            ended = kept.ended_at is not None
            self._polled[kept.id] = asyncio.create_task(self._polling(kept.id, handle, ended))
        return await line.answer

    @contextmanager
    def working(self) -> Iterator[None]:
        """A conversation (or a lane claiming parts) at work: the next batch waits for its
        request, if it makes one soon."""
        self._working += 1
        try:
            yield
        finally:
            self._working -= 1

    @contextmanager
    def waiting_for_answer(self) -> Iterator[None]:
        """A conversation at work waits for the answer to its request."""
        self._working -= 1
        try:
            yield
        finally:
            self._working += 1

    async def _sending(self) -> None:
        """Send what the conversations handed over once every one waits for an answer (or
        none made a request for a while), over and over."""
        loop = asyncio.get_running_loop()
        while True:
            await self._kick.wait()
            self._kick.clear()
            seen, quiet_since = self._arrivals, loop.time()
            while True:
                idle = self._working == 0
                await asyncio.sleep(TICK_S)
                if idle and self._working == 0:
                    break  # idle a tick long: not a lane between its claims and its talks
                if seen != self._arrivals:
                    seen, quiet_since = self._arrivals, loop.time()
                elif loop.time() - quiet_since >= self.gather_s:
                    break
            if self._next:
                lines, self._next = self._next, []
                await self._submit(lines)

    async def _submit(self, lines: list[_Line]) -> None:
        admitted = [line for line in lines if await self._admitted(line)]
        most = max(1, self.client.max_requests)
        for start in range(0, len(admitted), most):
            await self._submit_batch(admitted[start : start + most])

    async def _admitted(self, line: _Line) -> bool:
        """Whether the line goes out now: its worst case fits under the cap (reserved), or
        there is no cap. A line that must wait is held; one that cannot fit is refused."""
        if self.spending is None:
            return True
        try:
            line.reserved = await self.spending.try_reserve(line.request.request, line.bound)
        except SpendingCapReached as reached:
            _fail(line, reached)
            return False
        if line.reserved is None:
            self._held.append(line)
            return False
        return True

    async def _submit_batch(self, lines: list[_Line]) -> None:
        records = self.records
        requests = [line.request for line in lines]
        kept = [[r.custom_id, r.conversation, r.request.turn] for r in requests]
        try:
            row = await records.run(records.batch_sending, self.client.provider, self.model, kept)
            handle = await self.client.submit(requests)
        except HonyakuError as exc:
            for line in lines:
                await self._settle(line, None)
                _fail(line, exc)
            return
        status = BatchStatus(BatchState.IN_PROGRESS, BatchCounts(len(lines)), "submitted")
        await records.run(records.batch_submitted, row.id, handle.record(), status.record())
        for line in lines:
            self._waiting[line.request.custom_id] = line
        self.round += 1
        self._say(BatchSent(handle.batch_id, self.model, len(lines), self.round))
        self._polled[row.id] = asyncio.create_task(self._polling(row.id, handle, ended=False))

    async def _polling(self, row: str, handle: BatchHandle, ended: bool) -> None:
        """Poll the batch until it ends, then hand each line its answer."""
        try:
            failed = False
            if not ended:
                status = await self._until_ended(row, handle)
                failed = status.state is BatchState.FAILED
            results = [] if failed else await self._results(handle)
            # From here a conversation that joins the batch polls it afresh: every line
            # waiting now is answered below.
            self._polled.pop(row, None)
            await self._answered(handle, results, failed=failed)
        except HonyakuError as exc:
            for custom_id in handle.conversations:
                if line := self._waiting.pop(custom_id, None):
                    await self._settle(line, None)
                    _fail(line, exc)
        finally:
            if self._polled.get(row) is asyncio.current_task():
                self._polled.pop(row)

    async def _until_ended(self, row: str, handle: BatchHandle) -> BatchStatus:
        pause, records = self.poll_s, self.records
        while True:
            await asyncio.sleep(pause)
            pause = min(pause * POLL_GROWTH, self.poll_s * POLL_MOST)
            try:
                status = await self.client.poll(handle)
            except TransientProviderError:
                continue
            await records.run(records.batch_polled, row, status.record(), ended=status.ended)
            if status.ended:
                return status
            counts = status.counts
            self._say(BatchWaiting(handle.batch_id, counts.total, counts.total - counts.processing))

    async def _results(self, handle: BatchHandle) -> list[BatchResult]:
        for tries in range(1, RESULTS_TRIES + 1):
            try:
                return await self.client.results(handle)
            except TransientProviderError:
                if tries == RESULTS_TRIES:
                    raise
                await asyncio.sleep(self.poll_s)
        return []

    async def _answered(
        self, handle: BatchHandle, results: list[BatchResult], *, failed: bool
    ) -> None:
        found = {result.custom_id: result for result in results}
        answered = again = 0
        for custom_id in handle.conversations:
            line = self._waiting.pop(custom_id, None)
            result = found.get(custom_id) or _unanswered(custom_id, failed=failed)
            if result.resend:
                again += 1
            else:
                answered += 1
            if line is None:
                continue  # a line of a conversation no longer waiting here
            await self._settle(line, None if result.resend else _usage(result))
            if not line.answer.done():
                line.answer.set_result(result)
        self._say(BatchAnswered(handle.batch_id, answered, again))
        if self._held:
            # What the cap held back may fit now that this batch's bill is known.
            held, self._held = self._held, []
            self._next.extend(held)
            self._arrivals += 1
            self._kick.set()

    async def _settle(self, line: _Line, usage: Usage | None) -> None:
        if self.spending is not None and line.reserved is not None:
            reserved, line.reserved = line.reserved, None
            await self.spending.settle(reserved, usage)

    def _say(self, event: JobEvent) -> None:
        self._events.put_nowait(event)

    async def alongside(self, events: AsyncIterator[JobEvent]) -> AsyncIterator[JobEvent]:
        """``events`` (the run's lanes), and the post's own as they come."""

        async def pump() -> None:
            try:
                async for event in events:
                    self._events.put_nowait(event)
            except Exception as exc:
                self._events.put_nowait(_Ended(exc))
            else:
                self._events.put_nowait(_Ended(None))

        task = asyncio.create_task(pump())
        try:
            while True:
                item = await self._events.get()
                if isinstance(item, _Ended):
                    if item.error is not None:
                        raise item.error
                    return
                yield item
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def aclose(self) -> None:
        """Stop sending and polling: the batches in flight go on at the provider, kept for
        the next run to pick up."""
        tasks = [*self._polled.values(), *([self._sender] if self._sender else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.client.aclose()


class BatchedProvider(ProviderWrapper):
    """A conversation's provider in batch mode: each request kept (``keep``), then handed to
    the run's post as the line ``{key}-{turn}``, its answer streamed back."""

    def __init__(
        self,
        inner: ChatProvider,
        post: BatchPost,
        key: str,
        bound: Callable[[], float],
        keep: Callable[[ChatRequest, str], Awaitable[None]],
    ) -> None:
        super().__init__(inner)
        self.post, self.key, self.bound, self.keep = post, key, bound, keep

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        custom_id = f"{self.key}-{request.turn}"
        await self.keep(request, custom_id)
        yield Waiting(None)
        line = BatchRequest(custom_id, request, self.key)
        with self.post.waiting_for_answer():
            result = await self.post.answer(line, self.bound())
        if result.state is LineState.SUCCEEDED and result.response is not None:
            yield result.response
            return
        raise result.error or TransientProviderError(
            f"the batch did not answer the request ({result.state.value}, sent {MOST_SENDS} times)"
        )


def _fail(line: _Line, error: BaseException) -> None:
    if not line.answer.done():
        line.answer.set_exception(error)


def _unanswered(custom_id: str, *, failed: bool) -> BatchResult:
    """A line an ended batch gave no result for."""
    if failed:
        return BatchResult(
            custom_id, LineState.ERRORED, error=ProviderError("the provider refused the batch")
        )
    return BatchResult(custom_id, LineState.EXPIRED)


def _usage(result: BatchResult) -> Usage | None:
    if result.usage is not None:
        return result.usage
    return result.response.usage if isinstance(result.response, Response) else None
