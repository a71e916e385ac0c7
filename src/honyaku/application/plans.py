"""The translator's plan: tasks in a book's area, on a day or unscheduled, done or not."""

from __future__ import annotations

import asyncio
from datetime import date

from honyaku.domain.plan import PlanTask, PlanView
from honyaku.store.plan import PlanStore


class Plans:
    def __init__(self, store: PlanStore) -> None:
        self._store = store

    async def create(
        self,
        title: str,
        *,
        book_id: str | None = None,
        scheduled_date: date | None = None,
        chapters: list[int] | None = None,
        job_kind: str | None = None,
    ) -> PlanTask:
        return await asyncio.to_thread(
            self._store.create,
            title,
            book_id=book_id,
            scheduled_date=scheduled_date,
            chapters=chapters,
            job_kind=job_kind,
        )

    async def read(self, view: PlanView) -> list[PlanTask]:
        return await asyncio.to_thread(self._store.read, view)

    async def update(
        self,
        task_id: str,
        *,
        title: str | None = None,
        completed: bool | None = None,
        scheduled_date: date | None = None,
    ) -> PlanTask:
        return await asyncio.to_thread(
            self._store.update,
            task_id,
            title=title,
            completed=completed,
            scheduled_date=scheduled_date,
        )

    async def delete(self, task_id: str) -> PlanTask:
        return await asyncio.to_thread(self._store.delete, task_id)
