"""honyaku rate and honyaku check --below as a person types them: a judge scores each
paragraph, and the low ones are listed one a line to read first."""

from __future__ import annotations

import re

from honyaku.testing import FakeLLMServer, ScriptedTranslator, hanzi_translation

from .conftest import RASHOMON, honyaku, imported

LISTED = re.compile(r"^[0-9a-f]{8} chapter \d+ \[\d+\] score [12] [a-z_,]+  .+$")


def test_the_demo_judge_rates_kana_left_in_a_translation_below_3():
    # Given a book the demo model translated (its pseudo translations keep the kana)
    book = imported(RASHOMON)
    honyaku("translate", book, "--model", "demo")

    # When the demo model rates it
    rated = honyaku("rate", book, "--model", "demo")
    listed = honyaku("check", book, "--below", "3").stdout.splitlines()

    # Then every paragraph is listed below 3, one a line, with its issue and comment
    assert "paragraphs" in rated.stdout
    *lines, last = listed
    assert last == f"{len(lines)} paragraph(s) rated below 3"
    assert lines
    assert all(LISTED.match(line) for line in lines), lines[:3]
    assert all("score 2 untranslated  仍有假名未译" in line for line in lines)


def test_a_clean_translation_rates_5_and_nothing_is_below_3(fake_model: FakeLLMServer):
    book = imported(RASHOMON)
    fake_model.translator = ScriptedTranslator(translate=hanzi_translation)
    flags = ["--model", "fake-translator", "--base-url", fake_model.url]
    honyaku("translate", book, *flags)

    honyaku("rate", book, *flags)

    assert honyaku("check", book, "--below", "3").stdout.strip() == "0 paragraph(s) rated below 3"
    assert honyaku("check", book, "--below", "9", check=False).returncode == 2
