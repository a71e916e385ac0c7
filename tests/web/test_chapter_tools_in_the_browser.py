"""The chapter page's tools: search the book, replace in translations with a preview, and
retranslate ticked or flagged paragraphs as a job over exactly those."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from honyaku.testing import FakeLLMServer, ScriptedTranslator, hanzi_translation, pseudo_translation

from .conftest import Workbench, screenshot

PARAGRAPHS = ("下人は雨を見ていた。", "門の上に老婆がいた。", "下人は走った。")


def translated(workbench: Workbench, server: FakeLLMServer, chapters: int = 2) -> tuple[str, str]:
    book = workbench.add_book(*PARAGRAPHS, chapters=chapters)
    model = workbench.add_model(f"c-{server.port}", server)
    workbench.wait_for(workbench.start(book, model))
    return book, model


def test_a_regex_search_finds_matches_across_the_book_each_linked_to_its_place(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book, _ = translated(workbench, fake_model)
    page.goto(f"books/{book}/chapters/1")

    page.get_by_text("Search and replace").click()
    page.get_by_label("Find").fill("下人は.{2}た")
    page.get_by_label("Regular expression").check()
    page.get_by_role("checkbox", name="In translations").uncheck()
    page.get_by_role("button", name="Search", exact=True).click()

    expect(page.locator(".search-form [data-status]")).to_have_text("2 paragraphs match.")
    hits = page.locator(".hits > li")
    expect(hits).to_have_count(2)
    expect(hits.nth(1).locator("mark")).to_have_text(["下人は走った"])
    link = hits.nth(1).get_by_role("link")
    expect(link).to_have_text("Chapter 2, paragraph 5")
    expect(link).to_have_attribute("href", re.compile(r"/chapters/2\?at=[0-9a-f]{8}$"))
    page.get_by_label("Regular expression").uncheck()
    page.get_by_label("Find").fill("老婆")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator(".search-form [data-status]")).to_have_text("2 paragraphs match.")
    expect(page.locator(".hits a").nth(1)).to_have_text("Chapter 2, paragraph 3")
    screenshot(page, "chapter-search-en")


def test_a_replacement_is_previewed_applied_where_ticked_and_undone_by_selecting(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book, _ = translated(workbench, fake_model, chapters=1)
    page.goto(f"books/{book}/chapters/1")

    page.get_by_text("Search and replace").click()
    page.get_by_label("Find").fill("下人")
    page.get_by_label("Replace in translations with").fill("仆人")
    page.get_by_role("button", name="Preview the replacement").click()
    changes = page.locator(".replacements > li")
    expect(changes).to_have_count(2)
    expect(changes.first.locator(".after")).to_have_text("〈译〉仆人は雨を見ていた。")
    screenshot(page, "chapter-replace-preview-en")
    changes.nth(1).get_by_role("checkbox").uncheck()
    page.get_by_role("button", name="Replace in the ticked paragraphs").click()

    expect(page.locator(".search-form [data-status]")).to_contain_text("1 replaced")
    first = page.locator(".paragraph[data-paragraph]").first
    expect(first.locator(".translation")).to_have_text("〈译〉仆人は雨を見ていた。")
    expect(page.locator(".paragraph[data-paragraph]").nth(2).locator(".translation")).to_have_text(
        pseudo_translation(PARAGRAPHS[2])
    )
    first.locator("summary").click()
    first.locator(".version", has_text="translation").get_by_role("button", name="Select").click()
    expect(page.locator(".paragraph[data-paragraph]").first.locator(".translation")).to_have_text(
        pseudo_translation(PARAGRAPHS[0])
    )


def test_a_ticked_paragraph_is_retranslated_alone(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book, model = translated(workbench, fake_model, chapters=1)
    fake_model.translator = ScriptedTranslator(translate=hanzi_translation)  # another text
    page.goto(f"books/{book}/chapters/1")

    page.get_by_text("Retranslate paragraphs").click()
    page.locator(".paragraph[data-paragraph]").nth(1).get_by_label(
        "Retranslate this paragraph"
    ).check()
    expect(page.locator("[data-chosen]")).to_have_text("1")
    page.locator(".retranslate-form").get_by_label("Model").select_option(model)
    page.get_by_role("button", name=re.compile("Retranslate the ticked paragraphs")).click()

    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=20_000)
    expect(page.locator("[data-field=paragraphs]")).to_have_text("1/1")
    chapter = workbench.api("GET", f"/api/books/{book}/chapters/1")
    assert [len(p["versions"]) for p in chapter["paragraphs"] if p["text"]] == [1, 2, 1]


def test_the_chapters_flagged_paragraphs_are_retranslated_as_one_job(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    book, model = translated(workbench, fake_model)
    fake_model.translator = ScriptedTranslator(translate=hanzi_translation)  # without kana
    flagged = workbench.api("GET", f"/api/books/{book}/flagged?chapters=2")
    page.goto(f"books/{book}/chapters/2")

    page.get_by_text("Retranslate paragraphs").click()
    page.locator(".retranslate-form").get_by_label("Model").select_option(model)
    page.get_by_role("button", name="Retranslate this chapter's flagged paragraphs").click()

    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=20_000)
    expect(page.locator("[data-field=paragraphs]")).to_have_text(f"{len(flagged)}/{len(flagged)}")
    chapter = workbench.api("GET", f"/api/books/{book}/chapters/2")
    again = {p["id"] for p in chapter["paragraphs"] if len(p["versions"]) == 2}
    assert again == {f["paragraph_id"] for f in flagged}


def test_in_chinese_a_search_and_a_replacement_preview_speak_chinese(
    chinese_page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    page = chinese_page
    book, _ = translated(workbench, fake_model, chapters=1)
    page.goto(f"books/{book}/chapters/1")

    page.get_by_text("搜索与替换").click()
    page.get_by_label("查找").fill("下人")
    page.get_by_role("button", name="搜索", exact=True).click()
    expect(page.locator(".search-form [data-status]")).to_have_text("共 2 个段落匹配。")
    expect(page.locator(".hits a").first).to_have_text("第 1 章第 1 段")
    page.get_by_label("在译文中替换为").fill("仆人")
    page.get_by_role("button", name="预览替换").click()
    expect(page.locator(".search-form [data-status]")).to_have_text("将有 2 条译文改变。")
    screenshot(page, "chapter-tools-zh")


def test_a_regex_only_a_backtracking_engine_runs_is_refused_next_to_the_search_box(
    chinese_page: Page, workbench: Workbench
) -> None:
    page = chinese_page
    book = workbench.add_book(*PARAGRAPHS)
    page.goto(f"books/{book}/chapters/1")

    page.get_by_text("搜索与替换").click()
    page.get_by_label("查找").fill("(下人)は\\1")
    page.get_by_label("正则表达式").check()
    page.get_by_role("button", name="搜索", exact=True).click()

    expect(page.locator(".search-form [data-error]")).to_contain_text("不支持反向引用")
