"""The planner, through the assistant: tasks created, read by view, deleted only with
the translator's yes."""

from __future__ import annotations

import pytest

from honyaku.assistant import ChatDone, ChatText, ToolCard, ToolOutcome
from honyaku.domain.plan import PlanView
from honyaku.testing import FakeCall, Reply, last_result

pytestmark = pytest.mark.anyio

FRIDAY = "2026-11-27"


def plan_friday(book_id: str) -> list:
    return [
        Reply(
            "I will plan it.",
            (
                FakeCall(
                    "create_task",
                    {
                        "title": "Translate chapters 1–2",
                        "area_id": book_id,
                        "scheduled_date": FRIDAY,
                        "chapters": "1-2",
                        "job_kind": "translation",
                    },
                ),
            ),
        ),
        Reply("", (FakeCall("read_tasks", {"view_context": f"daily::{FRIDAY}"}),)),
        Reply("", (FakeCall("read_tasks", {"view_context": f"area::{book_id}"}),)),
        Reply("Planned for Friday."),
    ]


async def test_given_a_plan_request_when_a_task_is_created_then_it_reads_back_by_day_and_by_book(
    chat_with, book_id
):
    with chat_with({"Friday": plan_friday(book_id)}) as chat:
        events = await chat.say("Plan chapters 1-2 for Friday")

    (created,) = chat.server.results_of("create_task", latest=True)
    by_day, by_book = chat.server.results_of("read_tasks", latest=True)
    assert created["success"]
    assert created["message"] == "task 「Translate chapters 1–2」 created"
    task = created["data"]
    assert task | {"id": None} == {
        "id": None,
        "title": "Translate chapters 1–2",
        "area_id": book_id,
        "chapters": [1, 2],
        "job_kind": "translation",
        "scheduled_date": FRIDAY,
        "completed": False,
    }
    assert by_day["message"] == "1 task found"
    assert by_day["data"]["tasks"] == [task]
    assert by_book["data"]["tasks"] == [task]
    assert await chat.service.app.plans.read(PlanView(staging=True)) == []
    assert "".join(e.content for e in events if isinstance(e, ChatText)).endswith("Friday.")
    assert isinstance(events[-1], ChatDone)


async def test_given_a_refused_deletion_when_the_model_reads_the_denial_then_the_task_stays(
    chat_with, book_id
):
    script = [
        Reply("", (FakeCall("create_task", {"title": "Proofread chapter 2"}),)),
        lambda turns: Reply(
            "", (FakeCall("delete_task", {"task_id": last_result(turns)["data"]["id"]}),)
        ),
        lambda turns: Reply(f"I could not: {last_result(turns)['error']}"),
    ]
    with chat_with({"delete": script}, allows=False) as chat:
        events = await chat.say("Make a task, then delete it")

    (denied,) = chat.server.results_of("delete_task", latest=True)
    assert denied["success"] is False
    assert denied["error_code"] == "DENIED"
    assert [t.title for t in await chat.service.app.plans.read(PlanView(staging=True))] == [
        "Proofread chapter 2"
    ]
    assert [d.tool for d in chat.person.dialogs] == ["delete_task"]
    outcome = [e for e in events if isinstance(e, ToolOutcome) and e.name == "delete_task"]
    assert outcome[0].success is False
    said = "".join(e.content for e in events if isinstance(e, ChatText))
    assert "did not allow this delete_task call" in said


async def test_given_a_tool_call_when_it_streams_then_its_card_goes_parsing_running_done(
    chat_with, book_id
):
    with chat_with({"Friday": plan_friday(book_id)}) as chat:
        events = await chat.say("Plan chapters 1-2 for Friday")

    card = [
        (type(e).__name__, getattr(e, "status", getattr(e, "success", None)))
        for e in events
        if isinstance(e, ToolCard | ToolOutcome) and e.id == "1-0"
    ]
    assert card == [("ToolCard", "parsing"), ("ToolCard", "running"), ("ToolOutcome", True)]
