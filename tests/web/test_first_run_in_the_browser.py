"""A translator's first run, in English and in Chinese: from an empty home, the first steps lead
to the models page, where a preset fills the form in and shows the prices the list knows, a
pasted key goes to the key store and never comes back, and the saved model is tested against
the fake server standing in for the provider; in English, on to a book imported, estimated,
translated, followed and exported as EPUB. axe-core finds nothing serious on the way."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from honyaku.testing import FakeLLMServer, pseudo_translation

from .conftest import KEY_FILE, Workbench, screenshot

KEY = "sk-test-7d1e9b3c5a2f8046e1c3b5d7f9a2c4e6"
KEY_MIDDLE = KEY[8:-4]
SERIOUS = ("critical", "serious")


@pytest.fixture(scope="module")
def provider_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(api_key=KEY, latency_s=0.02) as server:
        yield server


@pytest.fixture
def provider(provider_server: FakeLLMServer) -> FakeLLMServer:
    """The provider's server: it takes the pasted key and no other. One for the module's
    tests, as one provider stands at one address: a key saved for it stays bound to it when
    its profile goes (``domain.key_addresses``)."""
    provider_server.requests.clear()
    provider_server.headers.clear()
    return provider_server


@pytest.fixture
def empty_home(workbench: Workbench) -> Iterator[Workbench]:
    """The module's workbench with no model and no key, as it is left after the test too."""
    assert workbench.api("GET", "/api/models") == []
    assert workbench.api("GET", "/api/books") == []
    yield workbench
    for book in workbench.api("GET", "/api/books"):
        workbench.api("DELETE", f"/api/books/{book['id']}")
    for profile in workbench.api("GET", "/api/models"):
        workbench.api("DELETE", f"/api/models/{profile['name']}")
    for key in workbench.api("GET", "/api/keys"):
        workbench.api("DELETE", f"/api/keys/{key['name']}")


def serious_violations(page: Page) -> list[tuple[str, list[str]]]:
    found = Axe().run(page).response["violations"]
    return [(v["id"], [n["html"] for n in v["nodes"]][:3]) for v in found if v["impact"] in SERIOUS]


def no_key_in(page: Page, workbench: Workbench, *more_paths: str) -> None:
    """The key is nowhere but in the key store: not in the page, nor in any API answer."""
    answers = [page.content()] + [
        workbench.client.get(path).text
        for path in ("/", "/models", "/api/models", "/api/keys", "/jobs", *more_paths)
    ]
    assert not [answer for answer in answers if KEY_MIDDLE in answer]
    kept = json.loads((workbench.home / KEY_FILE).read_text())
    assert kept == {"DEEPSEEK_API_KEY": KEY}


def test_a_first_run_adds_a_model_from_a_preset_with_a_pasted_key_and_exports_a_book(
    page: Page, empty_home: Workbench, provider: FakeLLMServer, tmp_path: Path
) -> None:
    # Given an empty home, whose first steps lead to the models page
    page.goto("")
    steps = page.locator(".first-steps")
    expect(steps.get_by_role("heading")).to_have_text("First steps")
    expect(steps.get_by_role("link")).to_have_text(
        ["Add a model", "Import a book", "Estimate", "Start", "Follow", "Export"]
    )
    assert serious_violations(page) == []
    screenshot(page, "first-run-home-en")
    steps.get_by_role("link", name="Add a model").click()
    page.wait_for_url(re.compile(r"/models"))
    page.wait_for_load_state()  # the page's script listens to the form from then on

    # When DeepSeek is chosen among the presets
    form = page.locator("#model-form")
    form.get_by_label("Start from").select_option(label="DeepSeek")

    # Then the form is filled in for it, with the prices the list knows and their source
    expect(form.get_by_label("Name", exact=True)).to_have_value("deepseek")
    expect(form.get_by_label("Model, as its server knows it")).to_have_value("deepseek-chat")
    expect(form.get_by_label("Base URL")).to_have_value("https://api.deepseek.com")
    expect(form.get_by_label("Key name")).to_have_value("DEEPSEEK_API_KEY")
    expect(form.locator("[data-key-status]")).to_have_text(
        "No key is kept as DEEPSEEK_API_KEY on this computer yet."
    )
    listed = form.locator("[data-listed-prices]")
    expect(listed).to_contain_text("Known prices, USD per million tokens: in 0.27")
    expect(listed).to_contain_text("genai-prices")
    expect(form.get_by_label("Input", exact=True)).to_have_attribute("placeholder", "0.27")
    assert serious_violations(page) == []
    screenshot(page, "first-run-preset-en")

    # When the key is pasted and the model saved, served by the fake provider here
    form.get_by_label("Model, as its server knows it").fill("fake-translator")
    form.get_by_label("Base URL").fill(provider.url)
    form.get_by_label("Key (kept in this computer's key store").fill(KEY)
    form.get_by_role("button", name="Save").click()

    # Then the page says only that the key is kept, and its last characters
    row = page.locator("tr[data-name='deepseek']")
    expect(row).to_contain_text("key DEEPSEEK_API_KEY, kept (…c4e6)")
    expect(form.get_by_label("Key (kept in this computer's key store")).to_have_value("")

    # And the test says the server answers and takes the key
    row.get_by_role("button", name="Test").click()
    result = row.locator(".check-result")
    expect(result).to_contain_text("The server answers.")
    expect(result).to_contain_text("The key DEEPSEEK_API_KEY is accepted.")
    expect(result).to_contain_text("The model calls tools natively.")
    assert len(provider.requests) == 1
    screenshot(page, "first-run-model-tested-en")
    no_key_in(page, empty_home)

    # And the home checks the first step off
    page.goto("")
    expect(page.locator(".first-steps li").first).to_contain_text("(done)")

    # And the next steps lead on: a book imported, estimated, started, followed and exported
    book_file = tmp_path / "猫.txt"
    book_file.write_text("第一章\n\n吾輩は猫である。\n\n名前はまだ無い。\n", encoding="utf-8")
    page.get_by_label("File (TXT, Aozora text or XHTML, EPUB)").set_input_files(book_file)
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("猫")
    page.get_by_label("Model").select_option("deepseek")
    expect(page.locator("#job-estimate")).to_contain_text("Chunks 1 · paragraphs 2")
    page.get_by_role("button", name="Start").click()
    expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f]{8}$"))
    job = page.url.rsplit("/", 1)[1]
    expect(page.locator("[data-field=status]")).to_have_text("finished", timeout=30_000)
    book = empty_home.api("GET", f"/api/jobs/{job}")["book_id"]
    page.goto(f"books/{book}")
    with page.expect_download() as download:
        page.locator("#exports").get_by_role("link", name="EPUB", exact=True).click()
    epub = Path(download.value.path()).read_bytes()
    with zipfile.ZipFile(io.BytesIO(epub)) as archive:
        text = "".join(
            archive.read(name).decode() for name in archive.namelist() if name.endswith("html")
        )
    assert pseudo_translation("吾輩は猫である。") in text
    assert KEY_MIDDLE.encode() not in epub
    no_key_in(page, empty_home, f"/api/jobs/{job}", f"/api/jobs/{job}/actions", f"/jobs/{job}")


def test_in_chinese_a_first_run_adds_a_model_from_a_preset_with_a_pasted_key(
    chinese_page: Page, empty_home: Workbench, provider: FakeLLMServer
) -> None:
    page = chinese_page
    page.goto("")
    steps = page.locator(".first-steps")
    expect(steps.get_by_role("heading")).to_have_text("入门步骤")
    expect(steps.get_by_role("link")).to_have_text(
        ["添加模型", "导入一本书", "估算", "开始", "跟进", "导出"]
    )
    assert serious_violations(page) == []
    screenshot(page, "first-run-home-zh")
    steps.get_by_role("link", name="添加模型").click()
    page.wait_for_url(re.compile(r"/models"))
    page.wait_for_load_state()  # the page's script listens to the form from then on

    form = page.locator("#model-form")
    form.get_by_label("从预设开始").select_option(label="DeepSeek")
    expect(form.get_by_label("密钥名称")).to_have_value("DEEPSEEK_API_KEY")
    expect(form.locator("[data-listed-prices]")).to_contain_text("已知价格")
    expect(form.locator("[data-key-status]")).to_have_text(
        "本机尚未保存名为 DEEPSEEK_API_KEY 的密钥。"
    )
    form.get_by_label("模型（服务器上的名称）").fill("fake-translator")
    form.get_by_label("基础 URL").fill(provider.url)
    form.get_by_label("密钥（保存在本机的密钥库中").fill(KEY)
    form.get_by_role("button", name="保存", exact=True).click()

    row = page.locator("tr[data-name='deepseek']")
    expect(row).to_contain_text("密钥 DEEPSEEK_API_KEY，已保存（…c4e6）")
    row.get_by_role("button", name="测试").click()
    expect(row.locator(".check-result")).to_contain_text("服务器有应答。")
    expect(row.locator(".check-result")).to_contain_text("密钥 DEEPSEEK_API_KEY 有效。")
    assert serious_violations(page) == []
    screenshot(page, "first-run-model-tested-zh")
    no_key_in(page, empty_home)
