"""The event loop never waits on the database: a chat's stream and a job's stream run under
asyncio's debug mode, which reports every callback that holds the loop for 250 ms or more,
and not one SQL statement runs on the loop's thread."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import event

from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.domain import JobKind
from honyaku.domain.model_profile import ModelProfile
from honyaku.jobs import JobRequest
from honyaku.llm import models
from honyaku.testing import FakeCall, FakeLLMServer, Reply, ScriptedAssistant, ScriptedTranslator

# The database has no part in this.
pytestmark = pytest.mark.backends("sqlite")

SLOW_CALLBACK_S = 0.25
"""Wall-clock time: on two cores shared by three test processes, a callback of a few ms is
sometimes preempted for over 100 ms; the work this test guards against (a query, chrF++,
a whole export) holds the loop far longer."""


def slow_callbacks(
    honyaku: Honyaku, work: Callable[[], Awaitable[None]], caplog: pytest.LogCaptureFixture
) -> list[str]:
    """What held the loop while ``work`` ran: callbacks asyncio's debug mode reported as slow,
    and SQL statements run on the loop's own thread."""
    loop_thread: list[int] = []
    on_the_loop: list[str] = []

    def executed(_connection, _cursor, statement: str, *_args: object) -> None:
        if threading.get_ident() in loop_thread:
            on_the_loop.append(f"SQL on the event loop: {statement.split()[0]}")

    async def watched() -> None:
        asyncio.get_running_loop().slow_callback_duration = SLOW_CALLBACK_S
        loop_thread.append(threading.get_ident())
        await work()

    engine = honyaku.stores.database.engine
    event.listen(engine, "before_cursor_execute", executed)
    # What the test session has piled up is not the loop's business: a full collection of it
    # would be reported as a slow callback of whatever ran when it struck.
    gc.collect()
    gc.freeze()
    try:
        with caplog.at_level(logging.WARNING, logger="asyncio"):
            asyncio.run(watched(), debug=True)
    finally:
        gc.unfreeze()
        event.remove(engine, "before_cursor_execute", executed)
    slow = [r.getMessage() for r in caplog.records if "took" in r.getMessage()]
    return slow + on_the_loop


def test_a_job_stream_never_holds_the_event_loop(
    honyaku: Honyaku, book_id: str, caplog: pytest.LogCaptureFixture
):
    with FakeLLMServer() as server:
        model = ModelChoice("fake", server.url, protocol=ToolProtocol.NATIVE)

        async def translate() -> None:
            request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION)
            async for _event in honyaku.jobs.run(request, model):
                pass

        assert slow_callbacks(honyaku, translate, caplog) == []
    assert all(
        p.translation for p in asyncio.run(honyaku.books.whole(book_id)).chapters[0].work_paragraphs
    )


def test_a_chat_stream_never_holds_the_event_loop(
    honyaku: Honyaku, book_id: str, caplog: pytest.LogCaptureFixture
):
    script = [
        Reply("", (FakeCall("book_info", {}),)),
        Reply("", (FakeCall("read_paragraphs", {"chapter": 1}),)),
        Reply("", (FakeCall("create_task", {"title": "Read chapter 2"}),)),
        Reply("I read it and planned chapter 2."),
    ]
    translator = ScriptedTranslator(assistant=ScriptedAssistant({"read": script}))
    with FakeLLMServer(translator) as server:
        model = ModelChoice("fake", server.url, protocol=ToolProtocol.NATIVE)
        said: list[object] = []

        async def chat() -> None:
            session = await honyaku.chats.open(None, book_id, "Please read chapter 1")
            async for event in honyaku.chats.reply(session, "Please read chapter 1", model):
                said.append(event)
            await honyaku.aclose()

        assert slow_callbacks(honyaku, chat, caplog) == []
    assert said


def test_a_saved_profiles_key_and_prices_are_never_looked_up_on_the_event_loop(
    honyaku: Honyaku, book_id: str, monkeypatch: pytest.MonkeyPatch
):
    # Given a saved profile of a known model (served by the fake server as a gateway), whose
    # key is in the key store: a keyring may answer over D-Bus, or wait on an unlock dialog,
    # and the price list takes half a second to load
    key = "sk-loop-0f1e2d3c4b5a6978"
    looked_up: dict[str, set[int]] = {"key": set(), "prices": set()}

    def recorded(what: str, look_up: Callable[..., Any]) -> Callable[..., Any]:
        def on_its_thread(*args: Any, **named: Any) -> Any:
            looked_up[what].add(threading.get_ident())
            return look_up(*args, **named)

        return on_its_thread

    monkeypatch.setattr(models, "find_key", recorded("key", models.find_key))
    monkeypatch.setattr(models, "listed_prices", recorded("prices", models.listed_prices))
    with FakeLLMServer(api_key=key) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        profile = ModelProfile(
            name="mini", model="gpt-4.1-mini", protocol="native", key_name="MINI_KEY"
        )

        # When it is saved, checked and run as a front end does it, on an event loop
        async def translate() -> int:
            await honyaku.keys.set("MINI_KEY", key)
            await honyaku.models.save(profile)
            assert (await honyaku.models.check(profile)).works
            model = await honyaku.models.saved("mini")
            assert model.prices_source is not None
            async for _event in honyaku.jobs.run(
                JobRequest(book_id=book_id, kind=JobKind.TRANSLATION), model
            ):
                pass
            return threading.get_ident()

        loop_thread = asyncio.run(translate())

    # Then both were looked up, each time on a worker thread, never on the loop's
    assert server.requests
    assert looked_up["key"]
    assert looked_up["prices"]
    assert loop_thread not in looked_up["key"] | looked_up["prices"]
