"""Known models priced from genai-prices' list: shown with their source and date, overridden
by typed prices, and used by estimates and caps; a model the list does not know has none."""

from __future__ import annotations

import re

import pytest

from honyaku.cli.console import EXIT_INTERRUPTED
from honyaku.testing import FakeLLMServer

from .conftest import RASHOMON, honyaku, imported

SOURCE = re.compile(r"genai-prices \d+\.\d+\.\d+\S* \(data of \d{4}-\d\d-\d\d\)")


def test_a_model_the_list_knows_shows_its_prices_and_their_source_without_any_typed():
    added = honyaku("models", "add", "mini", "--model", "gpt-4.1-mini").stdout

    shown = honyaku("models", "show", "mini").stdout
    listed = honyaku("models", "list").stdout

    [prices] = [line for line in shown.splitlines() if "prices /M" in line]
    assert re.search(r"in [\d.]+ \(cached [\d.]+\), out [\d.]+ USD, from ", prices)
    assert SOURCE.search(prices)
    assert SOURCE.search(added)
    assert " *" in listed
    assert SOURCE.search(listed)


def test_typed_prices_win_and_are_shown_as_typed():
    honyaku(
        "models", "add", "mini", "--model", "gpt-4.1-mini", "--input-price", "3",
        "--output-price", "9",
    )  # fmt: skip

    shown = honyaku("models", "show", "mini").stdout

    assert "in 3, out 9, as typed" in shown
    assert "genai-prices" not in shown + honyaku("models", "list").stdout


def test_a_model_the_list_does_not_know_has_no_prices_and_works_as_before(fake_model):
    book = imported(RASHOMON)
    honyaku("models", "add", "local", "--model", "fake-translator", "--base-url", fake_model.url)

    shown = honyaku("models", "show", "local").stdout
    estimate = honyaku("translate", book, "--model", "local", "--dry-run").stdout
    done = honyaku("translate", book, "--model", "local")

    assert "prices /M  -" in shown
    assert "give the model profile prices" in estimate
    assert done.returncode == 0


def test_the_dry_run_estimate_costs_the_job_at_the_lists_prices():
    # Given a book, a profile of a known model, and one with the same prices typed
    book = imported(RASHOMON)
    honyaku("models", "add", "mini", "--model", "gpt-4.1-mini")
    listed = re.search(
        r"in ([\d.]+) \(cached ([\d.]+)\), out ([\d.]+)", honyaku("models", "show", "mini").stdout
    )
    assert listed is not None
    honyaku(
        "models", "add", "typed", "--model", "gpt-4.1-mini", "--input-price", listed[1],
        "--cached-input-price", listed[2], "--output-price", listed[3],
    )  # fmt: skip

    # When the job is estimated with each
    at_list = honyaku("translate", book, "--model", "mini", "--dry-run").stdout
    at_typed = honyaku("translate", book, "--model", "typed", "--dry-run").stdout

    # Then the known model's estimate has a cost, at the list's prices, the same as typed
    cost = re.search(r"cost\s+([\d.e-]+) USD at the prices of (genai-prices [^;]*\))", at_list)
    typed = re.search(r"cost\s+([\d.e-]+) at the profile's prices", at_typed)
    assert cost is not None, at_list
    assert typed is not None, at_typed
    assert float(cost[1]) > 0
    assert cost[1] == typed[1]
    assert SOURCE.fullmatch(cost[2])


def test_a_cap_is_kept_at_the_lists_prices(monkeypatch: pytest.MonkeyPatch):
    # Given a known model's profile, its requests sent through a gateway (the fake server)
    with FakeLLMServer() as gateway:
        monkeypatch.setenv("OPENAI_BASE_URL", gateway.url)
        book = imported(RASHOMON)
        honyaku("models", "add", "mini", "--model", "gpt-4.1-mini", "--protocol", "native")

        # When it runs with a cap smaller than any request
        stopped = honyaku(
            "translate", book, "--model", "mini", "--max-cost", "0.000001", check=False
        )

    # Then the cap stops it before the first request, as it does at typed prices
    assert stopped.returncode == EXIT_INTERRUPTED, stopped.stderr
    assert "of the cap of 1e-06 spent" in stopped.stderr
    assert gateway.requests == []
