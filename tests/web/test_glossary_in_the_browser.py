"""A book's glossary in the browser: extraction, proposals, entries, files and series; its
cast and address book."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from honyaku.testing import FakeLLMServer, ScriptedTranslator
from honyaku.testing.series import CHARACTERS, FORMS_OF_ADDRESS, volumes

from .conftest import Workbench, screenshot

NAMES = ("アリスは森へ行った。", "ボブは笑った。", "アリスとボブとキャロルが歩いた。")


def test_names_a_model_extracts_are_accepted_or_rejected_one_by_one_and_all(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    # Given a book whose model may not ask questions, and a model to extract with
    book = workbench.add_book(*NAMES)
    workbench.api("PATCH", f"/api/books/{book}/settings", json={"skip_ask_user": True})
    model = workbench.add_model(f"x-{fake_model.port}", fake_model)

    # When the translator starts an extraction from the glossary page
    page.goto(f"books/{book}/glossary")
    expect(page.get_by_text("The glossary is empty")).to_be_visible()
    page.locator("#extract-form").get_by_label("Model").select_option(model)
    page.get_by_role("button", name="Extract names and terms").click()
    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=20_000)

    # Then the names wait as proposals, to accept or reject one by one
    page.goto(f"books/{book}/glossary")
    expect(page.locator(".notice.proposals")).to_contain_text("3 proposals wait for you.")
    screenshot(page, "glossary-proposals-en")
    page.locator("tr", has_text="アリス").get_by_role("button", name="Accept").click()
    expect(page.locator("tr", has_text="アリス")).to_contain_text("accepted")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("tr", has_text="ボブ").get_by_role("button", name="Reject").click()
    expect(page.locator("tr[data-source=ボブ]")).to_have_count(0)
    # and the rest all at once
    page.get_by_role("button", name="Accept all").click()
    expect(page.locator("tr[data-source]")).to_have_count(2)
    expect(page.locator(".status-proposed")).to_have_count(0)
    found = workbench.api("GET", f"/api/books/{book}/glossary/history?source=ボブ")
    assert [version["removed"] for version in found] == [False, True]


def test_an_entry_is_added_edited_traced_and_removed(page: Page, workbench: Workbench) -> None:
    book = workbench.add_book(*NAMES)
    page.goto(f"books/{book}/glossary")

    form = page.locator("#entry-form")
    form.get_by_label("Source, as the book writes it").fill("アリス")
    form.get_by_label("Rendering").fill("爱丽丝")
    form.get_by_label("Kind").fill("character")
    form.get_by_label("Note").fill("主角")
    form.get_by_role("button", name="Save").click()
    row = page.locator("tr[data-source=アリス]")
    expect(row).to_contain_text("爱丽丝")
    expect(row).to_contain_text("character")

    row.get_by_role("button", name="Edit").click()
    expect(form.get_by_label("Rendering")).to_have_value("爱丽丝")
    form.get_by_label("Rendering").fill("艾莉丝")
    form.get_by_role("button", name="Save").click()
    expect(page.locator("tr[data-source=アリス]")).to_contain_text("艾莉丝")

    page.locator("tr[data-source=アリス]").get_by_role("button", name="History").click()
    history = page.get_by_role("dialog")
    expect(history.locator("li")).to_have_count(2)
    expect(history.locator("li").first).to_contain_text("爱丽丝")
    screenshot(page, "glossary-history-en")
    history.get_by_role("button", name="Close").click()

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("tr[data-source=アリス]").get_by_role("button", name="Remove").click()
    expect(page.get_by_text("The glossary is empty")).to_be_visible()


def test_a_blank_rendering_is_refused_next_to_the_form(page: Page, workbench: Workbench) -> None:
    book = workbench.add_book(*NAMES)
    page.goto(f"books/{book}/glossary")
    form = page.locator("#entry-form")
    form.get_by_label("Source, as the book writes it").fill("アリス")
    form.get_by_label("Rendering").fill("   ")

    form.get_by_role("button", name="Save").click()

    expect(form.locator("[data-error]")).to_contain_text("the target is blank")


def test_a_galtransl_file_is_imported_exported_and_a_series_attached_and_detached(
    page: Page, workbench: Workbench, tmp_path: Path
) -> None:
    book = workbench.add_book(*NAMES)
    dictionary = tmp_path / "dictionary.txt"
    dictionary.write_text("アリス\t爱丽丝\t主角\nボブ\t鲍勃\n", encoding="utf-8")
    page.goto(f"books/{book}/glossary")

    page.get_by_label("Import a CSV, TSV or GalTransl dictionary (.txt)").set_input_files(
        dictionary
    )
    page.locator("#import-form").get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("#import-form [data-status]")).to_have_text(
        "2 added, 0 changed, 0 unchanged."
    )
    expect(page.locator("tr[data-source]")).to_have_count(2)

    with page.expect_download() as download:
        page.get_by_role("link", name="TSV").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.read_text(encoding="utf-8").splitlines()[1].startswith("アリス\t爱丽丝\t主角")

    page.get_by_label("Shared glossary").fill("不思議の国")
    page.get_by_role("button", name="Attach").click()
    expect(page.locator("ul.series")).to_contain_text("不思議の国")
    page.get_by_role("button", name="Detach").click()
    expect(page.locator("ul.series")).to_have_count(0)
    screenshot(page, "glossary-files-en")


def test_in_chinese_proposals_are_accepted_and_rejected_and_an_entry_added(
    chinese_page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    page = chinese_page
    book = workbench.add_book(*NAMES)
    workbench.api("PATCH", f"/api/books/{book}/settings", json={"skip_ask_user": True})
    model = workbench.add_model(f"zh-{fake_model.port}", fake_model)
    page.goto(f"books/{book}/glossary")
    expect(page.locator("html")).to_have_attribute("lang", re.compile(r"^zh"))
    page.locator("#extract-form").get_by_label("模型").select_option(model)
    page.get_by_role("button", name="提取人名和术语").click()
    expect(page.locator("[data-field=status]")).to_have_text("已完成", timeout=20_000)

    page.goto(f"books/{book}/glossary")
    expect(page.locator(".notice.proposals")).to_contain_text("有 3 条提议等你处理。")
    screenshot(page, "glossary-proposals-zh")
    page.locator("tr", has_text="アリス").get_by_role("button", name="接受").click()
    expect(page.locator("tr", has_text="アリス")).to_contain_text("已接受")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="全部拒绝").click()
    expect(page.locator("tr[data-source]")).to_have_count(1)

    form = page.locator("#entry-form")
    form.get_by_label("原文（书中的写法）").fill("森")
    form.get_by_label("译名").fill("森林")
    form.get_by_role("button", name="保存").click()
    expect(page.locator("tr[data-source=森]")).to_contain_text("森林")
    screenshot(page, "glossary-entry-zh")


def test_the_cast_and_its_address_book_are_approved_edited_and_read_in_english_and_chinese(
    page: Page, chinese_page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    # Given a volume whose cast and forms of address a model extracted, waiting for approval
    [first, _] = volumes()
    paragraphs = [p for chapter in first.chapters for p in chapter.paragraphs]
    book = workbench.add_book(*paragraphs, title="さくら荘 1", chapters=2)
    fake_model.translator = ScriptedTranslator(
        characters=CHARACTERS, forms_of_address=FORMS_OF_ADDRESS
    )
    model = workbench.add_model(f"cast-{fake_model.port}", fake_model)
    workbench.wait_for(workbench.start(book, model, kind="extraction"))

    # When the translator accepts one row in the address book, then all the rest
    page.goto(f"books/{book}/cast")
    notice = page.locator(".notice.proposals")
    expect(notice).to_contain_text("Waiting for you: 5 character(s), 4 form(s) of address.")
    senpai = page.locator(".address-form", has_text="美咲先輩 → 美咲学姐")
    senpai.get_by_role("button", name="Accept").click()
    expect(page.locator(".address-form.status-accepted")).to_have_count(1)
    page.get_by_role("button", name="Accept all").click()
    expect(page.locator(".notice.proposals")).to_have_count(0)
    # and gives 真白 a way of speaking, and says how she addresses 空太
    page.locator("tr[data-character=真白]").get_by_role("button", name="Edit").click()
    characters = page.locator("#character-form")
    characters.get_by_label("How they speak").fill("寡言，偶尔毒舌")
    characters.get_by_role("button", name="Save").click()
    # (a speech the extraction did not propose: the page has been read again once it shows)
    expect(page.locator("tr[data-character=真白]")).to_contain_text("寡言，偶尔毒舌")
    forms = page.locator("#form-form")
    forms.get_by_label("Speaker").select_option("真白")
    forms.get_by_label("Listener").select_option("空太")
    forms.get_by_label("As the book writes it").fill("空太")
    forms.get_by_label("Rendering").fill("空太")
    forms.get_by_role("button", name="Save").click()

    # Then the cast shows the variants the book writes and each character's pronoun
    sorata = page.locator("tr[data-character=空太]")
    expect(sorata).to_contain_text("空太くん ×2")
    expect(sorata.locator("td").nth(3)).to_have_text("他")
    # and the address book is a table of speakers by listeners, each row where it was seen
    row = page.locator("table.address-book tr", has=page.locator("th", has_text="真白"))
    expect(row.locator(".address-form")).to_contain_text("seen in chapters 1, 2")
    expect(page.locator(".address-form.status-accepted")).to_have_count(5)
    expect(page.locator(".address-form", has_text="千尋先生 → 千寻老师")).to_contain_text("(您)")
    page.goto(f"books/{book}/cast")
    screenshot(page, "cast-address-book-en")

    # And a Chinese reader reads the same page in Chinese
    chinese_page.goto(f"books/{book}/cast")
    expect(chinese_page.get_by_role("heading", level=1)).to_have_text("角色")
    expect(chinese_page.get_by_role("heading", name="称呼表")).to_be_visible()
    expect(chinese_page.locator(".address-form").first).to_contain_text("出现于第 1, 2 章")
    screenshot(chinese_page, "cast-address-book-zh")
