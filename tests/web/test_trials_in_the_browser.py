"""Models compared on the translator's own book, in the workbench, in English and in Chinese:
a trial started from the book's page, each model's figures in its column while they run and
once they end, a judge that rates them blind, their versions side by side, and one model's
versions taken into the book only when the translator says so."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from honyaku.testing import FakeLLMServer, Mistake, ScriptedTranslator, hanzi_translation

from .conftest import Workbench, screenshot, serious_violations

PARAGRAPHS = (
    "ある日の暮方の事である。",
    "一人の下人が雨やみを待っていた。",
    "広い門の下には誰もいない。",
)


def figure(page: Page, name: str) -> list[str]:
    """The figure called ``name`` of each model, in the order of the columns."""
    return [cell.strip() for cell in cells(page, name).all_inner_texts()]


def cells(page: Page, name: str) -> Locator:
    return page.locator(f"#figures tr:has(th:text-is('{name}')) td")


def test_two_models_are_compared_judged_blind_and_one_is_taken_into_the_book(
    page: Page, workbench: Workbench
) -> None:
    # Given a book of three chapters, a careless model and a plain one on their own servers
    book = workbench.add_book(*PARAGRAPHS, title="羅生門 trial", chapters=3)
    careless = ScriptedTranslator(translate=hanzi_translation, mistakes={Mistake.WRONG_STATUS_MOVE})
    with FakeLLMServer(translator=careless) as a, FakeLLMServer() as b:
        sloppy = workbench.add_model(f"careless-{a.port}", a)
        plain = workbench.add_model(f"plain-{b.port}", b)
        a.answering.clear()

        # When the translator tries both on the first two chapters from the book's page
        page.goto(f"books/{book}")
        page.locator("summary", has_text="Compare models").click()
        form = page.locator("#trial-form")
        form.get_by_label(sloppy).check()
        form.get_by_label(plain).check()
        form.get_by_label("Sample").fill("1-2")
        expect(form.get_by_label("Sample")).to_have_attribute(
            "placeholder", "the first few thousand characters"
        )
        screenshot(page, "trial-start-en")
        form.get_by_role("button", name="Try them").click()

        # Then the comparison shows a column a model, and says they are still translating
        expect(page).to_have_url(re.compile(r"/trials/[0-9a-f]+$"))
        expect(page.locator("h1")).to_have_text("Compare models")
        columns = page.locator("#figures thead th .model")
        expect(columns).to_have_text([sloppy, plain])
        expect(page.get_by_text("The models are still translating")).to_be_visible()
        expect(page.locator("#judge-form")).to_have_count(0)
        # (the plain model's figures filling in while the careless one is held)
        expect(cells(page, "Paragraphs done").nth(1)).to_contain_text("6/6")
        expect(cells(page, "Paragraphs done").nth(0)).to_contain_text("0/6")
        a.answering.set()

        # And once both have finished, the page shows their figures on its own
        expect(page.locator("#judge-form")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("The models are still translating")).to_be_hidden()
    assert figure(page, "Paragraphs done") == ["6/6", "6/6"]
    refused, none = figure(page, "Refused tool calls")
    assert "INVALID_TRANSITION" in refused
    assert none == "0"
    for name in ("Requests", "Tokens out", "Time"):
        assert all(re.search(r"\d", value) for value in figure(page, name)), name
    expect(cells(page, "Job").locator("a")).to_have_count(2)
    expect(cells(page, "Job").first).to_contain_text("finished")

    # And the side-by-side view shows both versions of each sample paragraph
    rows = page.locator(".trial-versions tr[data-paragraph]")
    expect(rows).to_have_count(6)
    first = rows.first
    expect(first.locator("td").nth(1)).to_have_text(hanzi_translation(PARAGRAPHS[0]))
    expect(first.locator("td").nth(2)).not_to_be_empty()
    paragraph = first.get_attribute("data-paragraph")
    expect(first.locator("a.where")).to_have_attribute(
        "href", f"/books/{book}/chapters/1?at={paragraph}"
    )

    # And the book itself is untouched
    page.goto(f"books/{book}")
    for chapter in ("1", "2", "3"):
        expect(page.locator(f"tr[data-chapter='{chapter}']")).to_contain_text("0/3")
    page.locator("summary", has_text="Compare models").click()
    expect(page.locator(".trials li")).to_contain_text(f"{sloppy} · {plain}")
    page.locator(".trials a").click()

    # When a judge on a third server rates them blind
    with FakeLLMServer() as c:
        judge = workbench.add_model(f"judge-{c.port}", c)
        page.reload()
        page.get_by_label("Judge model").select_option(judge)
        page.get_by_role("button", name="Rate them blind").click()

        # Then the judge's row fills: the careless model's Chinese scores 5, the kana kept 2
        expect(page.get_by_role("button", name="Rate them again")).to_be_visible(timeout=60_000)
    trial = workbench.api("GET", "/api/trials/" + page.url.rsplit("/", 1)[1])
    judged = workbench.api("GET", f"/api/jobs/{trial['judge_job_id']}")
    assert figure(page, "Judge’s mean score") == ["5.00", "2.00"], (trial, judged)
    assert figure(page, "Scored 2 or lower") == ["0%", "100%"]
    expect(page.locator(".trial-versions .rating-badge").first).to_have_text("score 5")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "trial-compare-en")
    assert serious_violations(page, page.url) == []

    # When the translator uses the careless model, the other as its fallback
    page.get_by_label("If it fails, fall back on the others").check()
    page.get_by_role("button", name=f"Use this model: {sloppy}").click()

    # Then its versions are the book's, and the book's model is it
    expect(page.locator(".use-choice [data-status]")).to_have_text(
        "Taken into the book: 6 paragraphs"
    )
    expect(page.locator(f"#figures th[data-model='{sloppy}'] .used-badge")).to_be_visible()
    expect(page.locator(f"#figures th[data-model='{plain}'] .used-badge")).to_be_hidden()
    page.goto(f"books/{book}/chapters/1")
    expect(page.locator("article.paragraph .translation").first).to_have_text(
        hanzi_translation(PARAGRAPHS[0])
    )
    settings = workbench.api("GET", f"/api/books/{book}")["settings"]
    assert (settings["model"], settings["fallbacks"]) == (sloppy, [plain])
    page.goto(f"books/{book}")
    expect(page.locator("tr[data-chapter='3']")).to_contain_text("0/3")
    # (and the book's next job is offered with them)
    expect(page.locator("#job-form select[name=model]")).to_have_value(sloppy)
    expect(page.locator("#job-form select[name=fallback]")).to_have_value(plain)
    page.locator("summary", has_text="Compare models").click()
    expect(page.locator(".trials li")).to_contain_text(f"{sloppy} in the book")


def test_in_chinese_the_comparison_speaks_chinese(
    chinese_page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    # Given a trial of a saved model beside the demo model, the translator's own version of
    # a paragraph to measure them by
    book = workbench.add_book(*PARAGRAPHS, title="羅生門 比较")
    model = workbench.add_model(f"plain-{fake_model.port}", fake_model)
    [paragraph, *_] = workbench.api("GET", f"/api/books/{book}/chapters/1")["paragraphs"]
    own = {"text": "某日傍晚的事。"}
    workbench.api("POST", f"/api/books/{book}/paragraphs/{paragraph['id']}/versions", json=own)
    trial = workbench.api("POST", f"/api/books/{book}/trials", json={"models": [model, "demo"]})
    for entry in trial["entries"]:
        workbench.wait_for(entry["job_id"])

    # When the translator opens it in Chinese
    chinese_page.goto(f"trials/{trial['id']}")

    # Then its headings and figures are named in Chinese, the translator's version beside them
    expect(chinese_page.locator("h1")).to_have_text("比较模型")
    expect(chinese_page.locator("#versions-title")).to_have_text("逐段对照")
    expect(chinese_page.locator("#judge-title")).to_have_text("盲评")
    expect(chinese_page.locator("#figures tbody th").first).to_have_text("任务")
    expect(chinese_page.get_by_role("button", name=f"采用这个模型：{model}")).to_be_visible()
    expect(chinese_page.locator(".trial-versions thead")).to_contain_text("你的译文")
    expect(chinese_page.locator(".trial-versions tr[data-paragraph]").first).to_contain_text(
        "某日傍晚的事。"
    )
    screenshot(chinese_page, "trial-compare-zh")
    assert serious_violations(chinese_page, chinese_page.url) == []


def test_the_api_refuses_an_untried_model_and_a_judge_while_the_models_translate(
    workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    # Given a trial whose model is still translating
    book = workbench.add_book(*PARAGRAPHS, title="羅生門 API")
    model = workbench.add_model(f"held-{fake_model.port}", fake_model)
    fake_model.answering.clear()
    started = workbench.client.post(
        f"/api/books/{book}/trials", json={"models": [model], "chapters": "1", "seed": 7}
    )
    assert started.status_code == 201, started.text
    trial = started.json()
    assert (trial["chapters"], trial["seed"]) == ([1], 7)
    [entry] = trial["entries"]
    assert entry["model"] == model
    assert entry["job_id"]

    # When a judge is asked for now, it is refused with the reason
    judged = workbench.client.post(f"/api/trials/{trial['id']}/judge", json={"model": "demo"})
    assert judged.status_code == 400
    assert judged.json()["detail"] == (
        "the trial's models are still translating: judge it once they end"
    )
    comparison = workbench.api("GET", f"/api/trials/{trial['id']}")
    assert comparison["running"] is True
    assert comparison["judge"] is None
    fake_model.answering.set()
    workbench.wait_for(entry["job_id"])

    # And a model the trial did not try cannot be taken into the book
    used = workbench.client.post(f"/api/trials/{trial['id']}/use", json={"model": "nobody"})
    assert used.status_code == 404
    assert "nobody" in used.json()["detail"]
    # Nor can a trial that is not there be read, nor one be started without a model
    assert workbench.client.get("/api/trials/ffffffff").status_code == 404
    empty = workbench.client.post(f"/api/books/{book}/trials", json={"models": []})
    assert empty.status_code == 422
    # And once it ended, its figures are the job's
    [figures] = workbench.api("GET", f"/api/trials/{trial['id']}")["results"]
    assert figures["paragraphs_done"] == figures["paragraphs"] == 3
    assert figures["status"] == "finished"
