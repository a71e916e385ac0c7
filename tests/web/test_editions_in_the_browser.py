"""A book's new edition imported from its page, and stale translations on the chapter page."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from .conftest import Workbench, screenshot

FIRST = ("ある日の暮方の事である。", "一人の下人が、羅生門の下で雨やみを待っていた。")
REVISED = "一人の下人が、羅生門の下で雨止みを待っていた。"
ADDED = "第2章\n\n広い門の下には、この男のほかに誰もいない。\n"


def test_a_new_edition_is_previewed_then_imported_and_its_stale_paragraph_shown(
    page: Page, workbench: Workbench, tmp_path: Path
) -> None:
    book = workbench.add_book(*FIRST)
    workbench.wait_for(workbench.start(book, "demo"))
    edition = tmp_path / "edition-2.txt"
    edition.write_text(f"第1章\n\n{FIRST[0]}\n\n{REVISED}\n{ADDED}", encoding="utf-8")
    page.goto(f"books/{book}")

    page.get_by_text("Import a new edition").click()
    page.get_by_label("File (TXT, XHTML, EPUB)").set_input_files(edition)
    page.get_by_role("button", name="Preview").click()

    summary = page.locator(".edition-summary")
    expect(summary).to_contain_text(
        "Preview, nothing written: chapters 0 unchanged, 1 changed, 1 new, 0 gone; "
        "paragraphs 1 unchanged, 1 changed, 1 new, 0 gone."
    )
    expect(page.locator("table.chapters tbody tr")).to_have_count(1)

    page.get_by_role("button", name="Import edition").click()
    expect(summary).to_contain_text("Edition 2: chapters 0 unchanged, 1 changed, 1 new, 0 gone")
    page.get_by_role("link", name="Show the chapters").click()
    expect(page.locator("table.chapters tbody tr")).to_have_count(2)
    expect(page.locator("table.chapters tbody tr").first).to_contain_text("1 stale")

    page.goto(f"books/{book}/chapters/1")
    stale = page.locator(".paragraph.stale")
    expect(stale).to_have_count(1)
    expect(stale.locator(".source")).to_contain_text(REVISED)
    expect(stale.locator(".previous-source del")).to_have_text(FIRST[1])
    expect(stale.locator(".translation")).not_to_be_empty()
    screenshot(page, "chapter-page-stale")


def test_an_unrelated_file_is_refused_by_the_api_with_the_figures(
    workbench: Workbench,
) -> None:
    book = workbench.add_book(*FIRST)
    files = {"file": ("other.txt", b"It was a bright cold day in April.\n")}

    response = workbench.client.post(f"api/books/{book}/edition", files=files)

    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail.startswith("other.txt does not look like an edition of «試験の本»")
    assert "only 0 of the book's 2 paragraphs (0%)" in detail
    assert "--force" not in detail
    forced = workbench.client.post(
        f"api/books/{book}/edition", files=files, data={"force": "true", "dry_run": "true"}
    )
    assert forced.json()["edition"] is None
    assert forced.json()["paragraphs"]["gone"] == 2


def test_in_chinese_an_unrelated_file_is_refused_with_its_name_and_taken_when_ticked(
    chinese_page: Page, workbench: Workbench, tmp_path: Path
) -> None:
    book = workbench.add_book(*FIRST)
    other = tmp_path / "别的书.txt"
    other.write_text("It was a bright cold day in April.\n", encoding="utf-8")
    chinese_page.goto(f"books/{book}")
    chinese_page.get_by_text("导入新版本").click()
    chinese_page.locator("#edition-form input[type=file]").set_input_files(other)

    chinese_page.get_by_role("button", name="预览").click()
    refusal = chinese_page.locator("#edition-form [data-error]")
    expect(refusal).to_contain_text("别的书.txt 看起来不是《试験の本》的新版本".replace("试", "試"))
    expect(refusal).not_to_contain_text("--force")
    screenshot(chinese_page, "edition-refused-zh")

    chinese_page.locator("#edition-form input[name=force]").check()
    chinese_page.get_by_role("button", name="预览").click()
    expect(chinese_page.locator(".edition-summary")).to_contain_text("段落")
