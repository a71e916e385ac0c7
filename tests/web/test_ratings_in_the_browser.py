"""What a rating job scored, in the workbench, in English and in Chinese: the low ones listed
first and filtered by score and problem, the scores beside each paragraph on its chapter's
page, and the chosen ones retranslated, after which a second rating finds nothing low."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from honyaku.testing import FakeLLMServer, ScriptedTranslator, hanzi_translation

from .conftest import Workbench, screenshot, serious_violations

PARAGRAPHS = (
    "ある日の暮方の事である。",
    "一人の下人が雨やみを待っていた。",
    "広い門の下には誰もいない。",
)


def rated_by_the_demo_judge(workbench: Workbench, title: str) -> str:
    """A book the demo model translated (its pseudo translations keep the kana) and rated:
    every paragraph scores 2, left untranslated."""
    book = workbench.add_book(*PARAGRAPHS, title=title)
    workbench.wait_for(workbench.start(book, "demo"))
    rating = workbench.wait_for(workbench.start(book, "demo", kind="rating"))
    assert (rating["status"], rating["paragraphs_done"]) == ("finished", 3)
    return book


def test_low_scores_are_listed_shown_beside_their_paragraphs_and_retranslated(
    page: Page, workbench: Workbench
) -> None:
    # Given a book whose translation a judge scored 2 throughout
    book = rated_by_the_demo_judge(workbench, "羅生門 rated")

    # Then the ratings page lists each paragraph with its score and problem
    page.goto(f"books/{book}")
    page.get_by_role("link", name="Ratings").click()
    items = page.locator(".rated-list > li")
    expect(items).to_have_count(3)
    expect(items.first).to_contain_text("score 2")
    expect(items.first).to_contain_text("left untranslated")
    expect(page.get_by_label("Problem")).to_contain_text("left untranslated (3)")
    page.get_by_label("Score").select_option("3")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"below=3"))
    expect(items).to_have_count(3)
    screenshot(page, "ratings-en")
    assert serious_violations(page, page.url) == []

    # And the chapter's page shows the score beside each paragraph
    page.goto(f"books/{book}/chapters/1")
    expect(page.locator("article.paragraph .rating")).to_have_count(3)
    expect(page.locator("article.paragraph .rating").first).to_contain_text("仍有假名未译")
    screenshot(page, "ratings-chapter-en")

    # When the translator retranslates them with a better model and rates again
    with FakeLLMServer(translator=ScriptedTranslator(translate=hanzi_translation)) as server:
        model = workbench.add_model(f"better-{server.port}", server)
        page.goto(f"books/{book}/ratings?below=3")
        form = page.locator("#retranslate-form")
        form.locator("select[name=model]").select_option(model)
        form.get_by_role("button", name="Retranslate the chosen paragraphs").click()
        expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f]+$"))
        workbench.wait_for(page.url.rsplit("/", 1)[1])
    workbench.wait_for(workbench.start(book, "demo", kind="rating"))

    # Then nothing is rated below 3 any more
    page.goto(f"books/{book}/ratings?below=3")
    expect(page.locator(".empty-state")).to_contain_text("No rated paragraph with this filter.")
    assert workbench.api("GET", f"/api/books/{book}/ratings", params={"below": 3}) == []
    assert {r["score"] for r in workbench.api("GET", f"/api/books/{book}/ratings")} == {5}


def test_a_rating_job_is_started_from_the_books_page(page: Page, workbench: Workbench) -> None:
    # Given a book the demo model translated
    book = workbench.add_book(*PARAGRAPHS, title="羅生門 to rate")
    workbench.wait_for(workbench.start(book, "demo"))

    # When the translator starts a rating by the demo judge from the book's page
    page.goto(f"books/{book}")
    form = page.get_by_role("form", name="Start a job")
    form.locator("select[name=kind]").select_option(label="Rating by a judge")
    form.locator("select[name=model]").select_option("demo")
    form.get_by_role("button", name="Start").click()

    # Then it runs as a rating job, and the ratings page lists its scores
    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=20_000)
    page.goto(f"books/{book}/ratings")
    expect(page.locator(".rated-list > li")).to_have_count(3)


def test_the_chosen_paragraphs_are_polished_with_the_judges_comments(
    page: Page, workbench: Workbench
) -> None:
    # Given a book a judge scored 2 throughout, with a comment on each
    book = rated_by_the_demo_judge(workbench, "羅生門 polished")

    # When the translator polishes the low ones from the ratings page
    with FakeLLMServer() as server:
        model = workbench.add_model(f"polisher-{server.port}", server)
        page.goto(f"books/{book}/ratings?below=3")
        form = page.locator("#retranslate-form")
        form.locator("select[name=model]").select_option(model)
        form.get_by_role("button", name="Polish them with the judge’s comments").click()
        expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f]+$"))
        job = workbench.wait_for(page.url.rsplit("/", 1)[1])
        task = server.requests[0]["messages"][1]["content"]

    # Then a polish ran over them, and the model read the judge's comment under each
    assert (job["kind"], job["status"], job["paragraphs_done"]) == ("polish", "finished", 3)
    assert task.count("! judge: 2/5 untranslated: 仍有假名未译") == 3


def test_in_chinese_the_scores_and_problems_are_in_chinese(
    chinese_page: Page, workbench: Workbench
) -> None:
    book = rated_by_the_demo_judge(workbench, "羅生門 评分")

    chinese_page.goto(f"books/{book}/ratings")

    expect(chinese_page.locator("h1")).to_have_text("评分")
    expect(chinese_page.locator(".rated-list > li").first).to_contain_text("2 分")
    expect(chinese_page.locator(".rated-list > li").first).to_contain_text("未翻译")
    screenshot(chinese_page, "ratings-zh")
    assert serious_violations(chinese_page, chinese_page.url) == []
