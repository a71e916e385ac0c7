"""A running job's heartbeat: its claims renewed, a stop asked anywhere heard.

While a run lasts, its heartbeat renews the claims it holds and its share of the job's lease,
stops the run when someone asked the job to stop (from this or any other process), and ends
the conversation of a chunk another process took over (this one's heartbeat had stalled past
the claim timeout). Every write made under a claim shows its token, so such a chunk's late
writes are refused whatever the heartbeat knows yet.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from honyaku.errors import ConfigError, StoreError
from honyaku.store.leases import CLAIM_TIMEOUT_VARIABLE, claim_timeout_s

if TYPE_CHECKING:
    from honyaku.jobs.run import JobRun

HEARTBEAT_S = 10.0
HEARTBEAT_VARIABLE = "HONYAKU_HEARTBEAT_S"
"""Seconds between a running job's heartbeats (default 10)."""


def heartbeat_s() -> float:
    """``HONYAKU_HEARTBEAT_S``, well under the claim timeout: a claim must outlive a few
    heartbeats that come late or fail."""
    setting = os.environ.get(HEARTBEAT_VARIABLE, "").strip()
    try:
        seconds = float(setting) if setting else HEARTBEAT_S
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= claim_timeout_s() / 3:
        raise ConfigError(
            f"{HEARTBEAT_VARIABLE} must be seconds above 0 and at most a third of "
            f"{CLAIM_TIMEOUT_VARIABLE} ({claim_timeout_s():g} s), not {setting!r}"
        )
    return seconds


async def keep_beating(run: JobRun, task: asyncio.Task[object], beat_s: float) -> None:
    """Beat every ``beat_s`` until the run ends; cancel ``task`` when the job is asked to
    stop."""
    while True:
        await asyncio.sleep(beat_s)
        try:
            records = run.records
            beat = await records.run(records.beat, run.claims.held, run.job.stop_requests)
        except StoreError:
            continue  # tried again at the next beat: a claim outlives several missed ones
        run.claims.give_up(beat.lost)
        if beat.stop:
            run.stop_seen = True
            task.cancel()
            return
