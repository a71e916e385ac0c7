"""Queuing a job's chapters, always inside a transaction of the library's own.

A queued job and its chapters' orders are written in one transaction (``JobQueue.opened``), so
that no job is ever open with its work unqueued, nor work queued for a job that was never
opened. An answer to a question queues its chapter again in the transaction that keeps the
answer. Each order carries what a worker needs and nothing secret: the job, the chapter, the
model's name and where it is served (never a key: workers find keys in their own environment
or key store), the run it belongs to, and the job's stop count when it was queued.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, text
from sqlalchemy.orm import Session

from honyaku.jobs import JobRequest
from honyaku.llm.models import ModelChoice, ToolProtocol
from honyaku.queue.app import TASK, queue_app
from honyaku.store import Job
from honyaku.store.chunks import chapters_to_run
from honyaku.store.jobs import ACTIVE
from honyaku.store.schema import utc_now

if TYPE_CHECKING:
    import procrastinate

QUEUE = "honyaku"
"""The queue of orders for a model given by its address; a saved profile's orders go to
``honyaku:PROFILE``, for the workers that serve it (``honyaku worker --models``)."""


def queue_of(profile: str | None) -> str:
    return f"{QUEUE}:{profile}" if profile else QUEUE


def lock_of(job_id: str, chapter: int) -> str:
    """One lock per chapter of a job: its orders run one at a time, in the order queued."""
    return f"honyaku-chapter:{job_id}:{chapter}"


def model_record(choice: ModelChoice) -> dict[str, Any]:
    """The model as an order names it: a profile, or a model and its server; never a key nor
    a header (headers may hold secrets). Its fallbacks are recorded the same way."""
    return {
        "model": choice.model,
        "profile": choice.profile,
        "base_url": choice.base_url,
        "api_key_env": choice.api_key_env,
        "protocol": choice.protocol.value,
        "provider": choice.provider,
        "replay_reasoning": choice.replay_reasoning,
        "thinking_tokens": choice.thinking_tokens,
        "key_name": choice.key_name,
        "fallbacks": [model_record(fallback) for fallback in choice.fallbacks],
    }


def choice_from_record(record: Mapping[str, Any]) -> ModelChoice:
    return ModelChoice(
        record["model"],
        record["base_url"],
        record["api_key_env"],
        ToolProtocol(record["protocol"]),
        record["provider"],
        replay_reasoning=record["replay_reasoning"],
        thinking_tokens=record.get("thinking_tokens"),
        key_name=record.get("key_name"),
        profile=record["profile"],
        fallbacks=tuple(choice_from_record(f) for f in record.get("fallbacks", ())),
    )


@dataclass(frozen=True, slots=True)
class JobQueue:
    """Orders written in the library's transactions, for the workers to take."""

    app: procrastinate.App

    @classmethod
    def over(cls, database_url: str) -> JobQueue:
        return cls(queue_app(database_url))

    def opened(self, request: JobRequest, choice: ModelChoice) -> Any:
        """What ``JobStore.open`` runs in the transaction that opens the job: an order for
        each chapter with chunks left, as a new run."""

        def queue(session: Session, job: Job) -> None:
            order = {
                "job_id": job.id,
                "stops": job.stop_requests,
                "run": secrets.token_hex(4),
                "model": model_record(choice),
                "max_cost": request.max_cost,
            }
            for chapter in chapters_to_run(session, job.id):
                self.queue(session, {**order, "chapter": chapter}, queue_of(choice.profile))

        return queue

    def queue(
        self,
        session: Session,
        order: dict[str, Any],
        queue: str,
        at: datetime | None = None,
    ) -> None:
        """Queue ``order`` in ``session``'s transaction, unless its chapter already has one
        waiting (which will do the same work)."""
        # Procrastinate is there: ``queue_app`` made this queue's app.
        from procrastinate import exceptions
        from procrastinate.jobs import Job as QueueJob

        job = QueueJob(
            id=None,
            queue=queue,
            lock=lock_of(order["job_id"], order["chapter"]),
            queueing_lock=lock_of(order["job_id"], order["chapter"]),
            task_name=TASK,
            task_kwargs=order,
            scheduled_at=at,
        )
        connection = session.connection().connection.driver_connection
        try:
            with session.begin_nested():
                self.app.job_manager.batch_defer_jobs([job], connection=connection)
        except exceptions.AlreadyEnqueued:
            pass

    def requeue(self, session: Session, job_id: str, chapter: int, after_s: float = 0.0) -> None:
        """Queue a chapter again with its last order: a chunk of it can go on."""
        found = session.execute(
            text(
                "SELECT args, queue_name FROM procrastinate_jobs WHERE lock = :lock "
                "ORDER BY id DESC LIMIT 1"
            ),
            {"lock": lock_of(job_id, chapter)},
        ).first()
        if found is not None:
            at = utc_now() + timedelta(seconds=after_s) if after_s else None
            self.queue(session, dict(found.args), found.queue_name, at)

    def forget_ended(self, session: Session) -> None:
        """Delete the orders of jobs that have ended. Orders of a job still going are kept
        once run: a parked question's chapter is queued again with its last one."""
        session.execute(
            text(
                "DELETE FROM procrastinate_jobs AS orders WHERE orders.task_name = :task "
                "AND orders.status IN ('succeeded', 'failed', 'cancelled', 'aborted') "
                "AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.status IN :active "
                "AND orders.lock LIKE 'honyaku-chapter:' || jobs.id || ':%')"
            ).bindparams(bindparam("active", expanding=True)),
            {"task": TASK, "active": [status.value for status in ACTIVE]},
        )

    def cancel(self, session: Session, job_id: str) -> None:
        """Withdraw the job's orders no worker has taken yet."""
        session.execute(
            text(
                "SELECT procrastinate_cancel_job_v1(id, false, false) FROM procrastinate_jobs "
                "WHERE status = 'todo' AND lock LIKE :prefix"
            ),
            {"prefix": f"honyaku-chapter:{job_id}:%"},
        )
