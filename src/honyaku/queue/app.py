"""The job queue's Procrastinate app: one task, a chapter of a queued job, run by a worker.

Procrastinate keeps the queue in the same PostgreSQL database as the library (its tables come
with ``honyaku db upgrade``): a queued job's chapters are its jobs, each with a lock of its
own, so that a chapter's chunks run in order on one worker at a time while chapters run in
parallel on any number of workers. Its workers' heartbeats tell a stalled worker from a busy
one, and LISTEN/NOTIFY hands new work to a waiting worker at once.

Procrastinate (``honyaku[postgres]``) is imported when an app is made, so that the package
imports without it and says what to install when it is wanted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import make_url

from honyaku.errors import ConfigError

if TYPE_CHECKING:
    import procrastinate

    from honyaku.queue.worker import Worker

TASK = "honyaku:run_chapter"
WORKER_CONTEXT = "honyaku"
"""The key of ``additional_context`` under which a task finds its ``Worker``."""


async def _run_chapter(context: procrastinate.JobContext, **order: Any) -> str:
    worker: Worker = context.additional_context[WORKER_CONTEXT]
    return await worker.run(order)


def queue_app(database_url: str, *, connections: int = 4) -> procrastinate.App:
    """The app over the database at ``database_url`` (an SQLAlchemy URL); opened by whoever
    runs workers, left closed by whoever only queues work in their own transactions."""
    try:
        import procrastinate
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"the job queue needs {exc.name}: pip install 'honyaku[postgres]'"
        ) from None
    conninfo = make_url(database_url).set(drivername="postgresql")
    connector = procrastinate.PsycopgConnector(
        conninfo=conninfo.render_as_string(hide_password=False),
        min_size=1,
        max_size=connections,
    )
    app = procrastinate.App(connector=connector)
    app.task(name=TASK, pass_context=True)(_run_chapter)
    return app
