"""Changes told by the database itself: a note reaches every listener when its transaction
commits, never when it rolls back; and a workbench watching questions hears of one at once,
not at its next reading."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import pytest
from sqlalchemy import func, select

from honyaku.application import Honyaku
from honyaku.application import questions as watched
from honyaku.store import Database
from honyaku.store.notifications import notifications
from honyaku.store.questions import CHANNEL

TEST_CHANNEL = "honyaku_test"
WAIT_S = 30.0
"""Bounds a test that would otherwise hang; a note takes milliseconds."""


class RolledBack(Exception):
    """Raised inside a transaction to roll it back."""


def notify(database: Database, channel: str, payload: str, *, commit: bool = True) -> None:
    with contextlib.suppress(RolledBack), database.transaction() as session:
        session.execute(select(func.pg_notify(channel, payload)))
        if not commit:
            raise RolledBack


async def first_note_after_listening(database: Database, send: Callable[[], None]) -> str:
    """The first note on the test channel, other than "ready", once it is listened to and
    ``send`` has run: a note sent before the listener listens is not delivered to it."""
    notes: asyncio.Queue[str] = asyncio.Queue()

    async def listen() -> None:
        async for note in notifications(database, TEST_CHANNEL):
            notes.put_nowait(note)

    listener = asyncio.create_task(listen())
    try:
        while True:
            await asyncio.to_thread(notify, database, TEST_CHANNEL, "ready")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(notes.get(), 0.2)
                break
        await asyncio.to_thread(send)
        while (note := await notes.get()) == "ready":
            pass
        return note
    finally:
        listener.cancel()


@pytest.mark.backends("postgresql")
def test_a_note_arrives_when_its_transaction_commits_never_when_it_rolls_back(
    database: Database,
):
    def send() -> None:
        notify(database, TEST_CHANNEL, "rolled back", commit=False)
        notify(database, TEST_CHANNEL, "committed")

    heard = first_note_after_listening(database, send)
    assert asyncio.run(asyncio.wait_for(heard, WAIT_S)) == "committed"


@pytest.mark.backends("sqlite")
def test_an_embedded_database_tells_nothing_and_its_listeners_read_again(database: Database):
    async def heard() -> list[str]:
        return [note async for note in notifications(database, TEST_CHANNEL)]

    assert asyncio.run(heard()) == []


@pytest.mark.backends("postgresql")
def test_a_workbench_hears_of_a_question_at_once(
    honyaku: Honyaku, database: Database, monkeypatch: pytest.MonkeyPatch
):
    # Given a workbench that would read the questions again only after an hour
    monkeypatch.setattr(watched, "RECHECK_S", 3600.0)

    async def a_change_heard() -> None:
        changes = honyaku.questions.changes()
        await anext(changes)  # the first reading
        heard = asyncio.ensure_future(anext(changes))
        # When a question is asked somewhere (the listener may not be listening yet)
        while not heard.done():
            await asyncio.to_thread(notify, database, CHANNEL, '{"type": "asked", "id": 1}')
            await asyncio.wait([heard], timeout=0.2)
        await changes.aclose()

    # Then it hears of it long before its next reading (else this times out)
    asyncio.run(asyncio.wait_for(a_change_heard(), WAIT_S))
