"""The terminal says the model is working while a request waits, and how long it should take."""

from __future__ import annotations

from honyaku.cli.progress import waiting_line


def test_a_wait_is_told_in_minutes_and_seconds_beside_the_pace_s_rough_expectation():
    assert waiting_line(130, 240) == "waiting for the model: 2 m 10 s, about 4 m expected"


def test_a_short_wait_of_a_model_whose_pace_is_unknown_says_only_how_long():
    assert waiting_line(7.4, None) == "waiting for the model: 7 s"


def test_an_expectation_under_a_minute_is_told_in_seconds():
    assert waiting_line(3, 42) == "waiting for the model: 3 s, about 42 s expected"
