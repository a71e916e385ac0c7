"""Cost before and during a job, and a book's page live while its jobs run."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from honyaku.testing import FakeLLMServer

from .conftest import Workbench, screenshot

PARAGRAPHS = ("ある日の暮方の事である。", "一人の下人が雨やみを待っていた。")


def priced_model(workbench: Workbench, server: FakeLLMServer, name: str) -> str:
    profile = {"name": name, "model": "fake-translator", "base_url": server.url}
    prices = {"input_price": 2.0, "output_price": 8.0, "protocol": "native"}
    workbench.api("POST", "/api/models", json={**profile, **prices})
    return name


def test_the_start_form_shows_the_estimate_and_the_cap_before_anything_is_sent(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = workbench.add_book(*PARAGRAPHS, chapters=3)
    model = priced_model(workbench, fake_model, f"priced-{fake_model.port}")
    page.goto(f"books/{book}")

    page.get_by_label("Model").select_option(model)
    estimate = page.locator("#job-estimate")
    expect(estimate).to_contain_text("Chunks 3 · paragraphs 6")
    expect(estimate).to_contain_text("at the model's prices")
    expect(estimate).to_contain_text("Tokens counted with a ratio per script.")
    expect(estimate).to_contain_text("has not worked here yet")
    expect(estimate).to_contain_text("With the Batch API: about")
    expect(estimate).to_contain_text("within 24 hours")
    page.get_by_label("Chapters").fill("1")
    page.get_by_label("Cap for this run").fill("5")
    page.get_by_label("Cap for this run").dispatch_event("change")
    expect(estimate).to_contain_text("Chunks 1 · paragraphs 2")
    expect(estimate).to_contain_text("The run stops before it spends more than 5.")
    screenshot(page, "book-estimate-en")
    assert fake_model.requests == []

    page.get_by_label("Model").select_option("demo")
    expect(estimate).to_contain_text("Free: this model costs nothing.")


def test_a_job_started_with_the_batch_box_ticked_goes_through_the_providers_batch_api(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = workbench.add_book(*PARAGRAPHS, chapters=2)
    model = priced_model(workbench, fake_model, f"batched-{fake_model.port}")
    page.goto(f"books/{book}")

    page.get_by_label("Model").select_option(model)
    page.get_by_label("Batch: half price, within 24 h").check()
    page.get_by_role("button", name="Start").click()

    expect(page).to_have_url(re.compile(r"/jobs/\w+$"))
    job = workbench.wait_for(page.url.rsplit("/", 1)[1])
    assert job["status"] == "finished"
    assert job["batches"]["sent"] >= 1
    assert job["batches"]["waiting"] == 0
    assert fake_model.batches.answered
    assert fake_model.requests == [], "nothing was streamed"


def test_the_books_cap_is_set_and_cleared_from_the_settings_dialog(
    page: Page, workbench: Workbench
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    page.goto(f"books/{book}")
    cap = page.get_by_label("Spending cap per run")

    page.get_by_role("button", name="Translation settings").click()
    cap.fill("0.5")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("dialog").get_by_role("status")).to_have_text("Saved.")
    assert workbench.api("GET", f"/api/books/{book}")["settings"]["max_cost"] == 0.5

    page.reload()
    expect(page.locator("#job-estimate")).to_contain_text("more than 0.5")
    page.get_by_role("button", name="Translation settings").click()
    expect(cap).to_have_value("0.5")
    cap.fill("")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("dialog").get_by_role("status")).to_have_text("Saved.")
    assert workbench.api("GET", f"/api/books/{book}")["settings"]["max_cost"] is None


def test_a_book_with_a_cap_is_translated_by_the_demo_model(
    page: Page, workbench: Workbench
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    workbench.api("PATCH", f"/api/books/{book}/settings", json={"max_cost": 0.01})
    page.goto(f"books/{book}")

    page.get_by_label("Model").select_option("demo")
    page.get_by_role("button", name="Start").click()

    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=20_000)
    expect(page.locator("[data-field=spent]")).to_have_text("0")


def test_a_runs_cap_stops_it_before_the_request_that_could_pass_it(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    model = priced_model(workbench, fake_model, f"capped-{fake_model.port}")
    page.goto(f"books/{book}")

    page.get_by_label("Model").select_option(model)
    page.get_by_label("Cap for this run").fill("0.000001")
    page.get_by_role("button", name="Start").click()

    expect(page.locator("[data-field=status]")).to_have_text("stopped")
    expect(page.locator("[data-field=stopped]")).to_contain_text("cap")
    assert fake_model.requests == []


def test_the_book_page_shows_a_running_job_live_and_its_chapters_filling_in(
    page: Page, workbench: Workbench
) -> None:
    book = workbench.add_book(*PARAGRAPHS, chapters=4)
    workbench.api("PATCH", f"/api/books/{book}/settings", json={"chunk_chars": 200})
    with FakeLLMServer(latency_s=0.3) as slow:
        model = priced_model(workbench, slow, f"live-{slow.port}")
        slow.answering.clear()
        job = workbench.start(book, model)
        page.goto(f"books/{book}")

        live = page.locator(f"[data-live-job='{job}']")
        expect(live).to_be_visible()
        expect(live.locator("[data-live=times]")).to_contain_text("so far")
        expect(live.locator("[data-live=spent]")).to_contain_text("spent")
        screenshot(page, "book-live-en")
        slow.answering.set()
        expect(page.locator("tr[data-chapter='4']")).to_contain_text("2/2", timeout=30_000)

    expect(page.locator(".live-jobs")).to_be_hidden()
    for number in range(1, 5):
        expect(page.locator(f"tr[data-chapter='{number}']")).to_contain_text("2/2")
    expect(page.locator(f"tr[data-job='{job}'] .status")).to_have_text("finished")


def test_a_finished_jobs_page_settles_at_once_with_what_it_spent(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    model = priced_model(workbench, fake_model, f"spent-{fake_model.port}")
    job = workbench.start(book, model)
    page.goto(f"jobs/{job}")

    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=5_000)
    expect(page.get_by_role("button", name="Stop")).to_be_hidden(timeout=1_000)
    expect(page.locator("[data-field=spent]")).to_have_text(re.compile(r"^0\.0\d+"))


def test_in_chinese_the_estimate_the_cap_and_a_running_job_speak_chinese(
    chinese_page: Page, workbench: Workbench
) -> None:
    page = chinese_page
    book = workbench.add_book(*PARAGRAPHS, chapters=3)
    workbench.api("PATCH", f"/api/books/{book}/settings", json={"chunk_chars": 200})
    with FakeLLMServer(latency_s=0.3) as slow:
        model = priced_model(workbench, slow, f"zh-{slow.port}")
        page.goto(f"books/{book}")
        page.get_by_label("模型").select_option(model)
        estimate = page.locator("#job-estimate")
        expect(estimate).to_contain_text("文本分为 3 部分 · 段落 6")
        expect(estimate).to_contain_text("按模型价格约")
        page.get_by_label("本次运行上限").fill("5")
        page.get_by_label("本次运行上限").dispatch_event("change")
        expect(estimate).to_contain_text("运行会在花费超过 5 之前停下。")
        screenshot(page, "book-estimate-zh")

        slow.answering.clear()
        job = workbench.start(book, model)
        page.reload()
        live = page.locator(f"[data-live-job='{job}']")
        expect(live.locator("[data-live=times]")).to_contain_text("已用")
        expect(live.locator("[data-live=spent]")).to_contain_text("已花费")
        screenshot(page, "book-live-zh")
        slow.answering.set()
        expect(page.locator("tr[data-chapter='3']")).to_contain_text("2/2", timeout=30_000)
