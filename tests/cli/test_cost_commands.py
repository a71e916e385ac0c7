"""What a job costs, from the command line: --dry-run, --max-cost, the book's max_cost, and a
profile's rate limit shared by every chapter, against the fake model over real HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from honyaku.cli.console import EXIT_INTERRUPTED
from honyaku.llm import rate_limit
from honyaku.store import Database, Library
from honyaku.testing import FakeLLMServer, ScriptedTranslator

from ..conftest import novel
from .conftest import RASHOMON, honyaku, imported

PERIOD_S = 0.5
"""The rate limiter's period in the rate test: a minute's rate, kept over half a second."""


def priced_profile(server: FakeLLMServer, *extra: str) -> None:
    honyaku(
        "models", "add", "priced", "--model", "fake-translator", "--base-url", server.url,
        "--protocol", "native", "--input-price", "2", "--cached-input-price", "0.5",
        "--output-price", "8", *extra,
    )  # fmt: skip


def test_dry_run_prints_the_estimate_and_sends_nothing(fake_model):
    # Given a book and a model profile with prices
    book = imported(RASHOMON)
    priced_profile(fake_model)

    # When a translation is dry-run
    done = honyaku("translate", book, "--model", "priced", "--dry-run")

    # Then the estimate is printed, the cost included, and the server heard nothing
    assert "nothing sent" in done.stdout
    for label in ("chunks", "requests", "input tokens", "output tokens", "cost"):
        assert label in done.stdout
    assert "at the profile's prices" in done.stdout
    # and so is the bill at the Batch API's prices, with the turnaround
    assert "with --batch" in done.stdout
    assert "at the Batch API's prices" in done.stdout
    assert "within 24 h" in done.stdout
    assert fake_model.requests == []


def test_max_cost_stops_the_run_and_the_next_run_finishes_the_book(home, fake_model):
    # Given a book of several chapters and a profile with prices
    library = Library(Database.open(home))
    book = library.add_book(novel(4, 60), source_lang="ja", target_lang="zh-CN")
    library.update_settings(book, chunk_chars=600)
    priced_profile(fake_model)

    # When it is translated with a small cap
    stopped = honyaku("translate", book, "--model", "priced", "--max-cost", "0.02", check=False)

    # Then the run stops, saying why, with part of the book done
    assert stopped.returncode == EXIT_INTERRUPTED
    assert "of the cap of 0.02 spent" in stopped.stderr
    assert "run again to go on" in stopped.stderr
    translated = [p for c in library.whole_book(book).chapters for p in c.work_paragraphs]
    assert 0 < sum(1 for p in translated if p.translation) < len(translated)

    # And the same command without the cap goes on to the end
    finished = honyaku("translate", book, "--model", "priced")
    assert "resum" in finished.stdout.lower()
    assert all(p.translation for c in library.whole_book(book).chapters for p in c.work_paragraphs)


def test_the_books_max_cost_setting_caps_every_run(home, fake_model):
    book = imported(RASHOMON)
    priced_profile(fake_model)

    shown = honyaku("settings", book, "--max-cost", "0.0001")
    stopped = honyaku("translate", book, "--model", "priced", check=False)

    assert "max_cost = 0.0001" in shown.stdout
    assert stopped.returncode == EXIT_INTERRUPTED
    assert fake_model.requests == []
    assert "max_cost = None" in honyaku("settings", book, "--max-cost", "0").stdout


def test_max_cost_without_prices_is_one_line_before_any_request(fake_model):
    book = imported(RASHOMON)
    flags = ["--model", "fake-translator", "--base-url", fake_model.url]

    done = honyaku("translate", book, *flags, "--max-cost", "1", check=False)

    assert done.returncode != 0
    assert "needs the model's prices" in done.stderr
    assert fake_model.requests == []


def test_a_60_rpm_profile_sends_at_most_60_requests_in_any_period_with_8_chapters(
    home, fake_model, monkeypatch: pytest.MonkeyPatch
):
    # Given eight chapters worked on at once by a cautious model (one call a reply), and a
    # profile allowed 60 requests a period (half a second here, a minute in life)
    monkeypatch.setattr(rate_limit, "PERIOD_S", PERIOD_S)
    library = Library(Database.open(home))
    book = library.add_book(novel(8, 30), source_lang="ja", target_lang="zh-CN")
    library.update_settings(book, chunk_chars=200)
    fake_model.translator = ScriptedTranslator(calls_per_reply=1, heeds_invitations=False)
    priced_profile(fake_model, "--rpm", "60")
    granted = granted_sends(monkeypatch)

    # When the book is translated
    honyaku("translate", book, "--model", "priced", "--concurrency", "8")

    # Then every request went through the profile's one limiter, and no period held more
    # than 60 of them, though the job needed more than one period's worth
    assert len(granted) == len(fake_model.requests) > 60
    assert max(_in_any_period(granted, PERIOD_S)) <= 60
    assert granted[-1] - granted[0] >= PERIOD_S


def granted_sends(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The times, on its own clock, at which the limiter lets each request go: what it
    promises. The server's arrival times add the loopback's jitter, which in a half-second
    period can put a 61st request into one."""
    granted: list[float] = []
    for log in (rate_limit.ProcessLog, rate_limit.SharedLog):

        async def recording(
            self: Any, now: float, tokens: int, period_s: float, decide: Any, admit: Any = log.admit
        ) -> float:
            wait = await admit(self, now, tokens, period_s, decide)
            if wait <= 0:
                granted.append(now)
            return wait

        monkeypatch.setattr(log, "admit", recording)
    return granted


def _in_any_period(times: list[float], period_s: float) -> list[int]:
    """For each request, how many were granted in the period that it opens."""
    times = sorted(times)
    return [sum(1 for t in times[i:] if t < start + period_s) for i, start in enumerate(times)]


def test_in_any_period_counts_requests_within_a_period():
    assert _in_any_period([0.0, 0.1, 0.6, 0.7], 0.5) == [2, 1, 2, 1]
