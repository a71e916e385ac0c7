"""Questions of queued jobs that wait for a person: listed, answered from any front end,
and watched as they come and go.

An answer is checked against what was asked, kept, and its chunk's chapter queued again in
the same transaction; any worker then takes the conversation back up with it. Every
workbench on the database hears of a new question, or one answered elsewhere, at once
(PostgreSQL's notifications).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from honyaku.agent.broker import QuestionReply
from honyaku.agent.replies import checked_reply, request_from_record
from honyaku.jobs.parking import reply_record
from honyaku.store import StoredQuestion, Stores
from honyaku.store.notifications import notifications
from honyaku.store.questions import CHANNEL

RECHECK_S = 5.0
"""How often watchers read the questions again, in case a notification went missing."""


class Questions:
    def __init__(self, stores: Stores) -> None:
        self._stores = stores

    async def waiting(self, book_id: str | None = None) -> list[StoredQuestion]:
        """The questions waiting for a person, oldest first."""
        return await asyncio.to_thread(self._stores.questions.waiting, book_id)

    async def answer(self, question_id: int, reply: Mapping[str, Any]) -> None:
        """Answer a question (``answers`` with ``question_index`` and ``answer`` or
        ``selected_index``; or ``cancelled``): its chunk goes on, on any worker."""
        question = await asyncio.to_thread(self._stores.questions.get, question_id)
        checked = checked_reply(request_from_record(question.request), reply)
        assert isinstance(checked, QuestionReply)
        await asyncio.to_thread(self._keep, question_id, checked)

    def _keep(self, question_id: int, reply: QuestionReply) -> None:
        from honyaku.queue import JobQueue  # only a deployment with a queue has questions

        queue = JobQueue.over(self._stores.database.url)
        self._stores.questions.answer(question_id, reply_record(reply), queue.requeue)

    async def changes(self) -> AsyncIterator[None]:
        """Once now, then whenever a question is asked or settled anywhere (or, failing a
        notification, every ``RECHECK_S``)."""
        told = asyncio.Event()
        listener = asyncio.create_task(self._listen(told))
        try:
            while True:
                yield
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(told.wait(), RECHECK_S)
                told.clear()
        finally:
            listener.cancel()

    async def _listen(self, told: asyncio.Event) -> None:
        with contextlib.suppress(Exception):  # the watchers read again every RECHECK_S
            async for _note in notifications(self._stores.database, CHANNEL):
                told.set()
