"""Running many streams of events at once and reading them as one.

A job's chapters are lanes: up to ``concurrency`` lanes run at once, each a stream of events
(a chapter's chunks, one after another). Their events are merged in the order they happen.
If a lane fails, the others are cancelled and the failure is raised to the reader; if the
reader stops reading, every lane is cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
E = TypeVar("E")


@dataclass(frozen=True, slots=True)
class _LaneEnded:
    error: BaseException | None


async def merged(
    lanes: Sequence[T], run: Callable[[T], AsyncIterator[E]], *, concurrency: int
) -> AsyncIterator[E]:
    """The events of ``run(lane)`` for every lane, as they come."""
    queue: asyncio.Queue[E | _LaneEnded] = asyncio.Queue()
    gate = asyncio.Semaphore(concurrency)

    async def drive(lane: T) -> None:
        try:
            async with gate:
                async for event in run(lane):
                    await queue.put(event)
        except Exception as exc:
            await queue.put(_LaneEnded(exc))
        else:
            await queue.put(_LaneEnded(None))

    tasks = [asyncio.create_task(drive(lane)) for lane in lanes]
    running = len(tasks)
    try:
        while running:
            item = await queue.get()
            if not isinstance(item, _LaneEnded):
                yield item
                continue
            running -= 1
            if item.error is not None:
                raise item.error
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
