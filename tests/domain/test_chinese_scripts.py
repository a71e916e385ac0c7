"""Simplified and Traditional characters told apart with OpenCC's dictionaries, on real
sentences (a translation of the opening of Akutagawa's Rashōmon, and everyday Taiwanese and
Hong Kong writing): only the characters the scripts write differently count, each in its word."""

from __future__ import annotations

import pytest

from honyaku.domain.chinese_scripts import (
    ChineseScript,
    chinese_script,
    tally_scripts,
    written_in_script,
)

SIMPLIFIED = "要说为什么，是因为这两三年来，京都接连发生了地震、旋风、火灾、饥荒等灾祸。"
TRADITIONAL = "要說為什麼，是因為這兩三年來，京都接連發生了地震、旋風、火災、饑荒等災禍。"
TAIWAN = "我們在台灣的時候，常常去夜市吃東西，那裡的麵線很好吃。"
HONG_KONG = "「你在這裏幹甚麼？」他看着窗外，心裏想着明天的事。"


@pytest.mark.parametrize(
    ("tag", "script"),
    [
        ("zh-CN", ChineseScript.SIMPLIFIED),
        ("zh", ChineseScript.SIMPLIFIED),
        ("zh-SG", ChineseScript.SIMPLIFIED),
        ("zh-Hans", ChineseScript.SIMPLIFIED),
        ("zh-TW", ChineseScript.TRADITIONAL),
        ("zh-HK", ChineseScript.TRADITIONAL),
        ("zh-MO", ChineseScript.TRADITIONAL),
        ("zh-Hant", ChineseScript.TRADITIONAL),
        ("zh-Hant-TW", ChineseScript.TRADITIONAL),
        ("ja", None),
        ("en", None),
    ],
)
def test_a_chinese_tag_says_its_script_and_other_languages_have_none(tag, script):
    assert chinese_script(tag) is script


def test_a_text_in_its_target_script_has_nothing_in_the_other():
    tally = tally_scripts(SIMPLIFIED, "zh-CN")

    assert tally.in_other == 0
    assert tally.in_target == 14  # 说 为 么 为 这 两 来 连 发 风 灾 饥 灾 祸
    assert tally.other_share == 0


def test_a_text_in_the_other_script_is_counted_with_its_fixes():
    tally = tally_scripts(TRADITIONAL, "zh-CN")

    assert (tally.in_target, tally.in_other) == (0, 14)
    assert tally.fixes == ("說→说", "為→为", "麼→么", "這→这", "兩→两")
    assert tally.other_share == 1


def test_both_directions_are_counted_against_a_traditional_target():
    assert (
        tally_scripts(TRADITIONAL, "zh-TW").in_other,
        tally_scripts(SIMPLIFIED, "zh-TW").in_target,
    ) == (0, 0)
    assert tally_scripts(SIMPLIFIED, "zh-TW").fixes[:3] == ("说→說", "为→為", "么→麼")


def test_characters_written_alike_in_both_scripts_count_for_neither():
    tally = tally_scripts("李白和杜甫在山上喝酒。", "zh-CN")

    assert (tally.in_target, tally.in_other) == (0, 0)


def test_a_character_is_judged_in_its_word():
    # 干 is Simplified for 乾 in 干净 and for 幹 in 干什么: both words count as Simplified.
    assert tally_scripts("头发干净，你在干什么", "zh-CN").in_other == 0
    assert tally_scripts("頭髮乾淨，你在幹什麼", "zh-CN").in_other == 6
    # 皇后 keeps its 后 in Traditional, where 后来 becomes 後來.
    assert tally_scripts("後來他成了皇后的護衛。", "zh-CN").in_other == 4


def test_taiwan_and_hong_kong_forms_are_counted_for_their_own_targets():
    assert tally_scripts(TAIWAN, "zh-TW").other_share < 0.2  # 台 only: OpenCC writes 臺
    assert tally_scripts(TAIWAN, "zh-CN").other_share > 0.5
    assert tally_scripts(HONG_KONG, "zh-HK").in_other == 0
    assert tally_scripts(HONG_KONG, "zh-CN").in_other >= 4


def test_punctuation_latin_letters_and_kana_count_for_neither():
    tally = tally_scripts("「OK」と言った。“Yes!”", "zh-CN")

    assert (tally.in_target, tally.in_other) == (0, 0)


def test_a_text_is_written_in_its_target_script_phrase_by_phrase():
    assert written_in_script(TRADITIONAL, "zh-CN") == SIMPLIFIED
    assert written_in_script("头发干净", "zh-TW") == "頭髮乾淨"
