"""The translator's plan tasks."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from honyaku.domain.plan import PlanTask, PlanView
from honyaku.errors import NotFoundError
from honyaku.store.database import Database
from honyaku.store.ids import fresh_id
from honyaku.store.schema import PlanTaskRow, utc_now


class PlanStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def create(
        self,
        title: str,
        *,
        book_id: str | None = None,
        scheduled_date: date | None = None,
        chapters: list[int] | None = None,
        job_kind: str | None = None,
    ) -> PlanTask:
        with self.database.transaction() as session:
            now = utc_now()
            row = PlanTaskRow(
                id=fresh_id(session, PlanTaskRow),
                title=title,
                book_id=book_id,
                chapters=chapters,
                job_kind=job_kind,
                scheduled_date=scheduled_date,
                completed=False,
                created_at=now,
                updated_at=now,
            )
            session.add(row)
            return _task(row)

    def read(self, view: PlanView) -> list[PlanTask]:
        query = select(PlanTaskRow).order_by(PlanTaskRow.created_at)
        if view.day is not None:
            query = query.where(PlanTaskRow.scheduled_date == view.day)
        elif view.staging:
            query = query.where(PlanTaskRow.scheduled_date.is_(None))
        elif view.book_id is not None:
            query = query.where(PlanTaskRow.book_id == view.book_id)
        with self.database.transaction() as session:
            return [_task(row) for row in session.scalars(query)]

    def get(self, task_id: str) -> PlanTask:
        with self.database.transaction() as session:
            return _task(_row(session, task_id))

    def update(
        self,
        task_id: str,
        *,
        title: str | None = None,
        completed: bool | None = None,
        scheduled_date: date | None = None,
    ) -> PlanTask:
        with self.database.transaction() as session:
            row = _row(session, task_id)
            if title is not None:
                row.title = title
            if completed is not None:
                row.completed = completed
            if scheduled_date is not None:
                row.scheduled_date = scheduled_date
            row.updated_at = utc_now()
            return _task(row)

    def delete(self, task_id: str) -> PlanTask:
        with self.database.transaction() as session:
            row = _row(session, task_id)
            session.delete(row)
            return _task(row)


def _row(session: Session, task_id: str) -> PlanTaskRow:
    row = session.get(PlanTaskRow, task_id)
    if row is None:
        raise NotFoundError(f"no plan task {task_id!r}")
    return row


def _task(row: PlanTaskRow) -> PlanTask:
    return PlanTask(
        row.id,
        row.title,
        row.book_id,
        row.chapters,
        row.job_kind,
        row.scheduled_date,
        row.completed,
        row.created_at,
    )
