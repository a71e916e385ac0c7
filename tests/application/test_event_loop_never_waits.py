"""The event loop never waits on the database: a chat's stream and a job's stream run under
asyncio's debug mode, which reports every callback that holds the loop for 100 ms or more."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest

from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.domain import JobKind
from honyaku.jobs import JobRequest
from honyaku.testing import FakeAssistant, FakeCall, FakeLLMServer, FakeTranslator, Reply

SLOW_CALLBACK_S = 0.1


def slow_callbacks(work: Callable[[], Awaitable[None]], caplog: pytest.LogCaptureFixture) -> list:
    """What asyncio's debug mode reported as holding the loop while ``work`` ran."""

    async def watched() -> None:
        asyncio.get_running_loop().slow_callback_duration = SLOW_CALLBACK_S
        await work()

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        asyncio.run(watched(), debug=True)
    return [r.getMessage() for r in caplog.records if "took" in r.getMessage()]


def test_a_job_stream_never_holds_the_event_loop(
    honyaku: Honyaku, book_id: str, caplog: pytest.LogCaptureFixture
):
    with FakeLLMServer() as server:
        model = ModelChoice("fake", server.url, protocol=ToolProtocol.NATIVE)

        async def translate() -> None:
            request = JobRequest(book_id, JobKind.TRANSLATION)
            async for _event in honyaku.jobs.run(request, model):
                pass

        assert slow_callbacks(translate, caplog) == []
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
    translator = FakeTranslator(assistant=FakeAssistant({"read": script}))
    with FakeLLMServer(translator) as server:
        model = ModelChoice("fake", server.url, protocol=ToolProtocol.NATIVE)
        said: list[object] = []

        async def chat() -> None:
            session = await honyaku.chats.open(None, book_id, "Please read chapter 1")
            async for event in honyaku.chats.reply(session, "Please read chapter 1", model):
                said.append(event)
            await honyaku.aclose()

        assert slow_callbacks(chat, caplog) == []
    assert said
