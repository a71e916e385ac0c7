"""Keys and prices as every front end reaches them: a key set through the application goes to
the key store and never comes back out; a profile that names it reaches its model with exactly
that key, which no row of the database holds afterwards; a known model is priced."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from honyaku.application import Honyaku, JobStatus
from honyaku.domain import JobKind
from honyaku.domain.model_profile import ModelProfile
from honyaku.errors import ConfigError, NotFoundError
from honyaku.jobs import JobFinished, JobRequest
from honyaku.store import Database
from honyaku.testing import FakeLLMServer

from ..conftest import MemoryKeyring, every_value

# The database has no part in this.
pytestmark = pytest.mark.backends("sqlite")

KEY = "sk-app-7c6b5a4f3e2d1c0b"


def test_a_key_set_through_the_application_is_shown_only_by_its_tail(
    honyaku: Honyaku, key_store: Path
):
    async def keys() -> tuple:
        where = await honyaku.keys.where()
        stored = await honyaku.keys.set("DEEPSEEK_API_KEY", KEY)
        return where, stored, await honyaku.keys.all(), await honyaku.keys.get("DEEPSEEK_API_KEY")

    where, stored, listed, found = asyncio.run(keys())

    assert where == str(key_store) == stored.where
    assert stored.tail == "…1c0b"
    assert listed == [stored] == [found]
    assert KEY not in repr(listed)
    assert asyncio.run(honyaku.keys.remove("DEEPSEEK_API_KEY")) == [str(key_store)]
    assert asyncio.run(honyaku.keys.get("DEEPSEEK_API_KEY")) is None
    with pytest.raises(NotFoundError):
        asyncio.run(honyaku.keys.remove("DEEPSEEK_API_KEY"))
    with pytest.raises(ConfigError):
        asyncio.run(honyaku.keys.set("bad name", KEY))


def test_with_a_keyring_the_application_keeps_keys_there(
    honyaku: Honyaku, memory_keyring: MemoryKeyring, key_store: Path
):
    stored = asyncio.run(honyaku.keys.set("DEEPSEEK_API_KEY", KEY))

    assert stored.where == asyncio.run(honyaku.keys.where()) == "keyring"
    assert memory_keyring.get_password("honyaku", "DEEPSEEK_API_KEY") == KEY
    assert not key_store.exists()


def test_a_profile_naming_a_kept_key_reaches_its_model_with_exactly_that_key_and_no_row_holds_it(
    honyaku: Honyaku, database: Database, book_id: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    with FakeLLMServer(api_key=KEY) as model:
        profile = ModelProfile(
            name="deepseek",
            model="fake-translator",
            base_url=model.url,
            protocol="native",
            key_name="DEEPSEEK_API_KEY",
        )

        async def translate() -> tuple:
            await honyaku.keys.set("DEEPSEEK_API_KEY", KEY)
            await honyaku.models.save(profile)
            checked = await honyaku.models.check(profile)
            choice = await honyaku.models.saved("deepseek")
            request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION)
            events = [event async for event in honyaku.jobs.run(request, choice)]
            return checked, events[-1]

        checked, finished = asyncio.run(translate())

    # Then the check says the key works and where it was found, and the job finished
    assert checked.works
    assert checked.key_variable == "DEEPSEEK_API_KEY"
    assert checked.key_source == "DEEPSEEK_API_KEY in the key store"
    assert isinstance(finished, JobFinished)
    assert finished.outcome.job.status is JobStatus.FINISHED
    assert len(model.requests) > 1
    # And no table holds the key: the profile holds its name
    stored = every_value(database)
    assert "DEEPSEEK_API_KEY" in stored
    assert KEY not in stored


def test_a_profiles_missing_key_is_said_by_its_check_before_any_request(honyaku: Honyaku):
    with FakeLLMServer() as model:
        profile = ModelProfile(
            name="deepseek", model="fake-translator", base_url=model.url, key_name="NEVER_KEPT"
        )
        checked = asyncio.run(honyaku.models.check(profile))

    assert not checked.works
    assert "no key NEVER_KEPT" in (checked.problem or "")
    assert "honyaku keys set NEVER_KEPT" in (checked.problem or "")
    assert model.requests == []


def test_a_known_models_profile_is_priced_from_the_list_and_typed_prices_win(honyaku: Honyaku):
    known = ModelProfile(name="mini", model="gpt-4.1-mini")
    typed = known.model_copy(update={"input_price": 3.0, "output_price": 9.0})
    local = ModelProfile(name="local", model="gpt-4.1-mini", base_url="http://127.0.0.1:9/v1")

    listed = asyncio.run(honyaku.models.prices(known))
    as_typed = asyncio.run(honyaku.models.prices(typed))

    assert listed is not None
    assert not listed.typed
    assert listed.currency == "USD"
    assert (listed.source or "").startswith("genai-prices ")
    assert as_typed is not None
    assert as_typed.typed
    assert (as_typed.prices.input, as_typed.prices.output) == (3.0, 9.0)
    assert asyncio.run(honyaku.models.prices(local)) is None


def test_a_form_can_ask_the_lists_prices_before_a_profile_is_saved(honyaku: Honyaku):
    deepseek = asyncio.run(
        honyaku.models.listed_prices("deepseek-chat", base_url="https://api.deepseek.com/v1")
    )
    gemini = asyncio.run(honyaku.models.listed_prices("gemini-2.5-flash"))
    unknown = asyncio.run(honyaku.models.listed_prices("qwen3", base_url="http://127.0.0.1:9/v1"))

    assert deepseek is not None
    assert (deepseek.provider, deepseek.model) == ("deepseek", "deepseek-chat")
    assert gemini is not None
    assert gemini.provider == "google"
    assert unknown is None
