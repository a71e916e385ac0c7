"""Whether this deployment runs jobs on the job queue, and the workers that take them.

The one translator's honyaku runs each job in the process that started it, on SQLite, and
needs no queue. A group's honyaku sets ``HONYAKU_QUEUE=1`` beside ``HONYAKU_DATABASE_URL``
(PostgreSQL): the workbench, the assistant and ``--queue`` on the command line then queue jobs,
and ``honyaku worker`` processes on any machine run them. The queue (Procrastinate) is
imported only here, when it is wanted.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from honyaku.application.models import model_opener
from honyaku.errors import ConfigError
from honyaku.jobs import JobLauncher, JobService
from honyaku.store import Database, Stores

QUEUE_VARIABLE = "HONYAKU_QUEUE"
"""Set to 1 (or yes, on, true) to queue the jobs front ends start, for workers to run."""


def queue_wanted() -> bool:
    setting = os.environ.get(QUEUE_VARIABLE, "").strip().lower()
    if setting in ("", "0", "no", "off", "false"):
        return False
    if setting in ("1", "yes", "on", "true"):
        return True
    raise ConfigError(f"{QUEUE_VARIABLE} must be 1 or 0, not {setting!r}")


def queue_launcher(engine: JobService) -> JobLauncher:
    """The launcher that queues jobs for workers; refused on the embedded database."""
    _require_shared(engine.stores.database)
    from honyaku.queue import QueueLauncher  # without Procrastinate, it says what to install

    return QueueLauncher(engine)


def serve_worker(
    home: Path | None,
    *,
    concurrency: int,
    profiles: Sequence[str],
    ready: Callable[[str], None],
) -> None:
    """Run a worker until it is told to stop (SIGTERM, Ctrl-C); ``ready`` is told its name
    once it takes work."""
    database = Database.open(home)
    try:
        _require_shared(database)
        from honyaku.queue import Worker

        stores = Stores.over(database)
        worker = Worker(stores, model_opener(stores), concurrency=concurrency, profiles=profiles)
        asyncio.run(worker.serve(lambda: ready(worker.name)))
    finally:
        database.close()


def _require_shared(database: Database) -> None:
    if database.embedded:
        raise ConfigError(
            "the job queue lives in a shared PostgreSQL database: set HONYAKU_DATABASE_URL "
            "(and run honyaku db upgrade once)"
        )
