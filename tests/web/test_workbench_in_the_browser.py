"""The workbench as a translator uses it, clicked through in a real browser."""

from __future__ import annotations

import re
import time
import zipfile
from collections import deque
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from honyaku.formats import read_book
from honyaku.testing import FakeLLMServer, Fault, FaultKind, pseudo_translation

from .conftest import Workbench, screenshot

RASHOMON = Path(__file__).parents[1] / "fixtures/books/rashomon_akutagawa/127_15260.utf8.html"
PARAGRAPHS = ("ある日の暮方の事である。", "一人の下人が、羅生門の下で雨やみを待っていた。")
ANSWERED = 4
"""Requests the model answers before it holds one: at least a chunk's worth."""


@pytest.mark.backends("sqlite", "postgresql")
def test_a_book_imported_by_upload_is_translated_with_the_demo_model_and_read_side_by_side(
    page: Page, workbench: Workbench
) -> None:
    page.goto("")
    page.get_by_label("File (TXT, Aozora text or XHTML, EPUB)").set_input_files(RASHOMON)
    page.get_by_label("Title").fill("羅生門（試験）")
    page.get_by_role("button", name="Import").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("羅生門（試験）")
    expect(page.locator("table.chapters tbody tr")).to_have_count(1)
    expect(page.locator("table.chapters")).to_contain_text("0/37")
    page.get_by_label("Model").select_option("demo")
    page.get_by_role("button", name="Start").click()
    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=20_000)
    page.get_by_role("link", name="羅生門（試験）").click()
    page.get_by_role("link", name="羅生門", exact=True).click()
    expect(page.locator(".paragraph[data-paragraph]")).to_have_count(37)
    expect(page.locator(".translation").first).to_contain_text("〈译〉")
    screenshot(page, "chapter-page")


@pytest.mark.backends("sqlite", "postgresql")
def test_a_job_started_on_the_book_page_shows_its_progress_reaching_the_end(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = workbench.add_book(*PARAGRAPHS, chapters=3)
    model = workbench.add_model(f"translator-{fake_model.port}", fake_model)
    page.goto(f"books/{book}")

    page.get_by_label("Model").select_option(model)
    page.get_by_role("button", name="Start").click()

    expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f]{8}$"))
    expect(page.locator("[data-field=percent]")).to_have_text("100", timeout=20_000)
    expect(page.locator("[data-field=status]")).to_have_text("finished")
    expect(page.locator("[data-field=paragraphs]")).to_have_text("6/6")
    # (the book's three short chapters share one conversation)
    expect(page.locator("[data-field=requests]")).to_have_text("1")
    page.goto(f"books/{book}")
    expect(page.locator("table.chapters")).to_contain_text("2/2")


def test_a_running_job_stops_and_resumes_where_it_stopped(page: Page, workbench: Workbench) -> None:
    # Six chapters of 210 characters in parts of 200: two parts each, none shared
    book = workbench.add_book(*PARAGRAPHS * 6, chapters=6)
    workbench.api("PATCH", f"/api/books/{book}/settings", json={"chunk_chars": 200})
    # The model answers its first requests at once and holds the next one, so the job is
    # midway when Stop is pressed, however slow the machine.
    held = [Fault(FaultKind.SLOW_FIRST_BYTE)] * ANSWERED + [Fault(FaultKind.SLOW_FIRST_BYTE, 60)]
    with FakeLLMServer(faults=deque(held)) as model_server:
        model = workbench.add_model(f"holding-{model_server.port}", model_server)
        job = workbench.start(book, model)
        page.goto(f"jobs/{job}")
        _wait_until(lambda: len(model_server.requests) > ANSWERED)

        page.get_by_role("button", name="Stop").click()
        expect(page.locator("[data-field=status]")).to_have_text("stopped")
        stopped = workbench.wait_for(job)
        assert 0 < stopped["paragraphs_done"] < stopped["paragraphs_total"]
        page.get_by_role("button", name="Resume").click()

        expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=30_000)
    [only] = workbench.api("GET", f"/api/jobs?book_id={book}")
    assert only["id"] == job
    assert only["paragraphs_done"] == only["paragraphs_total"] == 72


def _wait_until(condition: Callable[[], bool], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_while_a_slow_model_works_the_job_page_says_how_long_it_has_waited(
    page: Page, workbench: Workbench
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    with FakeLLMServer(latency_s=2.5) as slow:
        job = workbench.start(book, workbench.add_model(f"slow-{slow.port}", slow))
        page.goto(f"jobs/{job}")

        waiting = page.locator("[data-field=waiting]")
        expect(waiting).to_have_text(re.compile(r"^Waiting for the model: \d s"))
        expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=30_000)
        expect(waiting).to_be_hidden()


def test_on_the_chapter_page_a_version_is_written_by_hand_and_another_selected(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    workbench.wait_for(
        workbench.start(book, workbench.add_model(f"t-{fake_model.port}", fake_model))
    )
    page.goto(f"books/{book}/chapters/1")
    first = page.locator(".paragraph[data-paragraph]").first

    first.locator("summary").click()
    first.get_by_placeholder("Write a version by hand").fill("某日傍晚。")
    first.get_by_role("button", name="Save as a new version").click()
    first = page.locator(".paragraph[data-paragraph]").first
    expect(first.locator(".translation")).to_have_text("某日傍晚。")
    expect(first.locator(".version")).to_have_count(2)
    expect(first.locator(".version.selected")).to_contain_text("by hand")

    first.locator(".version", has_text="translation").get_by_role("button", name="Select").click()
    first = page.locator(".paragraph[data-paragraph]").first
    expect(first.locator(".translation")).to_have_text(pseudo_translation(PARAGRAPHS[0]))
    expect(first.locator(".version")).to_have_count(2)


def test_the_book_exports_as_an_epub_download(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer, tmp_path: Path
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    workbench.wait_for(
        workbench.start(book, workbench.add_model(f"e-{fake_model.port}", fake_model))
    )
    page.goto(f"books/{book}")

    with page.expect_download() as download:
        page.get_by_role("link", name="EPUB", exact=True).click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)

    assert saved.name == "試験の本.zh-CN.epub"
    assert zipfile.is_zipfile(saved)
    [chapter] = read_book(saved).chapters
    assert [p for p in chapter.paragraphs if p] == [pseudo_translation(p) for p in PARAGRAPHS]


def test_a_call_needing_approval_is_denied_then_allowed_and_the_model_reads_the_denial(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    workbench.api(
        "PATCH", f"/api/books/{book}/settings", json={"approve_tools": ["update_chapter_title"]}
    )
    page.goto(f"books/{book}")

    job = workbench.start(book, workbench.add_model(f"a-{fake_model.port}", fake_model))
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Allow update_chapter_title?")
    expect(dialog.locator(".arguments")).to_contain_text('"translated_title"')
    dialog.get_by_role("button", name="Deny").click()
    expect(dialog).to_contain_text("Allow update_chapter_title?")
    dialog.get_by_role("button", name="Allow", exact=True).click()

    assert workbench.wait_for(job)["status"] == "finished"
    denied = fake_model.results_of("update_chapter_title")[0]
    assert denied["error_code"] == "DENIED"
    assert "did not allow" in denied["error"]
    [chapter] = workbench.api("GET", f"/api/books/{book}")["chapter_list"]
    assert chapter["translated_title"] == pseudo_translation("第1章")


def test_book_text_is_shown_as_text_never_run_as_markup(page: Page, workbench: Workbench) -> None:
    alerts: list[str] = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    book = workbench.add_book(hostile, title="<b>bold</b><script>alert(3)</script>")

    for path in ("", f"books/{book}", f"books/{book}/chapters/1"):
        page.goto(path)
        page.wait_for_load_state("networkidle")

    expect(page.locator(".paragraph .source").first).to_contain_text(hostile)
    assert alerts == []
    page.goto(f"books/{book}")
    expect(page.get_by_role("heading", level=1)).to_contain_text("<b>bold</b>")
