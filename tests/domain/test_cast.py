"""The cast: names with honorifics resolve to their character, and the check of a pronoun of
the other gender next to the only character named."""

from __future__ import annotations

import pytest

from honyaku.domain.cast import default_pronoun, gender_of, resolve_character, wrong_pronoun
from honyaku.domain.glossary import GlossaryEntry, GlossaryMatcher
from honyaku.domain.honorifics import base_name, honorific_forms, split_honorific
from honyaku.domain.quality import check_translation

SORATA = GlossaryEntry("空太", "空太", kind="character", gender="male")
MASHIRO = GlossaryEntry("真白", "真白", kind="character", gender="女")
CHIHIRO = GlossaryEntry("千尋先生", "千寻老师", kind="character", gender="female")
TA = GlossaryEntry("リタ", "丽塔", kind="character", pronoun="TA")
CAST = [SORATA, MASHIRO, CHIHIRO, TA]


@pytest.mark.parametrize(
    ("name", "split"),
    [
        ("空太先輩", ("空太", "先輩")),
        ("空太くん", ("空太", "くん")),
        ("空太様", ("空太", "様")),
        ("美咲姉ちゃん", ("美咲", "姉ちゃん")),
        ("Sora-senpai", ("Sora", "senpai")),
        ("Sora san", ("Sora", "san")),
        ("민수 씨", ("민수", "씨")),
        ("空太", ("空太", "")),
        ("姉さん", ("姉さん", "")),
        ("お兄ちゃん", ("お兄ちゃん", "")),
        ("Kunio", ("Kunio", "")),
    ],
)
def test_a_name_splits_into_its_base_and_its_honorific_unless_the_base_is_too_short(name, split):
    assert split_honorific(name) == split


def test_every_variant_of_a_name_finds_its_character_and_none_finds_another():
    for name in ("空太", "空太先輩", "空太くん", "空太様", "ｿﾗﾀ"):
        found = resolve_character(name, CAST)
        assert found is (SORATA if name != "ｿﾗﾀ" else None), name
    # A character known by a name with its honorific is found by its bare name too
    assert resolve_character("千尋", CAST) is CHIHIRO
    assert resolve_character("千尋さん", CAST) is CHIHIRO
    assert base_name("千尋先生") == "千尋"


def test_a_characters_entry_reaches_every_text_that_writes_any_variant_of_its_names():
    matcher = GlossaryMatcher(CAST)

    assert matcher.find(["「千尋、待って」"]) == [CHIHIRO]
    assert matcher.find(["「空太先輩！」"]) == [SORATA]
    # a term is not a character: 王様 is no variant of 王
    assert GlossaryMatcher([GlossaryEntry("王様", "国王")]).find(["王は言った"]) == []


def test_the_book_writes_each_name_bare_or_with_its_honorifics_and_each_is_counted():
    texts = ["「空太先輩、空太くん」", "空太は走った。神田空太です。", "Sora-senpai!"]
    names = {"空太": "sorata", "神田空太": "sorata", "Sora": "sorata"}

    seen = honorific_forms(texts, names)

    assert seen["sorata"] == {
        "空太先輩": 1,
        "空太くん": 1,
        "空太": 1,
        "神田空太": 1,
        "Sora-senpai": 1,
    }


def test_genders_are_read_from_a_translators_words_and_give_the_targets_pronoun():
    assert [gender_of(w) for w in ("male", "女", "She", "robot")] == [
        "male",
        "female",
        "female",
        None,
    ]
    assert default_pronoun("female", "zh-CN") == "她"
    assert default_pronoun("male", "en") == "he"
    assert default_pronoun("female", "fr") == ""


def check(source: str, translation: str, named: list[GlossaryEntry], target: str = "zh-CN"):
    return wrong_pronoun(source, translation, named, source_lang="ja", target_lang=target)


def test_the_other_genders_pronoun_beside_the_only_character_named_is_flagged():
    assert "真白" in (check("真白は絵を描いた。", "真白画了画，他很专注。", [MASHIRO]) or "")
    assert "真白" in (
        check("真白は絵を描いた。", "Mashiro drew; he smiled.", [MASHIRO], "en") or ""
    )


@pytest.mark.parametrize(
    ("source", "translation", "named"),
    [
        ("真白は絵を描いた。", "真白画了画，她很专注。", [MASHIRO]),  # her own pronoun
        ("真白は絵を描いた。", "真白画了画，他也在，她很专注。", [MASHIRO]),  # both: two people
        ("真白と空太は絵を描いた。", "真白和空太画了画，他很专注。", [MASHIRO, SORATA]),
        ("真白は彼を見た。", "真白看着他。", [MASHIRO]),  # the source says who
        ("真白は絵を描いた。", "真白画了画，其他人都走了。", [MASHIRO]),  # 其他 is no 他
        ("真白は絵を描いた。", "真白画了画，他们都走了。", [MASHIRO]),  # a plural
        ("リタは笑った。", "丽塔笑了，他很开心。", [TA]),  # TA is none of the gendered ones
        ("真白は絵を描いた。", "Mashiro dessinait ; il pleuvait.", [MASHIRO]),  # not checked
    ],
)
def test_no_pronoun_is_flagged_where_the_check_cannot_be_sure(source, translation, named):
    target = "fr" if translation.startswith("Mashiro") else "zh-CN"
    assert check(source, translation, named, target) is None


def test_a_batchs_checks_name_the_pronoun_the_character_takes():
    [warning] = check_translation(
        "真白は絵を描いた。",
        "真白画了画，他很专注。",
        source_lang="ja",
        target_lang="zh-CN",
        terms=[MASHIRO],
    )
    assert warning.code == "WRONG_PRONOUN"
    assert "takes 她" in warning.message
