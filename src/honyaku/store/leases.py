"""Who holds a piece of work, and whether they are still alive.

A lease names its holder (host, process id and a random tag, to tell apart processes of
containers that share a host name and a process id) and carries the time the holder last
wrote. Liveness is that time alone, for a holder on this host or any other: a process id says
nothing across machines, and a holder that stopped writing is taken to be dead whether or not
its process still runs. What a dead holder left is taken over; its late writes are refused by
the claim's token (``store.chunks``).
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache

from honyaku.errors import ConfigError

CLAIM_TIMEOUT_S = 60.0
CLAIM_TIMEOUT_VARIABLE = "HONYAKU_CLAIM_TIMEOUT_S"
"""Seconds without a heartbeat after which a holder is taken to be dead (default 60)."""


def this_process() -> str:
    return _identity(os.getpid())


@cache
def _identity(pid: int) -> str:
    return f"{socket.gethostname()}:{pid}:{secrets.token_hex(3)}"


def claim_timeout_s() -> float:
    setting = os.environ.get(CLAIM_TIMEOUT_VARIABLE, "").strip()
    if not setting:
        return CLAIM_TIMEOUT_S
    try:
        seconds = float(setting)
    except ValueError:
        seconds = -1.0
    if seconds <= 0:
        raise ConfigError(f"{CLAIM_TIMEOUT_VARIABLE} must be seconds above 0, not {setting!r}")
    return seconds


@dataclass(frozen=True, slots=True)
class Lease:
    owner: str | None
    heartbeat_at: datetime | None

    def is_live(self, now: datetime) -> bool:
        if not self.owner or self.heartbeat_at is None:
            return False
        beat = self.heartbeat_at
        if beat.tzinfo is None:  # SQLite hands back naive times
            beat = beat.replace(tzinfo=UTC)
        return (now - beat).total_seconds() < claim_timeout_s()

    def held_elsewhere(self, now: datetime) -> bool:
        return self.owner != this_process() and self.is_live(now)
