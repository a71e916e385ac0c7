"""A chat as the translator lives it: jobs started from it, failures it survives, a reply
stopped midway, a long chat summarised without losing a question."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import pytest

from honyaku.agent.broker import ApprovalRequest, QuestionRequest
from honyaku.assistant import (
    ChatDone,
    ChatFailed,
    ChatNotice,
    ChatRetry,
    ChatText,
    QuestionWaiting,
    friendly_error,
    transcript,
)
from honyaku.assistant.transcript import messages
from honyaku.domain.plan import PlanView
from honyaku.errors import AuthError, ProviderError, RateLimitedError, UnreachableError
from honyaku.llm.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from honyaku.store.chats import ChatEntry, EntryKind
from honyaku.testing import FakeCall, Fault, FaultKind, Reply, ToolSupport, last_result

pytestmark = [pytest.mark.anyio, pytest.mark.protocols("native", "xml")]

JOB_WAIT_S = 30


def said(events: list) -> str:
    return "".join(e.content for e in events if isinstance(e, ChatText))


async def test_given_a_yes_when_the_assistant_starts_a_job_then_the_chapter_gets_translated(
    chat_with, library, book_id
):
    script = [
        Reply("", (FakeCall("start_job", {"kind": "translation", "chapters": "1"}),)),
        lambda turns: Reply(
            "", (FakeCall("job_progress", {"job_id": last_result(turns)["data"]["job_id"]}),)
        ),
        lambda turns: Reply(last_result(turns)["message"]),
    ]
    with chat_with({"translate": script}) as chat:
        events = await chat.say("Please translate chapter 1")
        started = chat.server.results_of("start_job")[0]
        job_id = started["data"]["job_id"]
        deadline = time.monotonic() + JOB_WAIT_S
        while (await chat.service.app.jobs.progress(job_id)).status == "running":
            assert time.monotonic() < deadline, "the job did not end"
            await asyncio.sleep(0.05)
        finished = await chat.service.app.jobs.progress(job_id)

    assert isinstance(chat.person.dialogs[0], ApprovalRequest)
    assert chat.person.dialogs[0].tool == "start_job"
    assert finished.status == "finished"
    chapter = library.whole_book(book_id, chapter_numbers=[1]).chapters[0]
    assert all(p.translation for p in chapter.paragraphs if not p.is_empty)
    assert (
        library.whole_book(book_id, chapter_numbers=[2]).chapters[0].paragraphs[0].translation
        is None
    )
    assert f"job {job_id} is" in said(events)


async def test_given_a_question_when_asked_then_its_answer_reaches_the_model_and_the_transcript(
    chat_with,
):
    question = {"question": "「下人」はどう訳しますか？", "suggested_answers": ["仆人", "下人"]}
    script = [
        Reply("", (FakeCall("ask_user", question),)),
        lambda turns: Reply(f"Then 「下人」 is {last_result(turns)['answer']}."),
    ]
    with chat_with({"下人": script}) as chat:
        events = await chat.say("How should 下人 read?")

    assert isinstance(chat.person.dialogs[0], QuestionRequest)
    waiting = [e for e in events if isinstance(e, QuestionWaiting)]
    assert waiting[0].questions == ["「下人」はどう訳しますか？"]
    assert said(events).endswith("Then 「下人」 is 仆人.")
    entries = chat.service.chats.entries(chat.session.id)
    (kept,) = [e.payload for e in entries if e.kind is EntryKind.QUESTION]
    assert kept["answers"] == ["仆人"]
    assert kept["outcome"] == "answered"


async def test_given_a_rate_limit_when_the_assistant_replies_then_it_retries_and_answers(chat_with):
    with chat_with({}) as chat:
        chat.server.faults.append(Fault(FaultKind.RATE_LIMIT, seconds=0.01))
        events = await chat.say("Hello there")

    assert [type(e) for e in events if isinstance(e, ChatRetry | ChatDone)] == [ChatRetry, ChatDone]
    assert "demo assistant" in said(events)


@pytest.mark.parametrize("protocol", ["native"])  # XML sends no tools to refuse
async def test_given_a_server_refusing_tools_when_chatting_then_a_plain_chat_answers_and_says_so(
    chat_with, protocol
):
    with chat_with({}, tool_support=ToolSupport.REJECTED) as chat:
        events = await chat.say("Hello there")

    notices = [e for e in events if isinstance(e, ChatNotice)]
    assert "plain chat" in notices[0].text
    assert "demo assistant" in said(events)
    assert isinstance(events[-1], ChatDone)
    assert "tools" not in chat.server.requests[-1]


async def test_given_a_long_reply_when_stopped_then_its_text_is_kept_and_its_cut_call_never_runs(
    chat_with,
):
    long = Reply(
        "Let me think about this plan at length. " * 20,
        (FakeCall("create_task", {"title": "Never"}),),
    )
    with chat_with({"plan": [long]}, delta_delay_s=0.02) as chat:
        await chat.say("Hello")  # the model learns how its replies begin: now they stream
        session = await chat.service.session(None, None, "A long plan")
        reply = chat.service.reply(session, "Make a long plan", chat.model)
        shown = ""
        async for event in reply:
            if isinstance(event, ChatText):
                shown += event.content
            if len(shown) > 100:
                break
        await reply.aclose()
        await chat.model.connected.provider.aclose()
        for _ in range(250):  # the server notices within a delta or two
            if chat.server.abandoned:
                break
            await asyncio.sleep(0.02)

    assert chat.server.abandoned == 1
    assert await chat.service.app.plans.read(PlanView(staging=True)) == []
    entries = chat.service.chats.entries(session.id)
    assert [e.kind for e in entries] == [EntryKind.USER, EntryKind.ASSISTANT, EntryKind.NOTICE]
    assert entries[1].payload["stopped"]
    assert shown.startswith(entries[1].payload["text"][:100])


async def test_given_a_call_stopped_before_its_result_when_the_chat_goes_on_then_it_reads_stopped():
    call = ToolCall("c1", "list_books", {}, "{}")
    stored = [
        transcript.user_entry("Which books?"),
        transcript.assistant_entry(AssistantMessage("", (call,))),
        transcript.notice_entry("The reply was stopped."),
        transcript.user_entry("Never mind"),
    ]
    now = datetime.now(UTC)
    entries = [ChatEntry(n, kind, payload, now) for n, (kind, payload) in enumerate(stored, 1)]

    sent = messages("system", entries)

    assert isinstance(sent[3], ToolResultMessage)
    assert '"success":false' in sent[3].content
    assert isinstance(sent[4], UserMessage)
    assert sent[4].text == "Never mind"


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (AuthError("401 bad key", status_code=401), "check the key"),
        (ProviderError("gave up after 6 attempts: 429"), "gave up"),
        (RateLimitedError("slow down", status_code=429), "limiting requests (429)"),
        (ProviderError("boom", status_code=503), "failed (503)"),
        (UnreachableError("connection refused"), "cannot reach the model's server"),
    ],
)
async def test_given_a_failure_when_told_to_the_person_then_it_says_what_to_do(error, reason):
    assert reason in friendly_error(error)


async def test_given_a_server_that_keeps_failing_when_chatting_then_a_friendly_error_ends_it(
    chat_with,
):
    with chat_with({}) as chat:
        for _ in range(8):
            chat.server.faults.append(Fault(FaultKind.SERVER_ERROR, seconds=0.01))
        events = await chat.say("Hello there")
        await chat.model.connected.provider.aclose()  # its retries' connections with it

    assert isinstance(events[-1], ChatFailed)
    assert "failed (500)" in events[-1].message
    kinds = [e.kind for e in chat.service.chats.entries(chat.session.id)]
    assert kinds == [EntryKind.USER, EntryKind.NOTICE]
