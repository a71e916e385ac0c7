"""The chat in the workbench: the SSE stream, a reply stopped by the client, the panel.

Against a real ``honyaku serve`` and a fake model server scripted as an assistant.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from itertools import groupby

import pytest
from playwright.sync_api import Page, expect

from honyaku.testing import FakeCall, FakeLLMServer, Reply, ScriptedAssistant, ScriptedTranslator

from .conftest import Workbench, screenshot

# Numbered, so no stretch repeats: the same sentence thirty times is a loop the guard cuts
# (and asks again), which a slow machine reaches before the test presses Stop.
LONG = Reply(" ".join(f"Sentence {n}, written slowly, word after word." for n in range(1, 61)))


def plan(book_id: str) -> list:
    task = {"title": "Translate chapter 1", "area_id": book_id, "scheduled_date": "2026-11-27"}
    return [
        Reply("Planning it.", (FakeCall("create_task", task),)),
        Reply("Your task is in the plan for Friday."),
    ]


@pytest.fixture
def assistant_model() -> Iterator[FakeLLMServer]:
    scripts = {"long": [LONG]}
    with FakeLLMServer(ScriptedTranslator(assistant=ScriptedAssistant(scripts))) as server:
        yield server


def events(workbench: Workbench, body: dict) -> list[tuple[str, dict]]:
    with workbench.client.stream("POST", "/api/ai/chat/stream", json=body) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        return list(_read(response.iter_lines()))


def _read(lines: Iterator[str]) -> Iterator[tuple[str, dict]]:
    name = "message"
    for line in lines:
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            yield name, json.loads(line[5:])


def test_the_stream_is_seed_002s_sequence_of_events(workbench, assistant_model):
    book = workbench.add_book("ある日の暮方の事である。")
    assistant_model.translator.assistant.scripts = {"Friday": plan(book)}
    model = workbench.add_model("assistant-sse", assistant_model)

    got = events(workbench, {"book_id": book, "message": "Plan it for Friday", "model": model})

    shown = [(name, data["type"], data.get("status") or data.get("success")) for name, data in got]
    shown = [key for key, _ in groupby(shown)]  # text arrives in many deltas
    assert shown == [
        ("message", "session", None),
        ("message", "text", None),
        ("message", "markdown", None),
        ("message", "tool_call", "parsing"),
        ("message", "tool_call", "running"),
        ("message", "tool_result", True),
        ("message", "text", None),
        ("message", "markdown", None),
        ("done", "done", None),
    ]
    text = "".join(data["content"] for _, data in got if data["type"] == "text")
    assert text == "Planning it.Your task is in the plan for Friday."
    assert "<tool_use>" not in text
    assert got[-1][1]["session_id"] == got[0][1]["session_id"]
    assert got[-1][1]["usage"]["requests"] == 2


def test_a_client_that_goes_away_stops_the_models_request(workbench, assistant_model):
    model = workbench.add_model("assistant-gone", assistant_model)
    events(workbench, {"message": "Hello", "model": model})  # now its replies stream at once
    assistant_model.delta_delay_s = 0.05

    body = {"message": "Tell me something long", "model": model}
    with workbench.client.stream("POST", "/api/ai/chat/stream", json=body) as response:
        for _, data in _read(response.iter_lines()):
            if data["type"] == "text":
                break

    deadline = time.monotonic() + 10
    while not assistant_model.abandoned and time.monotonic() < deadline:
        time.sleep(0.05)
    assert assistant_model.abandoned == 1
    assert len(assistant_model.requests) == 2  # and no retry after it


def test_a_question_from_the_chat_is_answered_in_the_browser(
    page: Page, workbench, assistant_model
):
    book = workbench.add_book("一人の下人が羅生門の下で雨やみを待っていた。")
    question = {"question": "「下人」はどう訳しますか？", "suggested_answers": ["仆人", "下人"]}
    assistant_model.translator.assistant.scripts = {
        "下人": [
            Reply("", (FakeCall("ask_user", question),)),
            lambda turns: Reply(f"Then it is {turns[-1].results[0]['answer']}."),
        ]
    }
    workbench.add_model("assistant-ask", assistant_model)
    page.goto(f"books/{book}")
    panel = page.locator("[data-chat]")
    panel.get_by_label("Assistant’s engine").select_option("assistant-ask")
    panel.get_by_role("textbox").fill("How should 下人 read?")
    panel.get_by_role("button", name="Send").click()

    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("「下人」はどう訳しますか？")
    dialog.get_by_role("button", name="仆人", exact=True).click()

    expect(panel.locator(".reply").last).to_contain_text("Then it is 仆人.")
    answered = panel.locator(".answered")
    expect(answered).to_contain_text("「下人」はどう訳しますか？")
    expect(answered.locator(".answer")).to_have_text("→ 仆人")


def test_in_chinese_the_chat_shows_it_thinks_asks_and_stops(
    chinese_page: Page, workbench, assistant_model
):
    # Given a model that thinks a second before each reply, and asks before it answers
    page = chinese_page
    book = workbench.add_book("一人の下人が羅生門の下で雨やみを待っていた。")
    question = {"question": "「下人」はどう訳しますか？", "suggested_answers": ["仆人", "下人"]}
    assistant_model.translator.assistant.scripts = {
        "下人": [
            Reply("", (FakeCall("ask_user", question),)),
            lambda turns: Reply(f"那就译作{turns[-1].results[0]['answer']}。"),
        ],
        "long": [LONG],
    }
    assistant_model.latency_s = 1.0
    workbench.add_model("assistant-zh", assistant_model)
    page.goto(f"books/{book}")
    panel = page.locator("[data-chat]")
    panel.get_by_label("助手使用的引擎").select_option("assistant-zh")

    # When the translator asks, the panel says the model thinks, then the dialog asks in Chinese
    panel.get_by_role("textbox").fill("下人怎么译？")
    panel.get_by_role("button", name="发送").click()
    expect(panel.locator(".chat-working")).to_contain_text("思考中…")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("「下人」はどう訳しますか？")
    dialog.get_by_role("button", name="仆人", exact=True).click()

    # Then the reply carries the answer, the question is shown answered, and it stops working
    expect(panel.locator(".reply").last).to_contain_text("那就译作仆人。")
    expect(panel.locator(".answered .answer")).to_have_text("→ 仆人")
    expect(panel.locator(".tool-card")).to_have_count(0)  # the call's card became the question
    expect(panel.locator(".chat-working")).to_be_hidden()

    # When a long reply is stopped midway, it says so in Chinese
    assistant_model.latency_s, assistant_model.delta_delay_s = 0.0, 0.05
    panel.get_by_role("textbox").fill("Something long, please")
    panel.get_by_role("button", name="发送").click()
    expect(panel.locator(".reply").last).to_contain_text("word after word")
    panel.get_by_role("button", name="停止生成").click()
    expect(panel.locator(".reply").last).to_contain_text("已停止。")
    screenshot(page, "chat-panel-zh")


def test_the_chat_panel_streams_shows_tool_cards_stops_and_retries(
    page: Page, workbench, assistant_model
):
    book = workbench.add_book("広い門の下には、この男のほかに誰もいない。")
    assistant_model.translator.assistant.scripts = {"Friday": plan(book), "long": [LONG]}
    workbench.add_model("assistant-panel", assistant_model)
    page.goto(f"books/{book}")
    panel = page.locator("[data-chat]")
    panel.get_by_label("Assistant’s engine").select_option("assistant-panel")

    panel.get_by_role("textbox").fill("Plan it for Friday")
    panel.get_by_role("button", name="Send").click()
    card = panel.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "done")
    expect(card).to_contain_text("create_task")
    expect(card).to_contain_text("task 「Translate chapter 1」 created")
    expect(panel.locator(".reply").last).to_contain_text("in the plan for Friday")

    assistant_model.delta_delay_s = 0.05
    panel.get_by_role("textbox").fill("Something long, please")
    panel.get_by_role("button", name="Send").click()
    reply = panel.locator(".reply").last
    expect(reply).to_contain_text("word after word")
    screenshot(page, "chat-panel")
    panel.get_by_role("button", name="Stop generation").click()
    expect(reply).to_contain_text("Stopped.")
    expect(panel.get_by_role("button", name="Stop generation")).to_be_hidden()

    assistant_model.delta_delay_s = 0.0
    panel.get_by_role("button", name="Retry last message").click()
    expect(panel.locator(".reply").last).to_contain_text(LONG.text.strip()[-40:])
    expect(panel.get_by_label("Chat session")).to_contain_text("Plan it for Friday")

    page.once("dialog", lambda confirm: confirm.accept())
    panel.get_by_role("button", name="Delete chat").click()
    expect(panel.locator(".chat-log > li")).to_have_count(0)
    expect(panel.get_by_label("Chat session")).not_to_contain_text("Plan it for Friday")


def test_a_chat_reopened_shows_its_transcript(page: Page, workbench, assistant_model):
    book = workbench.add_book("雨は、羅生門をつつんで、遠くから、ざあっと云う音をあつめて来る。")
    assistant_model.translator.assistant.scripts = {"Friday": plan(book)}
    model = workbench.add_model("assistant-reopen", assistant_model)
    got = events(workbench, {"book_id": book, "message": "Plan it for Friday", "model": model})
    session = got[0][1]["session_id"]

    page.goto(f"books/{book}")
    panel = page.locator("[data-chat]")
    panel.get_by_label("Chat session").select_option(session)

    expect(panel.locator(".chat-log > .said")).to_have_text("Plan it for Friday")
    expect(panel.locator(".tool-card")).to_have_attribute("data-status", "done")
    expect(panel.locator(".reply")).to_contain_text("Your task is in the plan for Friday.")


def test_a_server_nobody_answers_ends_the_stream_with_a_friendly_error(workbench):
    with FakeLLMServer() as gone:
        url = gone.url  # a port that was just free, and is again
    profile = {"name": "nobody", "model": "m", "base_url": url, "protocol": "native"}
    workbench.api("POST", "/api/models", json=profile)

    got = events(workbench, {"message": "Hello", "model": "nobody"})

    assert [data["type"] for _, data in got] == ["session", "retry", "error"]
    assert "cannot reach the model's server" in got[-1][1]["message"]


def test_the_assistant_page_chats_about_the_whole_library_with_the_demo_model(
    page: Page, workbench
):
    workbench.add_book("ある日の暮方の事である。", title="羅生門")
    page.goto("chat")
    panel = page.locator("[data-chat]")
    panel.get_by_label("Assistant’s engine").select_option("demo")

    panel.get_by_role("textbox").fill("Which books do I have?")
    panel.get_by_role("button", name="Send").click()

    expect(panel.locator(".tool-card")).to_contain_text("list_books")
    expect(panel.locator(".tool-card")).to_have_attribute("data-status", "done")
    expect(panel.locator(".reply").last).to_contain_text("in the library")
