"""Who holds a piece of work, and whether they are still alive.

A lease names its owner as ``host:pid`` and carries the time the owner last wrote. On the
same host the process itself is asked; from another host only a recent heartbeat counts.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime

from honyaku.processes import is_running

HEARTBEAT_STALE_S = 600.0
"""A holder on another host that has written nothing for this long is taken to be dead."""


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True, slots=True)
class Lease:
    owner: str | None
    heartbeat_at: datetime | None

    def is_live(self, now: datetime) -> bool:
        if not self.owner:
            return False
        if self.owner == this_process():
            return True
        host, _, pid = self.owner.rpartition(":")
        if host == socket.gethostname() and pid.isdigit():
            return is_running(int(pid))
        beat = self.heartbeat_at
        if beat is None:
            return False
        if beat.tzinfo is None:  # SQLite hands back naive times
            beat = beat.replace(tzinfo=UTC)
        return (now - beat).total_seconds() < HEARTBEAT_STALE_S

    def held_elsewhere(self, now: datetime) -> bool:
        return self.owner != this_process() and self.is_live(now)
