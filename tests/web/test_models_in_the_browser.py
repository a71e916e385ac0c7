"""Model profiles in the browser: added with prices and limits, tested, edited, removed."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from honyaku.testing import FakeLLMServer, ToolSupport

from .conftest import Workbench, screenshot


def test_a_model_is_added_with_prices_and_limits_tested_edited_and_removed(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    name = f"fake-{fake_model.port}"
    workbench.add_model("demo-fallback", fake_model)
    page.goto("models")
    form = page.locator("#model-form")

    form.get_by_label("Name", exact=True).fill(name)
    form.get_by_label("Model, as its server knows it").fill("fake-translator")
    form.get_by_label("Base URL").fill(fake_model.url)
    form.get_by_label("Input", exact=True).fill("0.27")
    form.get_by_label("Output").fill("1.1")
    form.get_by_label("Service tier").fill("flex")
    form.get_by_label("Requests per minute").fill("60")
    form.get_by_role("button", name="Save").click()

    row = page.locator(f"tr[data-name='{name}']")
    expect(row).to_contain_text("in 0.27 · out 1.1")
    expect(row).to_contain_text("tier flex")
    expect(row).to_contain_text("60 requests")

    row.get_by_role("button", name="Test").click()
    result = row.locator(".check-result")
    expect(result).to_contain_text("The server answers.")
    expect(result).to_contain_text("The model calls tools natively.")
    assert len(fake_model.requests) == 1
    screenshot(page, "models-tested-en")

    row.get_by_role("button", name="Edit").click()
    expect(form.get_by_label("Name", exact=True)).to_have_value(name)
    expect(form.get_by_label("Service tier")).to_have_value("flex")
    form.get_by_label("Output").fill("2.2")
    form.get_by_label("Fallback models").fill("demo-fallback")
    form.get_by_role("button", name="Save").click()
    expect(page.locator(f"tr[data-name='{name}']")).to_contain_text("in 0.27 · out 2.2")
    expect(page.locator(f"tr[data-name='{name}']")).to_contain_text("if it fails: demo-fallback")
    [saved] = [p for p in workbench.api("GET", "/api/models") if p["name"] == name]
    assert (saved["service_tier"], saved["requests_per_minute"]) == ("flex", 60)
    assert saved["fallbacks"] == ["demo-fallback"]

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(f"tr[data-name='{name}']").get_by_role("button", name="Remove").click()
    expect(page.locator(f"tr[data-name='{name}']")).to_have_count(0)


def test_a_model_without_native_tools_is_told_apart_before_it_is_saved(
    page: Page, workbench: Workbench
) -> None:
    with FakeLLMServer(tool_support=ToolSupport.REJECTED) as server:
        page.goto("models")
        form = page.locator("#model-form")
        form.get_by_label("Name", exact=True).fill("no-tools")
        form.get_by_label("Model, as its server knows it").fill("fake-translator")
        form.get_by_label("Base URL").fill(server.url)

        form.get_by_role("button", name="Test before saving").click()

        expect(form.locator(".check-result")).to_contain_text(
            "honyaku will speak its XML tool protocol with it"
        )
    assert not [p for p in workbench.api("GET", "/api/models") if p["name"] == "no-tools"]


def test_a_key_variable_no_terminal_named_is_said_in_plain_words_and_not_read(
    page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    page.goto("models")
    form = page.locator("#model-form")
    form.get_by_label("Name", exact=True).fill("keyless")
    form.get_by_label("Model, as its server knows it").fill("fake-translator")
    form.get_by_label("Base URL").fill(fake_model.url)
    form.get_by_label("Environment variable holding the key").fill("HONYAKU_TEST_UNSET_KEY")

    form.get_by_role("button", name="Test before saving").click()

    result = form.locator(".check-result")
    expect(result).to_contain_text("The key is refused or missing.")
    expect(result).to_contain_text("read only for the servers a terminal named it for")
    expect(result).to_contain_text("--api-key-env HONYAKU_TEST_UNSET_KEY")
    assert fake_model.requests == []


def test_half_a_price_is_refused_next_to_the_form(page: Page, workbench: Workbench) -> None:
    page.goto("models")
    form = page.locator("#model-form")
    form.get_by_label("Name", exact=True).fill("half-priced")
    form.get_by_label("Model, as its server knows it").fill("demo")
    form.get_by_label("Input", exact=True).fill("1")

    form.get_by_role("button", name="Save").click()

    expect(form.locator("[data-error]")).to_contain_text(
        "give the input and the output price together"
    )


def test_in_chinese_a_model_is_added_and_tested_in_plain_chinese(
    chinese_page: Page, workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    page = chinese_page
    name = f"zh-{fake_model.port}"
    page.goto("models")
    form = page.locator("#model-form")
    expect(form.locator("select[name=provider] option[value=gemini]")).to_have_text(
        "gemini: Google 自家的 Gemini API"
    )
    form.get_by_label("名称", exact=True).fill(name)
    form.get_by_label("模型（服务器上的名称）").fill("fake-translator")
    form.get_by_label("基础 URL").fill(fake_model.url)
    form.get_by_label("输入", exact=True).fill("1")
    form.get_by_label("输出", exact=True).fill("2")
    form.get_by_role("button", name="保存", exact=True).click()

    row = page.locator(f"tr[data-name='{name}']")
    expect(row).to_contain_text("输入 1 · 输出 2")
    row.get_by_role("button", name="测试").click()
    expect(row.locator(".check-result")).to_contain_text("服务器有应答。")
    expect(row.locator(".check-result")).to_contain_text("模型支持原生工具调用。")
    screenshot(page, "models-tested-zh")
