"""Searching and replacing as a translator types it: plain or regex, refused in one line."""

from __future__ import annotations

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


@pytest.mark.parametrize("pattern", ["(他", "a{4294967296}", "(?<=a+)b", "\\", "x" * 501, ""])
def test_a_query_that_cannot_work_is_refused_in_one_line(pattern: str):
    with pytest.raises(UserError):
        TextQuery(pattern, regex=True).compiled()


@pytest.mark.parametrize("replacement", [r"\g<999>", "\\", r"\9", r"\g<-1>"])
def test_a_replacement_that_cannot_work_is_refused_in_one_line(replacement: str):
    with pytest.raises(UserError, match="the replacement does not work"):
        replaced(TextQuery("(a)", regex=True).compiled(), replacement, "a", regex=True)


def test_an_empty_match_is_no_hit():
    assert spans(TextQuery("x*", regex=True).compiled(), "abc") == []
