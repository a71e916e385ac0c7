"""Forms of address: the rows a chunk is given (its pairs', in force at its place), and the
check of an agreed rendering missing."""

from __future__ import annotations

import pytest

from honyaku.domain.forms_of_address import (
    FormOfAddress,
    Place,
    Since,
    address_forms_missing,
    chapters_seen,
    clean_form,
    forms_in,
    rows_for,
)
from honyaku.domain.glossary import GlossaryEntry, match_key

SORATA = GlossaryEntry("空太", "空太", kind="character")
MISAKI = GlossaryEntry("美咲", "美咲", kind="character")
MASHIRO = GlossaryEntry("真白", "真白", kind="character")
CAST = [SORATA, MISAKI, MASHIRO]

SENPAI = FormOfAddress("空太", "美咲", "美咲先輩", "美咲学姐", "你")
KOUHAI = FormOfAddress("美咲", "空太", "後輩くん", "学弟")
BARE = FormOfAddress("真白", "空太", "空太", "空太")
CLOSER = FormOfAddress("空太", "美咲", "美咲先輩", "美咲姐", since=Since("b1", 3, 5))
LATER_BOOK = FormOfAddress("空太", "美咲", "美咲先輩", "美咲", since=Since("b2", 1))


def place(start: tuple[int, int], end: tuple[int, int], book: str = "b1") -> Place:
    return Place(book, start, end, {"b1": 0, "b2": 1})


def test_a_chunk_is_given_the_rows_of_the_pairs_it_names_and_no_other():
    forms = [SENPAI, KOUHAI, BARE]

    shown = rows_for(forms, [SORATA, MISAKI], CAST, place((1, 0), (1, 9)))

    assert [s.form for s in shown] == [SENPAI, KOUHAI]
    assert rows_for(forms, [MASHIRO, MISAKI], CAST, place((1, 0), (1, 9))) == []


def test_a_later_row_takes_over_from_its_point_and_a_chunk_holding_the_point_gets_both():
    forms = [SENPAI, CLOSER, LATER_BOOK]
    named = [SORATA, MISAKI]

    before = rows_for(forms, named, CAST, place((2, 0), (2, 9)))
    across = rows_for(forms, named, CAST, place((3, 0), (3, 9)))
    after = rows_for(forms, named, CAST, place((4, 0), (4, 9)))
    next_volume = rows_for(forms, named, CAST, place((1, 0), (1, 9), book="b2"))

    assert [s.form for s in before] == [SENPAI]
    assert [(s.form, s.begins_inside) for s in across] == [(SENPAI, False), (CLOSER, True)]
    assert [s.form for s in after] == [CLOSER]
    assert [s.form for s in next_volume] == [LATER_BOOK]


def test_a_form_inside_a_longer_one_is_not_counted_twice():
    found = forms_in(
        "「美咲先輩、先輩！」", [SENPAI, FormOfAddress("空太", "美咲", "先輩", "学姐")]
    )

    assert {key: [f.rendering for f in rows] for key, rows in found.items()} == {
        match_key("美咲先輩"): ["美咲学姐"],
        match_key("先輩"): ["学姐"],
    }


@pytest.mark.parametrize(
    ("translation", "missing"),
    [
        ("“美咲学姐，早上好。”", False),
        ("“美咲前辈，早上好。”", True),
        ("“学弟，来了啊。”", False),
    ],
)
def test_an_agreed_rendering_missing_where_its_form_is_written_is_told(translation, missing):
    source = "「美咲先輩、おはよう」" if "美咲" in translation else "「後輩くん、来たね」"

    told = address_forms_missing(source, translation, [SENPAI, KOUHAI])

    assert (told is not None) is missing
    if told:
        assert "美咲先輩 → 美咲学姐 (空太 → 美咲)" in told


def test_where_two_rows_give_one_form_either_rendering_will_do():
    other = FormOfAddress("真白", "美咲", "美咲先輩", "美咲前辈")

    assert address_forms_missing("「美咲先輩」", "“美咲前辈”", [SENPAI, other]) is None


def test_a_row_is_seen_in_the_chapters_where_both_appear_and_its_form_is_written():
    chapters = [
        (1, match_key("「美咲先輩！」と空太"), {SORATA.key, MISAKI.key}),
        (2, match_key("美咲先輩は来ない"), {MISAKI.key}),
        (3, match_key("空太と美咲"), {SORATA.key, MISAKI.key}),
    ]

    assert chapters_seen(SENPAI, chapters, CAST) == [1]


@pytest.mark.parametrize(
    ("form", "problem"),
    [
        (FormOfAddress("空太", "空太", "俺", "我"), "not themselves"),
        (FormOfAddress("空太", "美咲", " ", "学姐"), "source form is blank"),
        (FormOfAddress("空太", "美咲", "先輩", "学姐", "x" * 21), "register is longer"),
    ],
)
def test_a_row_without_a_pair_a_form_or_a_short_register_is_refused(form, problem):
    with pytest.raises(ValueError, match=problem):
        clean_form(form)
