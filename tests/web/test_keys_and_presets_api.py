"""Keys typed into the workbench go to the key store and never come back: listed by their last
characters, removed, refused where the workbench may not take them; a profile names its key and
reaches its server with it; presets and the prices the list knows are offered; a fresh home
shows the first steps. Against the workbench served in this process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from honyaku.application import Honyaku
from honyaku.testing import FakeLLMServer
from honyaku.web import Workbench

from .conftest import KEY_FILE, serve, served_at, served_here, stop

KEY = "sk-test-4f9c2a7e1b6d8035c7e9a1f2b4d6e8a0"
KEY_MIDDLE = KEY[8:-4]
"""What of the key no answer may hold even in part: all but its prefix and its last four."""


@pytest.fixture
def local(honyaku: Honyaku) -> Iterator[tuple[str, Workbench]]:
    with served_here(honyaku) as served:
        yield served


def without_key(*answers: httpx2.Response) -> None:
    for answer in answers:
        assert KEY_MIDDLE not in answer.text, f"the key leaked in {answer.request.url}"


def test_a_key_typed_in_is_kept_listed_by_its_tail_and_removed(local, key_store: Path) -> None:
    url, _ = local

    # When a key is set through the API
    kept = httpx2.put(f"{url}/api/keys/DEEPSEEK_API_KEY", json={"key": f"  {KEY}\n"})

    # Then it is in the key file, and the answer says where and its last four characters only
    assert kept.status_code == 200, kept.text
    assert kept.json() == {"name": "DEEPSEEK_API_KEY", "where": str(key_store), "tail": "…e8a0"}
    assert json.loads(key_store.read_text()) == {"DEEPSEEK_API_KEY": KEY}
    listed = httpx2.get(f"{url}/api/keys")
    assert listed.json() == [kept.json()]
    page = httpx2.get(f"{url}/models")
    assert '"tail": "\\u2026e8a0"' in page.text  # for the page's script, in its JSON
    without_key(kept, listed, page)

    # And when it is removed, it is gone
    assert httpx2.delete(f"{url}/api/keys/DEEPSEEK_API_KEY").status_code == 204
    assert httpx2.get(f"{url}/api/keys").json() == []
    assert json.loads(key_store.read_text()) == {}
    gone = httpx2.delete(f"{url}/api/keys/DEEPSEEK_API_KEY")
    assert gone.status_code == 404
    assert gone.json()["detail"] == "no key called DEEPSEEK_API_KEY in the key store"


def test_a_key_that_is_not_one_word_or_has_no_proper_name_is_refused_without_being_shown(
    local, key_store: Path
) -> None:
    url, _ = local

    spaced = httpx2.put(f"{url}/api/keys/OPENAI_API_KEY", json={"key": f"{KEY} {KEY}"})
    badly_named = httpx2.put(f"{url}/api/keys/my-key", json={"key": KEY})

    assert spaced.status_code == 400
    assert spaced.json()["detail"] == (
        "a key is one word: no spaces, line breaks or control characters"
    )
    assert badly_named.status_code == 422
    without_key(spaced, badly_named)
    assert not key_store.exists()


def test_a_workbench_that_may_not_take_keys_refuses_them_in_one_line(
    local, key_store: Path
) -> None:
    url, bench = local
    bench.key_entry = False

    refused = httpx2.put(f"{url}/api/keys/DEEPSEEK_API_KEY", json={"key": KEY})
    invalid_too = httpx2.put(f"{url}/api/keys/DEEPSEEK_API_KEY", json={"kee": KEY})
    page = httpx2.get(f"{url}/models")

    assert refused.status_code == invalid_too.status_code == 403
    detail = refused.json()["detail"]
    assert "\n" not in detail
    assert "honyaku serve --allow-key-entry" in detail
    assert "honyaku keys set NAME" in detail
    assert not key_store.exists()
    assert 'type="password"' not in page.text
    assert "Keys cannot be typed in here" in page.text
    without_key(refused, invalid_too, page)


@pytest.mark.parametrize("allowed", [False, True], ids=["on every interface", "allowed there"])
def test_served_beyond_loopback_keys_are_taken_only_when_the_person_who_started_it_says_so(
    tmp_path: Path, allowed: bool
) -> None:
    home = tmp_path / "home"
    options = ("--host", "0.0.0.0", *(("--allow-key-entry",) if allowed else ()))
    process, printed = serve(home, *options)
    try:
        url, token = served_at(printed)
        answer = httpx2.put(
            f"{url}api/keys/DEEPSEEK_API_KEY",
            json={"key": KEY},
            headers={"Authorization": f"Bearer {token}"},
        )
    finally:
        logged = stop(process)

    assert answer.status_code == (200 if allowed else 403), answer.text
    assert (home / KEY_FILE).exists() is allowed
    without_key(answer)
    assert KEY_MIDDLE not in logged


def test_a_profile_naming_a_kept_key_reaches_its_server_with_it_and_no_answer_shows_it(
    local,
) -> None:
    url, _ = local
    with FakeLLMServer(api_key=KEY) as server:
        profile = {"name": "fake", "model": "fake-translator", "base_url": server.url}
        kept = httpx2.put(f"{url}/api/keys/FAKE_API_KEY", json={"key": KEY})
        saved = httpx2.post(f"{url}/api/models", json={**profile, "key_name": "FAKE_API_KEY"})

        checked = httpx2.post(f"{url}/api/models/check", json=saved.json(), timeout=30)

        assert checked.status_code == 200, checked.text
        found = checked.json()
        assert (found["works"], found["key_accepted"]) == (True, True)
        assert found["key_source"] == "FAKE_API_KEY in the key store"
    answers = [
        kept,
        saved,
        checked,
        httpx2.get(f"{url}/api/models"),
        httpx2.get(f"{url}/api/keys"),
        httpx2.get(f"{url}/models"),
        httpx2.get(f"{url}/"),
    ]
    assert "key FAKE_API_KEY, kept (…e8a0)" in answers[-2].text
    without_key(*answers)


def test_presets_fill_in_the_usual_servers_and_the_page_offers_them(local) -> None:
    url, _ = local

    presets = {p["id"]: p for p in httpx2.get(f"{url}/api/models/presets").json()}
    page = httpx2.get(f"{url}/models").text

    assert list(presets) == [
        "openai",
        "deepseek",
        "gemini",
        "anthropic",
        "openrouter",
        "siliconflow",
        "dashscope",
        "ollama",
        "lm-studio",
        "vllm",
        "llama-cpp",
    ]
    deepseek = presets["deepseek"]
    assert (deepseek["base_url"], deepseek["key_name"], deepseek["models"][0]) == (
        "https://api.deepseek.com",
        "DEEPSEEK_API_KEY",
        "deepseek-chat",
    )
    assert presets["gemini"]["provider"] == "gemini"
    assert (presets["anthropic"]["provider"], presets["anthropic"]["key_name"]) == (
        "anthropic",
        "ANTHROPIC_API_KEY",
    )
    assert (presets["ollama"]["key_name"], presets["ollama"]["local"]) == (None, True)
    for preset in presets.values():
        assert f'<option value="{preset["id"]}"' in page


def test_the_prices_the_list_knows_are_offered_with_their_source_and_none_for_a_local_model(
    local, fake_model: FakeLLMServer
) -> None:
    url, _ = local

    known = httpx2.get(
        f"{url}/api/models/prices",
        params={"model": "deepseek-chat", "base_url": "https://api.deepseek.com"},
    ).json()
    gemini = httpx2.get(
        f"{url}/api/models/prices", params={"model": "gemini-2.5-flash", "provider": "gemini"}
    ).json()
    unknown = httpx2.get(
        f"{url}/api/models/prices", params={"model": "deepseek-chat", "base_url": fake_model.url}
    ).json()

    assert (known["input"], known["cached_input"], known["output"]) == (0.27, 0.07, 1.1)
    assert known["currency"] == "USD"
    assert known["source"].startswith("genai-prices ")
    assert gemini["input"] > 0
    assert unknown is None


def test_a_saved_profile_without_prices_of_its_own_shows_the_lists_with_their_source(
    local,
) -> None:
    url, _ = local
    profile = {"name": "ds", "model": "deepseek-chat", "base_url": "https://api.deepseek.com"}
    assert httpx2.post(f"{url}/api/models", json=profile).status_code == 201

    page = httpx2.get(f"{url}/models").text

    assert "in 0.27 · out 1.1" in page
    assert "USD, from genai-prices " in page


def test_a_fresh_home_shows_the_first_steps_until_it_has_a_model_and_a_book(
    local, fake_model: FakeLLMServer
) -> None:
    url, _ = local

    fresh = httpx2.get(f"{url}/").text
    assert "First steps" in fresh
    for link in ('href="/models#model-form"', 'href="#import-heading"', 'href="/jobs"'):
        assert link in fresh

    profile = {"name": "fake", "model": "fake-translator", "base_url": fake_model.url}
    httpx2.post(f"{url}/api/models", json=profile)
    files = {"file": ("book.txt", "第1章\n\n吾輩は猫である。\n".encode())}
    book = httpx2.post(f"{url}/api/books", files=files).json()["id"]
    assert "First steps" not in httpx2.get(f"{url}/").text
    httpx2.delete(f"{url}/api/models/fake")
    with_book = httpx2.get(f"{url}/").text
    assert "First steps" in with_book
    assert f'href="/books/{book}#job-form"' in with_book
    assert f'href="/books/{book}#exports"' in with_book
