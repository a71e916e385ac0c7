"""Questions in the browser: the model asks, the person answers in a full-screen dialog.

Each scenario is clicked through against a real ``honyaku serve`` and a fake model server
scripted to ask; what the model receives is read off the fake server's requests.
"""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from honyaku.testing import FakeCall, FakeLLMServer

from .conftest import JOB_WAIT_S, Workbench, screenshot

# Questions and their dialogs live in the serving process; what they store is a job's, and
# the workbench's own tests run those on both databases.

NAME = FakeCall(
    "ask_user",
    {
        "question": "「下人」はどう訳しますか？",
        "suggested_answers": ["仆人", "下人"],
        "allow_free_text": True,
    },
)
BATCH = FakeCall(
    "ask_user_batch",
    {
        "questions": [
            {"question": "主人公の一人称は？", "suggested_answers": ["我", "俺"]},
            {"question": "敬語はどこまで訳す？"},
            {
                "question": "地名は音訳？",
                "suggested_answers": ["音訳", "意訳"],
                "allow_free_text": False,
            },
        ]
    },
)
PARAGRAPHS = ("ある日の暮方の事である。", "一人の下人が、羅生門の下で雨やみを待っていた。")


def asking(workbench: Workbench, fake_model: FakeLLMServer, *questions: FakeCall) -> str:
    """A book, and a model profile whose model asks ``questions`` first in every chunk."""
    fake_model.translator.asks = questions
    workbench.add_model(f"asker-{fake_model.port}", fake_model)
    return workbench.add_book(*PARAGRAPHS)


def test_picking_the_second_suggestion_sends_the_model_the_answer_and_its_index(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = asking(workbench, fake_model, NAME)
    page.goto(f"books/{book}")

    job = workbench.start(book, f"asker-{fake_model.port}")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("「下人」はどう訳しますか？")
    screenshot(page, "question-dialog")
    dialog.get_by_role("button", name="下人", exact=True).click()

    expect(dialog).to_be_hidden()
    assert workbench.wait_for(job)["status"] == "finished"
    [result] = fake_model.results_of("ask_user")
    assert result == {
        "success": True,
        "question": "「下人」はどう訳しますか？",
        "answer": "下人",
        "selected_index": 1,
    }


def test_a_free_text_answer_is_sent_without_an_index(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = asking(workbench, fake_model, NAME)
    page.goto(f"books/{book}")

    job = workbench.start(book, f"asker-{fake_model.port}")
    page.get_by_placeholder("Your own answer").fill("下男")
    page.get_by_role("button", name="Answer").click()

    workbench.wait_for(job)
    [result] = fake_model.results_of("ask_user")
    assert result["answer"] == "下男"
    assert "selected_index" not in result


def test_cancel_is_a_result_the_model_can_read(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = asking(workbench, fake_model, NAME)
    page.goto(f"books/{book}")

    job = workbench.start(book, f"asker-{fake_model.port}")
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()

    assert workbench.wait_for(job)["status"] == "finished"
    [result] = fake_model.results_of("ask_user")
    assert result["cancelled"] is True
    assert result["success"] is False


def test_a_batch_is_one_dialog_stepped_through_with_back_and_next(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = asking(workbench, fake_model, BATCH)
    page.goto(f"books/{book}")

    job = workbench.start(book, f"asker-{fake_model.port}")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("1 / 3")
    dialog.get_by_role("button", name="我").click()
    expect(dialog).to_contain_text("2 / 3")
    expect(dialog).to_contain_text("敬語はどこまで訳す？")
    dialog.get_by_role("button", name="Back").click()
    expect(dialog).to_contain_text("主人公の一人称は？")
    dialog.get_by_role("button", name="俺").click()
    dialog.get_by_placeholder("Your own answer").fill("全部訳す")
    dialog.get_by_role("button", name="Answer").click()
    expect(dialog).to_contain_text("3 / 3")
    expect(dialog.get_by_placeholder("Your own answer")).to_have_count(0)
    screenshot(page, "batch-stepper")
    dialog.get_by_role("button", name="意訳").click()
    dialog.get_by_role("button", name="Submit").click()

    workbench.wait_for(job)
    [result] = fake_model.results_of("ask_user_batch")
    assert result == {
        "success": True,
        "answers": [
            {"question_index": 0, "answer": "俺", "selected_index": 1},
            {"question_index": 1, "answer": "全部訳す"},
            {"question_index": 2, "answer": "意訳", "selected_index": 1},
        ],
    }


def test_a_batch_cancelled_midway_sends_the_answers_given_so_far(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = asking(workbench, fake_model, BATCH)
    page.goto(f"books/{book}")

    job = workbench.start(book, f"asker-{fake_model.port}")
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name="俺").click()
    expect(dialog).to_contain_text("2 / 3")
    dialog.get_by_role("button", name="Cancel").click()

    workbench.wait_for(job)
    [result] = fake_model.results_of("ask_user_batch")
    assert result["cancelled"] is True
    assert result["answers"] == [{"question_index": 0, "answer": "俺", "selected_index": 1}]


def test_two_jobs_asking_at_once_get_one_dialog_after_the_other(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    first = asking(workbench, fake_model, NAME)
    second = workbench.add_book(*PARAGRAPHS, title="二冊目")
    page.goto(f"books/{first}")

    jobs = [workbench.start(book, f"asker-{fake_model.port}") for book in (first, second)]
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    deadline = time.monotonic() + JOB_WAIT_S  # the second job still has its model to hear from
    while workbench.api("GET", "/api/questions")["queued"] < 1:
        assert time.monotonic() < deadline, "the second question never queued"
        time.sleep(0.05)
    assert page.get_by_role("dialog").count() == 1
    asked_first = dialog.locator(".asker").inner_text()
    dialog.get_by_role("button", name="仆人").click()
    expect(dialog.locator(".asker")).not_to_have_text(asked_first)
    dialog.get_by_role("button", name="下人", exact=True).click()

    for job in jobs:
        assert workbench.wait_for(job)["status"] == "finished"
    answers = [result["answer"] for result in fake_model.results_of("ask_user")]
    assert sorted(answers) == ["下人", "仆人"]


def test_a_page_opened_while_a_question_waits_shows_it_and_an_answer_closes_it_everywhere(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = asking(workbench, fake_model, NAME)
    page.goto(f"books/{book}")
    job = workbench.start(book, f"asker-{fake_model.port}")
    expect(page.get_by_role("dialog")).to_be_visible()

    other = page.context.new_page()
    other.goto("jobs")
    expect(other.get_by_role("dialog")).to_contain_text("「下人」はどう訳しますか？")
    other.get_by_role("dialog").get_by_role("button", name="仆人").click()

    expect(page.get_by_role("dialog")).to_be_hidden()
    expect(other.get_by_role("dialog")).to_be_hidden()
    workbench.wait_for(job)


def test_with_skip_ask_user_switched_on_no_dialog_appears_and_the_tools_are_not_offered(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = asking(workbench, fake_model, NAME)
    page.goto(f"books/{book}")
    page.get_by_role("button", name="Translation settings").click()
    settings = page.locator("#settings-dialog")
    expect(settings.get_by_role("tab", name="This book")).to_be_visible()
    settings.get_by_label("Skip AI questions (no question dialog)").check()
    settings.get_by_role("button", name="Save").click()
    expect(settings.get_by_role("status")).to_have_text("Saved.")
    settings.get_by_role("button", name="Close").click()
    expect(settings).to_be_hidden()

    job = workbench.start(book, f"asker-{fake_model.port}")

    assert workbench.wait_for(job)["status"] == "finished"
    assert workbench.api("GET", f"/api/books/{book}")["settings"]["skip_ask_user"] is True
    offered = {tool["function"]["name"] for tool in fake_model.requests[0]["tools"]}
    assert "ask_user" not in offered
    assert "ask_user_batch" not in offered
    [result] = fake_model.results_of("ask_user")
    assert result["skipped"] is True
    expect(page.get_by_role("dialog")).to_be_hidden()


def test_with_no_page_open_a_question_gets_the_no_front_end_result_after_a_grace(
    workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = asking(workbench, fake_model, NAME)

    job = workbench.start(book, f"asker-{fake_model.port}")

    assert workbench.wait_for(job)["status"] == "finished"
    [result] = fake_model.results_of("ask_user")
    assert result["error_code"] == "NO_FRONT_END"
    assert "no page of the honyaku workbench is open" in result["error"]
