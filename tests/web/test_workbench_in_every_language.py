"""The workbench in the translator's language, clicked through in Chromium: the whole path in
Chinese, every page in Chinese and English (checked by axe-core and photographed to
build/test-output/web/), a chapter worked with the keyboard, a long chapter a page at a
time, the chat's Markdown and its retry, a job stopped and settled."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from honyaku.formats import read_book
from honyaku.testing import FakeLLMServer, Mistake, Reply, ScriptedAssistant, ScriptedTranslator

from ..support.marked_epub import PAGE, write_marked_epub
from .conftest import Workbench, browse, screenshot

SAMPLE = Path(__file__).parents[2] / "src/honyaku/samples/rashomon.html"
PARAGRAPHS = ("ある日の暮方の事である。", "一人の下人が、羅生門の下で雨やみを待っていた。")
SERIOUS = ("critical", "serious")
LANGUAGES = {"zh": "zh-CN", "en": "en-US"}
HTML_LANG = {"zh": "zh-CN", "en": "en"}

_axe = Axe()


def in_language(browser: Browser, workbench: Workbench, language: str) -> BrowserContext:
    """A browser whose person reads ``language`` first, as its Accept-Language says."""
    return browse(browser, workbench, LANGUAGES[language])


@pytest.fixture
def chinese(browser: Browser, workbench: Workbench) -> Iterator[Page]:
    context = in_language(browser, workbench, "zh")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], errors


def accessible(page: Page) -> None:
    """No critical or serious axe-core violation on the page as it stands."""
    found = _axe.run(page).response["violations"]
    serious = [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in SERIOUS
    ]
    assert serious == [], f"{page.url}: {serious}"


def test_a_translator_goes_from_import_to_export_in_chinese_without_a_terminal(
    chinese: Page, workbench: Workbench, tmp_path: Path
) -> None:
    page = chinese
    page.goto("")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    page.get_by_label("文件（TXT、青空文库文本或 XHTML、EPUB）").set_input_files(SAMPLE)
    page.get_by_role("button", name="导入", exact=True).click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("羅生門")
    expect(page.get_by_role("heading", level=1).locator("[lang=ja]").first).to_have_text("羅生門")
    page.get_by_label("模型").select_option("demo")
    page.get_by_role("button", name="开始").click()
    expect(page.locator("[data-field=status]")).to_have_text("已完成", timeout=30_000)
    expect(page.get_by_role("button", name="停止")).to_be_hidden()
    screenshot(page, "path-zh-job")

    page.locator(".crumbs a").click()
    page.locator("table.chapters a").first.click()
    first = page.locator(".paragraph[data-paragraph]").first
    expect(first.locator(".source")).to_have_attribute("lang", "ja")
    expect(first.locator(".translation")).to_have_attribute("lang", "zh-CN")
    expect(first.locator(".translation")).to_contain_text("〈译〉")
    page.keyboard.press("j")
    page.keyboard.press("e")
    page.keyboard.press("Control+a")
    page.keyboard.type("某日傍晚的事。")
    page.keyboard.press("Control+Enter")
    expect(first.locator(".translation")).to_have_text("某日傍晚的事。")
    expect(first.locator(".saved")).to_have_text("已保存。")
    screenshot(page, "path-zh-chapter")

    page.locator(".crumbs a").first.click()
    with page.expect_download() as download:
        page.get_by_role("link", name="EPUB", exact=True).click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert zipfile.is_zipfile(saved)
    translated = [p for c in read_book(saved).chapters for p in c.paragraphs if p]
    assert "某日傍晚的事。" in translated

    # A page with emphasis, inline code, a link and a note reference: the chapter page draws
    # them with the workbench's own elements, and the EPUB exported keeps the book's own.
    upload = {"file": ("marked.epub", write_marked_epub(tmp_path / "marked.epub").read_bytes())}
    marked = workbench.api("POST", "/api/books", files=upload, data={"again": "true"})["id"]
    workbench.wait_for(workbench.start(marked, "demo"))
    page.goto(f"books/{marked}/chapters/1")
    translation = page.locator(".paragraph", has_text="lb config").locator(".translation")
    expect(translation.locator("code")).to_have_text("lb config")
    expect(translation.locator("em")).to_have_text("root")
    expect(translation.locator("strong")).to_have_text("build")
    expect(translation.locator(".mark-link")).to_have_attribute(
        "title", "https://live-team.pages.debian.net/live-manual/"
    )
    expect(translation.locator("sup.mark-reference")).to_have_text("1")
    screenshot(page, "path-zh-markup-chapter")
    exported = tmp_path / "marked-zh.epub"
    exported.write_bytes(workbench.client.get(f"/api/books/{marked}/export").content)
    with zipfile.ZipFile(exported) as archive:
        archive.extractall(tmp_path / "marked-zh")
    page.goto((tmp_path / "marked-zh" / PAGE).as_uri())
    run = page.locator("p", has_text="lb config").last
    expect(run).to_have_attribute("lang", "zh-CN")
    expect(run.locator("code")).to_have_text("lb config")
    expect(run.locator('a[href="#note1"]')).to_have_text("1")
    screenshot(page, "path-zh-markup-epub")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_page_is_in_the_persons_language_accessible_and_photographed(
    browser: Browser, workbench: Workbench, language: str
) -> None:
    book = workbench.add_book(*PARAGRAPHS, title="羅生門（頁）", chapters=2)
    job = workbench.wait_for(workbench.start(book, "demo"))["id"]
    context = in_language(browser, workbench, language)
    page = context.new_page()
    pages = {
        "library": "",
        "book": f"books/{book}",
        "chapter": f"books/{book}/chapters/1",
        "jobs": "jobs",
        "job": f"jobs/{job}",
        "chat": "chat",
        "models": "models",
        "glossary": f"books/{book}/glossary",
        "cast": f"books/{book}/cast",
        "quality": f"books/{book}/quality",
        "not-found": "books/ffffffff",
    }
    try:
        for name, path in pages.items():
            page.goto(path)
            expect(page.locator("html")).to_have_attribute("lang", HTML_LANG[language])
            page.wait_for_load_state("networkidle")
            accessible(page)
            screenshot(page, f"{name}-{language}")
        page.goto(f"books/{book}")
        page.get_by_role("button", name=re.compile("翻译设置|Translation settings")).click()
        accessible(page)
        screenshot(page, f"book-settings-{language}")
    finally:
        context.close()


def test_the_language_is_switched_on_any_page_and_remembered(page: Page, workbench: Workbench):
    book = workbench.add_book(*PARAGRAPHS, title="言語の本")
    page.goto(f"books/{book}")

    page.get_by_role("navigation", name="Language").get_by_role("link", name="日本語").click()

    expect(page).to_have_url(re.compile(rf"/books/{book}$"))
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.get_by_role("button", name="翻訳の設定")).to_be_visible()
    page.goto("jobs")
    expect(page.get_by_role("heading", level=1)).to_have_text("ジョブ")
    page.get_by_role("navigation", name="言語").get_by_role("link", name="English").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Jobs")


def test_a_version_on_two_lines_is_refused_beside_its_paragraph_and_two_versions_compared(
    chinese: Page, workbench: Workbench
) -> None:
    book = workbench.add_book(*PARAGRAPHS, title="版の本")
    workbench.wait_for(workbench.start(book, "demo"))
    page = chinese
    page.goto(f"books/{book}/chapters/1")
    second = page.locator(".paragraph[data-paragraph]").nth(1)
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    textarea = second.locator("textarea")
    expect(textarea).to_be_focused()

    textarea.fill("一个仆人\n在罗生门下避雨。")
    page.keyboard.press("Control+Enter")
    expect(second.locator(".paragraph-error")).to_contain_text("请删除换行")
    screenshot(page, "chapter-refused-zh")

    textarea.fill("一个仆人在罗生门下避雨。")
    page.keyboard.press("Control+Enter")
    expect(second.locator(".paragraph-error")).to_be_hidden()
    expect(second.locator(".version")).to_have_count(2)
    second.get_by_role("button", name="显示差异").click()
    expect(second.locator(".diff ins").first).to_be_visible()
    expect(second.locator(".diff del").first).to_be_visible()
    expect(second.locator(".diff")).to_contain_text("避雨")
    page.keyboard.press("Escape")
    expect(second).to_be_focused()
    screenshot(page, "chapter-diff-zh")


def test_a_long_chapter_opens_a_page_at_a_time_and_a_paragraph_is_found_on_its_page(
    page: Page, workbench: Workbench
) -> None:
    lines = [f"第{n}段の文。" for n in range(1, 451)]
    text = "\n\n".join(lines).encode()
    files = {"file": ("長い章.txt", text)}
    book = workbench.api("POST", "/api/books", files=files, data={"again": "true"})["id"]
    later = workbench.api("GET", f"/api/books/{book}/chapters/1?start=420&limit=1")["paragraphs"][0]

    page.goto(f"books/{book}/chapters/1")
    expect(page.locator(".paragraph[data-paragraph]")).to_have_count(100)  # and 100 blank lines
    expect(page.locator(".pager").first).to_contain_text("paragraphs 1–200 of 899")
    page.keyboard.press("]")
    expect(page).to_have_url(re.compile(r"start=200"))
    page.goto(f"books/{book}/chapters/1?at={later['id']}")

    expect(page).to_have_url(re.compile(rf"start=400#p-{later['id']}$"))
    expect(page.locator(f"#p-{later['id']}")).to_be_focused()
    expect(page.locator(f"#p-{later['id']} .source")).to_contain_text(later["text"])


@pytest.fixture
def markdown_model() -> Iterator[FakeLLMServer]:
    script = {
        "format": [
            Reply(
                "Here is **bold** and a list:\n\n- one\n- two\n\n"
                "<img src=x onerror=alert(1)> [x](javascript:alert(1))"
            )
        ]
    }
    with FakeLLMServer(ScriptedTranslator(assistant=ScriptedAssistant(script))) as server:
        yield server


def test_the_assistants_markdown_is_shown_formatted_and_its_html_never_runs(
    page: Page, workbench: Workbench, markdown_model: FakeLLMServer
) -> None:
    alerts: list[str] = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    model = workbench.add_model(f"md-{markdown_model.port}", markdown_model)
    page.goto("chat")
    expect(page.get_by_role("heading", name="Assistant")).to_have_count(1)
    panel = page.locator("[data-chat]")
    panel.get_by_label("Assistant’s engine").select_option(model)
    panel.get_by_role("textbox").fill(
        "Show me some format, " + "and a title longer than any line " * 4
    )
    panel.get_by_role("button", name="Send").click()

    reply = panel.locator(".reply .markdown")
    expect(reply.locator("strong")).to_have_text("bold")
    expect(reply.locator("li")).to_have_count(2)
    expect(reply).to_contain_text("<img src=x onerror=alert(1)>")
    assert reply.locator("img").count() == 0
    assert reply.locator("a[href^=javascript]").count() == 0
    expect(page.locator(".chat-working")).to_be_hidden()
    assert alerts == []
    screenshot(page, "chat-markdown-en")


def test_a_message_retried_after_a_failure_is_shown_and_stored_once(
    page: Page, workbench: Workbench, markdown_model: FakeLLMServer
) -> None:
    with FakeLLMServer() as gone:
        dead = workbench.add_model(f"gone-{gone.port}", gone)
    alive = workbench.add_model(f"alive-{markdown_model.port}", markdown_model)
    page.goto("chat")
    panel = page.locator("[data-chat]")
    panel.get_by_label("Assistant’s engine").select_option(dead)
    panel.get_by_role("textbox").fill("Show me some format")
    panel.get_by_role("button", name="Send").click()
    expect(panel.locator(".chat-error")).to_be_visible()

    panel.get_by_label("Assistant’s engine").select_option(alive)
    panel.locator(".chat-error").get_by_role("button", name="Retry").click()

    expect(panel.locator(".reply .markdown strong")).to_have_text("bold")
    expect(panel.locator(".said")).to_have_count(1)
    expect(panel.locator(".reply")).to_have_count(1)
    [session] = workbench.api("GET", "/api/ai/chat/sessions")[-1:]
    entries = workbench.api("GET", f"/api/ai/chat/sessions/{session['id']}")["entries"]
    assert [e["kind"] for e in entries].count("user") == 1


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "zh",
            {"Stop": "停止", "stopped": "已停止", "as asked": "已按你的要求停止", "Resume": "继续"},
        ),
        (
            "en",
            {
                "Stop": "Stop",
                "stopped": "stopped",
                "as asked": "Stopped as you asked",
                "Resume": "Resume",
            },
        ),
    ],
)
def test_a_stop_asked_for_is_shown_as_a_stop_and_the_job_page_settles_at_once(
    browser: Browser, workbench: Workbench, language: str, words: dict[str, str]
) -> None:
    book = workbench.add_book(*PARAGRAPHS, chapters=6)
    workbench.api("PATCH", f"/api/books/{book}/settings", json={"chunk_chars": 200})
    context = in_language(browser, workbench, language)
    page = context.new_page()
    try:
        with FakeLLMServer(latency_s=0.4) as slow:
            slow.answering.clear()
            job = workbench.start(book, workbench.add_model(f"stop-{language}-{slow.port}", slow))
            page.goto(f"jobs/{job}")
            expect(page.locator(".empty-log")).to_be_visible()
            page.get_by_role("button", name=words["Stop"], exact=True).click()

            expect(page.locator("[data-field=status]")).to_have_text(words["stopped"])
            expect(page.locator("[data-field=stopped]")).to_contain_text(words["as asked"])
            expect(page.locator("[data-field=error]")).to_be_hidden()
            stop = page.get_by_role("button", name=words["Stop"], exact=True)
            expect(stop).to_be_hidden(timeout=3000)
            expect(page.get_by_role("button", name=words["Resume"])).to_be_visible()
            screenshot(page, f"job-stopped-{language}")

            slow.answering.set()
            page.get_by_role("button", name=words["Resume"]).click()
            workbench.wait_for(job, "finished")
    finally:
        context.close()


@pytest.mark.parametrize(
    ("language", "summary", "part"),
    [
        ("zh", "部分文本未能完成", "第 1 章第 3 部分：模型没能走完工作流程"),
        ("en", "Some parts of the text failed", "Chapter 1, part 3: the model could not finish"),
    ],
)
def test_a_failed_job_is_told_part_by_part_in_the_persons_words(
    browser: Browser, workbench: Workbench, language: str, summary: str, part: str
) -> None:
    book = workbench.add_book(*PARAGRAPHS)
    with FakeLLMServer(translator=ScriptedTranslator(mistakes={Mistake.NEVER_FINISH})) as idle:
        job = workbench.start(book, workbench.add_model(f"idle-{language}-{idle.port}", idle))
        assert workbench.wait_for(job)["status"] == "failed"
    context = in_language(browser, workbench, language)
    page = context.new_page()
    try:
        page.goto(f"jobs/{job}")

        # The title and the two paragraphs, each a part the rounds pinned down, each listed
        expect(page.locator("[data-field=error]")).to_contain_text(summary)
        expect(page.locator("[data-field=failures]")).to_have_text("3")
        expect(page.locator("[data-field=failure-list] li")).to_have_count(3)
        expect(page.locator("[data-field=failure-list] li").first).to_contain_text(part)
        expect(page.locator("section.job")).not_to_contain_text("chunk")
        screenshot(page, f"job-failed-{language}")
    finally:
        context.close()


def test_the_same_book_imported_twice_is_noticed_and_kept_twice_only_when_asked(
    page: Page, workbench: Workbench, tmp_path: Path
) -> None:
    file = tmp_path / "二度の本.txt"
    file.write_text("第1章\n\n二度読む。\n", encoding="utf-8")
    page.goto("")
    form = page.locator("#import-form")
    form.get_by_label("File (TXT, Aozora text or XHTML, EPUB)").set_input_files(file)
    form.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("二度の本")

    page.goto("")
    form.get_by_label("File (TXT, Aozora text or XHTML, EPUB)").set_input_files(file)
    form.get_by_role("button", name="Import", exact=True).click()
    expect(form.locator(".form-error")).to_contain_text("«二度の本» is already in the library")
    form.get_by_role("button", name="Import it again, as a second copy").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("二度の本")
    titles = [b["title"] for b in workbench.api("GET", "/api/books")]
    assert titles.count("二度の本") == 2


def test_a_file_that_cannot_be_read_is_named_in_its_error_beside_the_form(
    page: Page, workbench: Workbench, tmp_path: Path
) -> None:
    broken = tmp_path / "壊れた.epub"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    page.goto("")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    form = page.locator("#import-form")
    form.get_by_label("File (TXT, Aozora text or XHTML, EPUB)").set_input_files(broken)
    form.get_by_role("button", name="Import", exact=True).click()

    error = form.locator(".form-error")
    expect(error).to_contain_text("壊れた.epub")
    expect(error).to_be_in_viewport()
    expect(error).not_to_contain_text("book:")


def test_approvals_are_asked_first_or_always_allowed_never_both_and_saving_says_so(
    page: Page, workbench: Workbench
) -> None:
    book = workbench.add_book(*PARAGRAPHS, title="承認の本")
    page.goto(f"books/{book}")
    page.get_by_role("button", name="Translation settings").click()
    dialog = page.locator("#settings-dialog")
    dialog.get_by_role("tab", name="Approvals").click()
    expect(dialog).to_contain_text("writes translations of paragraphs")

    dialog.get_by_label("Ask first: update_chapter_title").check()
    dialog.get_by_label("Always allow: update_chapter_title").check()
    expect(dialog.get_by_label("Ask first: update_chapter_title")).not_to_be_checked()
    dialog.get_by_role("button", name="Save").click()

    expect(dialog.get_by_role("status")).to_have_text("Saved.")
    settings = workbench.api("GET", f"/api/books/{book}")["settings"]
    assert (settings["approve_tools"], settings["always_allow"]) == ([], ["update_chapter_title"])
