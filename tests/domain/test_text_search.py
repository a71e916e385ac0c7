"""Searching and replacing as a translator types it: plain or regex, refused in one line, and
never slower than the text is long."""

from __future__ import annotations

import time

import pytest

from honyaku.domain.text_search import TextQuery, replaced, spans
from honyaku.errors import UserError


def test_a_plain_query_matches_its_characters_literally_and_ignores_case():
    pattern = TextQuery("a.b").compiled()

    assert spans(pattern, "A.B axb a.b") == [(0, 3), (8, 11)]


def test_a_regex_replacement_uses_its_groups_and_a_plain_one_is_taken_as_written():
    assert (
        replaced(TextQuery(r"(他)走", regex=True).compiled(), r"\1跑", "他走了", regex=True)
        == "他跑了"
    )
    assert replaced(TextQuery("他").compiled(), r"\1", "他走了", regex=False) == r"\1走了"


@pytest.mark.parametrize("pattern", ["(他", "a{2000}", "(?<=a+)b", "\\", "x" * 501, ""])
def test_a_query_that_cannot_work_is_refused_in_one_line(pattern: str):
    with pytest.raises(UserError):
        TextQuery(pattern, regex=True).compiled()


@pytest.mark.parametrize("replacement", [r"\g<999>", "\\", r"\9", r"\g<-1>"])
def test_a_replacement_that_cannot_work_is_refused_in_one_line(replacement: str):
    with pytest.raises(UserError, match="the replacement does not work"):
        replaced(TextQuery("(a)", regex=True).compiled(), replacement, "a", regex=True)


def test_an_empty_match_is_no_hit():
    assert spans(TextQuery("x*", regex=True).compiled(), "abc") == []


@pytest.mark.parametrize("length", [30, 5000])
def test_a_catastrophic_regex_runs_in_time_proportional_to_the_text(length: int):
    # Python's re takes seconds for 26 "a", and doubles with each one more.
    paragraph = "a" * length + "!"
    pattern = TextQuery("(a+)+$", regex=True).compiled()

    started = time.monotonic()
    found = spans(pattern, paragraph)
    after = replaced(pattern, "x", paragraph, regex=True)

    assert time.monotonic() - started < 0.5
    assert found == []
    assert after == paragraph


@pytest.mark.parametrize(
    "pattern", [r"(a)\1", r"(?P<a>x)(?P=a)", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b"]
)
def test_backreferences_and_lookaround_are_refused_in_one_line_that_says_why(pattern: str):
    with pytest.raises(UserError, match="time proportional to the text") as refused:
        TextQuery(pattern, regex=True).compiled()

    assert "\n" not in str(refused.value)


def test_digits_letters_and_spaces_keep_their_unicode_meaning():
    # RE2's own \d, \w and \s are ASCII; a translator's text is not.
    assert spans(TextQuery(r"\d+", regex=True).compiled(), "第１２章") == [(1, 3)]
    assert spans(TextQuery(r"\s", regex=True).compiled(), "「あ」　「い」") == [(3, 4)]
    assert spans(TextQuery(r"[\w]+", regex=True).compiled(), "東京、大阪") == [(0, 2), (3, 5)]
    assert spans(TextQuery(r"\W", regex=True).compiled(), "東京、大阪") == [(2, 3)]
    assert spans(TextQuery(r"了\Z", regex=True).compiled(), "他走了") == [(2, 3)]


def test_case_is_ignored_beyond_ascii_unless_asked():
    assert spans(TextQuery("ÉTÉ").compiled(), "été") == [(0, 3)]
    assert spans(TextQuery("ÉTÉ", case_sensitive=True).compiled(), "été") == []


def test_a_replacement_keeps_its_own_characters_and_escapes_as_python_writes_them():
    pattern = TextQuery(r"(?P<who>他)(走)", regex=True).compiled()

    after = replaced(pattern, r"\g<who>「跑」\2\n\&", "他走了", regex=True)

    assert after == "他「跑」走\n\\&了"
