"""The flagged paragraphs in the browser: by kind (in the page's language), linked to their
place, dismissed, and retranslated as a job over exactly those paragraphs."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest
from playwright.sync_api import Page, expect

from honyaku.testing import FakeLLMServer, ScriptedTranslator, hanzi_translation

from .conftest import Workbench, screenshot

# The fake model's pseudo translations keep the kana: each of these is flagged.
PARAGRAPHS = (
    "ある日の暮方の事である。",
    "一人の下人が雨やみを待っていた。",
    "広い門の下には誰もいない。",
)


def translated(
    workbench: Workbench, model_server: FakeLLMServer, paragraphs: Iterable[str] = PARAGRAPHS
) -> tuple[str, str]:
    book = workbench.add_book(*paragraphs)
    model = workbench.add_model(f"q-{model_server.port}", model_server)
    workbench.wait_for(workbench.start(book, model))
    return book, model


def test_flagged_paragraphs_are_listed_by_kind_and_a_dismissed_warning_stays_dismissed(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book, _ = translated(workbench, fake_model)
    page.goto(f"books/{book}/quality")

    items = page.locator(".flagged-paragraph")
    expect(items).to_have_count(3)
    expect(page.get_by_label("Kind of warning")).to_contain_text("Kana left untranslated (3)")
    first = items.first
    expect(first.get_by_role("link")).to_have_text("Chapter 1, paragraph 1")
    expect(first.get_by_role("link")).to_have_attribute(
        "href", re.compile(r"/chapters/1\?at=[0-9a-f]{8}$")
    )
    screenshot(page, "quality-flagged-en")

    first.get_by_role("button", name="Not a mistake").click()
    expect(items).to_have_count(2)
    page.reload()
    expect(page.locator(".flagged-paragraph")).to_have_count(2)


def test_the_chosen_flagged_paragraphs_are_retranslated_as_one_job_over_them_alone(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book, model = translated(workbench, fake_model)
    fake_model.translator = ScriptedTranslator(translate=hanzi_translation)  # without kana now
    page.goto(f"books/{book}/quality")
    page.locator(".flagged-paragraph").nth(1).get_by_role("checkbox").uncheck()

    page.get_by_label("Model").select_option(model)
    page.get_by_role("button", name="Retranslate the chosen paragraphs").click()

    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=20_000)
    expect(page.locator("[data-field=paragraphs]")).to_have_text("2/2")
    chapter = workbench.api("GET", f"/api/books/{book}/chapters/1")
    versions = [len(p["versions"]) for p in chapter["paragraphs"] if p["text"]]
    assert versions == [2, 1, 2]


def test_a_book_without_warnings_says_so(page: Page, workbench: Workbench) -> None:
    book = workbench.add_book(*PARAGRAPHS)

    page.goto(f"books/{book}/quality")

    expect(page.locator(".empty-state")).to_contain_text("No paragraph is flagged")


def test_in_chinese_flagged_paragraphs_are_named_by_kind_and_dismissed(
    chinese_page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    page = chinese_page
    book, _ = translated(workbench, fake_model)
    page.goto(f"books/{book}/quality")

    expect(page.get_by_label("警告类型")).to_contain_text("残留未译假名 (3)")
    first = page.locator(".flagged-paragraph").first
    expect(first.get_by_role("link")).to_have_text("第 1 章第 1 段")
    screenshot(page, "quality-flagged-zh")
    first.get_by_role("button", name="不是错误").click()
    expect(page.locator(".flagged-paragraph")).to_have_count(2)


# A translation of these in Traditional characters, for a book whose target is zh-CN.
IN_TRADITIONAL = {
    "ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。": (
        "某日傍晚，有一個僕人在羅生門下等雨停。"
    ),
    "広い門の下には、この男のほかに誰もいない。": "寬廣的門下，除了這個男人以外，再沒有別人。",
}


@pytest.mark.parametrize(
    ("language", "kind"),
    [
        ("en", "Wrong Chinese script (2)"),
        ("zh", "简繁体用反 (2)"),
        ("ja", "簡体字と繁体字の取り違え (2)"),
    ],
)
def test_paragraphs_in_the_other_chinese_script_are_flagged_under_that_kind(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer, language: str, kind: str
) -> None:
    fake_model.translator = ScriptedTranslator(
        translate=lambda text: IN_TRADITIONAL.get(text, "第一章")
    )
    book, _ = translated(workbench, fake_model, IN_TRADITIONAL)
    page.goto(f"/language/{language}?next=/books/{book}/quality")

    expect(page.locator("select[name=kind]")).to_contain_text(kind)
    first = page.locator(".flagged-paragraph").first
    expect(first.locator("[data-code=WRONG_SCRIPT]")).to_contain_text("個→个 僕→仆 羅→罗 門→门")
    expect(first.locator(".translation")).to_have_text("某日傍晚，有一個僕人在羅生門下等雨停。")
    screenshot(page, f"quality-wrong-script-{language}")
