"""The chunks a run holds: claimed, run, ended, given back, or lost to another process.

A run claims a chunk before it runs it and holds the claim until the chunk's end is written
(``store.chunks``). However the run ends, the claims it still holds are given back; the
heartbeat renews them meanwhile, and a claim another process took over (this one's heartbeat
had stalled past the claim timeout) ends its chunk's conversation here.
"""

from __future__ import annotations

import asyncio
import threading

from honyaku.jobs.records import JobRecords
from honyaku.store.chunks import ChunkStatus, Claim, ClaimToken


class Claims:
    def __init__(self, records: JobRecords) -> None:
        self.records = records
        self.held: dict[ClaimToken, asyncio.Task[object] | None] = {}
        """The claims held, each with the lane running its chunk once it runs."""
        self.lost: set[ClaimToken] = set()
        """Claims another process took over."""
        self.parked: set[ClaimToken] = set()
        """Claims whose chunk waits for a person's answer."""
        self.ended = False
        """The run has ended: it takes no more claims."""
        self._lock = threading.Lock()

    async def take(self, pk: int) -> Claim | ChunkStatus | None:
        """Claim chunk ``pk`` and hold it at once, so that the run's end gives it back even if
        its lane was cancelled meanwhile. Once the run has ended it takes nothing: ``RUNNING``,
        as for a chunk another process holds, ends the lane."""

        def take() -> Claim | ChunkStatus | None:
            with self._lock:
                if self.ended:
                    return ChunkStatus.RUNNING
                claim = self.records.claim(pk)
                if isinstance(claim, Claim):
                    self.held.setdefault(claim.token, None)
                return claim

        return await self.records.run(take)

    def running(self, token: ClaimToken, lane: asyncio.Task[object] | None) -> None:
        """The claimed chunk runs in ``lane``: cancelled if another process takes it over."""
        self.held[token] = lane

    def settled(self, token: ClaimToken) -> None:
        """The chunk's end is being written under its claim: it is not to be given back."""
        self.held.pop(token, None)

    async def give_back(self, token: ClaimToken) -> None:
        """Give a claim back before its chunk ran to its end: the chunk waits to run again."""
        self.held.pop(token, None)
        await self.records.run(self.records.release, [token])

    def lose(self, token: ClaimToken) -> None:
        self.held.pop(token, None)
        self.lost.add(token)

    def is_lost(self, token: ClaimToken) -> bool:
        return token in self.lost

    def left_here(self, token: ClaimToken) -> bool:
        """The chunk left this run's hands: taken over, or parked on a question."""
        return token in self.lost or token in self.parked

    def end(self) -> list[ClaimToken]:
        """Take no more claims; the claims still held, to give back. Lanes of a run that
        ended may still be running until the job's stream is closed."""
        with self._lock:
            self.ended = True
            return list(self.held)

    def give_up(self, lost: frozenset[ClaimToken]) -> None:
        """End the conversations of chunks another process took over."""
        for token in lost:
            lane = self.held.pop(token, None)
            self.lost.add(token)
            if lane is not None:
                lane.cancel()
