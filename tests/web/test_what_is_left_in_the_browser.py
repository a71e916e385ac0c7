"""What a job left, in the workbench, in English and in Chinese: a provider's filter refuses
one paragraph of a chapter; the book and chapter pages mark it "needs you" with the filter's
reason, the page of what is left lists it, and another model run over exactly that paragraph
finishes the book, its version naming the model that wrote it. Written by hand instead, the
mark goes; left as it is on purpose, it is listed apart until taken back. A fallback chosen in
the start form finishes it in the first job."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from honyaku.testing import Blocked, ContentFilter, FakeLLMServer

from .conftest import Workbench, screenshot, serious_violations

WORD = "血"
PARAGRAPHS = (
    "ある日の暮方の事である。",
    "一人の下人が雨やみを待っていた。",
    "老婆は血を流して倒れた。",
    "広い門の下には誰もいない。",
)


@pytest.fixture
def filtering() -> Iterator[FakeLLMServer]:
    """A provider whose filter refuses any request holding WORD, as Azure's does."""
    rule = ContentFilter(words={WORD}, blocked=Blocked.PROMPT)
    with FakeLLMServer(filter=rule, latency_s=0.02) as server:
        yield server


def left_by_the_filter(workbench: Workbench, filtering: FakeLLMServer) -> tuple[str, str]:
    """A book translated with the filtering model: all but the paragraph with WORD; the
    book's id and that paragraph's."""
    book = workbench.add_book(*PARAGRAPHS, title=f"羅生門 {filtering.port}")
    model = workbench.add_model(f"filtered-{filtering.port}", filtering, model="careful-1")
    ended = workbench.wait_for(workbench.start(book, model))
    [left] = ended["left"]
    assert (left["id"], left["failure"]) == (refused_in(workbench, book)["id"], "filtered")
    return book, left["id"]


def refused_in(workbench: Workbench, book: str) -> dict[str, Any]:
    """The book's paragraph the filter refuses, with its versions."""
    paragraphs = workbench.api("GET", f"/api/books/{book}/chapters/1")["paragraphs"]
    [refused] = [paragraph for paragraph in paragraphs if WORD in paragraph["text"]]
    return refused


def test_a_paragraph_the_filter_refused_is_marked_and_another_model_finishes_it(
    page: Page, workbench: Workbench, filtering: FakeLLMServer, fake_model: FakeLLMServer
) -> None:
    # Given a book whose third paragraph the provider's filter refused
    book, refused = left_by_the_filter(workbench, filtering)
    other = workbench.add_model(f"other-{fake_model.port}", fake_model, model="bold-2")

    # Then its page says a paragraph needs the translator, in its chapter's row too
    page.goto(f"books/{book}")
    expect(page.locator("p.needs-you")).to_contain_text("A job could not translate 1 paragraph")
    expect(page.locator("tr[data-chapter='1']")).to_contain_text("1 need you")

    # And the chapter's page marks that paragraph, and only it, with the filter's reason
    page.goto(f"books/{book}/chapters/1")
    marked = page.locator("article.paragraph .needs-you")
    expect(marked).to_have_count(1)
    expect(page.locator(f"#p-{refused} .needs-you")).to_contain_text(
        "refused by the provider's filter: content_filter: violence"
    )
    screenshot(page, "left-chapter-en")
    assert serious_violations(page, f"books/{book}/chapters/1") == []
    assert serious_violations(page, f"books/{book}/left") == []
    page.goto(f"books/{book}/chapters/1")

    # When the translator runs it again with another model from the page of what is left
    page.locator(f"#p-{refused}").get_by_role("link", name="run it with another model").click()
    expect(page.locator(".coverage")).to_contain_text("Translated: 3 of 4 paragraphs")
    item = page.locator(".left-item")
    expect(item).to_have_count(1)
    expect(item).to_contain_text("Chapter 1, paragraph 5")  # blank paragraphs counted
    expect(item).to_contain_text(PARAGRAPHS[2])
    screenshot(page, "left-page-en")
    form = page.locator("#run-again-form")

    # (Left as it is on purpose, it is listed apart, and taken back in one click)
    form.get_by_role("button", name="Leave the chosen as they are").click()
    kept = page.locator(".kept-item")
    expect(kept).to_contain_text(PARAGRAPHS[2])
    expect(page.locator(".left-item")).to_have_count(0)
    kept.get_by_role("button", name="Translate it after all").click()
    expect(page.locator(".left-item")).to_have_count(1)
    expect(page.locator(".kept-item")).to_have_count(0)

    # The page offers another model than the one that left it
    expect(form.get_by_label("Model")).to_have_value(other)
    form.get_by_role("button", name="Run the chosen again").click()

    # Then a job over that paragraph alone finishes the book
    expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f]+$"))
    job = workbench.wait_for(page.url.rsplit("/", 1)[1])
    assert (job["status"], job["paragraphs_total"], job["left"]) == ("finished", 1, [])
    assert [v["model"] for v in refused_in(workbench, book)["versions"]] == ["bold-2"]
    assert workbench.api("GET", f"/api/books/{book}/left")["coverage"]["paragraphs_done"] == 4
    page.goto(f"books/{book}")
    expect(page.locator("p.needs-you")).to_have_count(0)


def test_in_chinese_the_reason_is_in_chinese_and_a_version_written_by_hand_clears_the_mark(
    chinese_page: Page, workbench: Workbench, filtering: FakeLLMServer
) -> None:
    page = chinese_page
    book, refused = left_by_the_filter(workbench, filtering)

    page.goto(f"books/{book}/left")
    expect(page.locator(".left-item")).to_contain_text("第 1 章")
    expect(page.locator(".left-item .needs-you")).to_contain_text("待处理")
    expect(page.locator(".left-item .needs-you")).to_contain_text("content_filter: violence")
    screenshot(page, "left-page-zh")

    page.locator(".left-item").get_by_role("link").first.click()
    paragraph = page.locator(f"#p-{refused}")
    expect(paragraph.locator(".needs-you")).to_be_visible()
    paragraph.get_by_role("button", name="手动翻译").click()
    expect(paragraph.get_by_role("textbox")).to_be_focused()
    paragraph.get_by_role("textbox").fill("老妇人流着血倒下了。")
    paragraph.get_by_role("button", name="另存为新版本").click()

    expect(paragraph.locator(".translation")).to_have_text("老妇人流着血倒下了。")
    expect(paragraph.locator(".needs-you")).to_have_count(0)
    screenshot(page, "left-written-by-hand-zh")
    page.goto(f"books/{book}/left")
    expect(page.locator(".left-item")).to_have_count(0)
    expect(page.locator(".empty-state")).to_be_visible()


def test_a_fallback_chosen_when_starting_finishes_what_the_filter_refused(
    page: Page, workbench: Workbench, filtering: FakeLLMServer, fake_model: FakeLLMServer
) -> None:
    book = workbench.add_book(*PARAGRAPHS, title=f"羅生門 fallback {filtering.port}")
    first = workbench.add_model(f"first-{filtering.port}", filtering, model="careful-1")
    other = workbench.add_model(f"fallback-{fake_model.port}", fake_model, model="bold-2")

    page.goto(f"books/{book}")
    form = page.locator("#job-form")
    form.get_by_label("Model").select_option(first)
    form.get_by_label("If it fails").select_option(other)
    form.get_by_role("button", name="Start").click()

    expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f]+$"))
    job = workbench.wait_for(page.url.rsplit("/", 1)[1])
    assert (job["status"], job["paragraphs_done"], job["left"]) == ("finished", 4, [])
    paragraphs = workbench.api("GET", f"/api/books/{book}/chapters/1")["paragraphs"]
    models = {p["text"]: [v["model"] for v in p["versions"]] for p in paragraphs if p["text"]}
    assert models == {text: ["bold-2" if WORD in text else "careful-1"] for text in PARAGRAPHS}
