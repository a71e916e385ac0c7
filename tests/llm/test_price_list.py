"""Known models priced from genai-prices' packaged list: by the model's name at its server,
the standard prices of today, never a discount; a model or a server it does not know, none."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from importlib.metadata import version

import pytest
from genai_prices import Usage, calc_price

from honyaku.domain.model_profile import ModelProfile
from honyaku.domain.pricing import Prices
from honyaku.llm.models import ModelChoice
from honyaku.llm.price_list import listed_prices, price_list_source

MILLION = 1_000_000
SAMPLE = 100_000
"""Tokens of a request priced to compare: below every tier's threshold."""


def list_price(model: str, provider: str, at: datetime | None = None) -> tuple[float, float]:
    """What genai-prices itself charges per million input and output tokens, for a request of
    ``SAMPLE`` tokens each way."""
    usage = Usage(input_tokens=SAMPLE, output_tokens=SAMPLE)
    price = calc_price(usage, model, provider_id=provider, genai_request_timestamp=at)
    scale = MILLION / SAMPLE
    return float(price.input_price) * scale, float(price.output_price) * scale


@pytest.mark.parametrize(
    ("model", "url", "provider"),
    [
        ("gpt-4.1-mini", "https://api.openai.com/v1", "openai"),
        ("gpt-4.1-mini-2025-04-14", "https://api.openai.com/v1", "openai"),
        ("gemini-2.5-flash", "https://generativelanguage.googleapis.com", "google"),
        ("deepseek/deepseek-chat", "https://openrouter.ai/api/v1", "openrouter"),
    ],
)
def test_a_known_model_at_its_providers_server_has_the_lists_prices(model, url, provider):
    listed = listed_prices(model, url)

    assert listed is not None
    assert listed.provider == provider
    assert (listed.prices.input, listed.prices.output) == pytest.approx(list_price(model, provider))


def test_a_known_model_has_its_cached_input_price_too():
    listed = listed_prices("gpt-4.1-mini", "https://api.openai.com/v1")

    assert listed is not None
    assert listed.prices.cached_input is not None
    assert 0 < listed.prices.cached_input < listed.prices.input


@pytest.mark.parametrize(
    ("model", "url"),
    [
        ("gpt-4.1-mini", "http://127.0.0.1:8080/v1"),  # the same name on a local server: free
        ("deepseek-chat", "http://localhost:11434/v1"),
        ("fake-translator", "https://api.openai.com/v1"),
        ("text-embedding-3-small", "https://api.openai.com/v1"),  # no output price
        ("gpt-4.1-mini", None),
        (None, "https://api.openai.com/v1"),
    ],
)
def test_a_model_or_a_server_the_list_does_not_know_has_no_prices(model, url):
    assert listed_prices(model, url) is None


def test_a_price_that_changes_with_the_time_of_day_is_the_dearest_never_the_discount():
    # DeepSeek's off-peak hours are billed at a discount: counted at the standard price
    today = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    by_hour = [
        list_price("deepseek-chat", "deepseek", today + timedelta(hours=h)) for h in range(24)
    ]
    assert len(set(by_hour)) > 1  # the list does price it by the hour

    listed = listed_prices("deepseek-chat", "https://api.deepseek.com/v1")

    assert listed is not None
    assert (listed.prices.input, listed.prices.output) == pytest.approx(max(by_hour))


def test_a_tiered_price_is_its_base_tier():
    # Gemini 2.5 Pro bills a prompt past 200k tokens dearer: a profile counts the base tier
    listed = listed_prices("gemini-2.5-pro", "https://generativelanguage.googleapis.com")

    assert listed is not None
    assert listed.prices.input == pytest.approx(list_price("gemini-2.5-pro", "google")[0])


def test_the_source_names_the_list_its_version_and_the_date_of_its_data():
    source = price_list_source()

    found = re.fullmatch(r"genai-prices (\S+) \(data of (\d{4}-\d\d-\d\d)\)", source)
    assert found is not None
    assert found[1] == version("genai-prices")
    assert datetime.fromisoformat(found[2]).date() <= datetime.now(UTC).date()


def test_a_profiles_typed_prices_win_over_the_lists():
    known = ModelProfile(name="mini", model="gpt-4.1-mini")
    typed = known.model_copy(update={"input_price": 0.3, "output_price": 1.0})

    listed = ModelChoice.from_profile(known)
    assert listed.prices is not None
    assert listed.prices_source == price_list_source()
    assert ModelChoice.from_profile(typed).prices == Prices(0.3, 1.0)
    assert ModelChoice.from_profile(typed).prices_source is None


def test_a_profiles_service_tier_applies_to_the_lists_standard_prices():
    flex = ModelChoice.from_profile(
        ModelProfile(name="mini", model="gpt-4.1-mini", service_tier="flex")
    )
    standard = ModelChoice.from_profile(ModelProfile(name="mini", model="gpt-4.1-mini"))

    assert flex.prices is not None
    assert standard.prices is not None
    assert flex.prices.cost(MILLION, 0, 0) == pytest.approx(standard.prices.cost(MILLION, 0, 0) / 2)
