"""The quality checks on real text (Akutagawa's Rashōmon and a translation of it): each flags
what it is for, and passes a good translation."""

from __future__ import annotations

from honyaku.domain.glossary import GlossaryEntry
from honyaku.domain.quality import check_translation, length_band

OPENING = "ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。"
OPENING_ZH = "某日傍晚，有一个仆人在罗生门下等雨停。"
QUOTED = "「おのれ、どこへ行く。」"
QUOTED_ZH = "“混账，往哪里去！”"
INNER = "作者はさっき、「下人が雨やみを待っていた」と書いた。"
INNER_ZH = "作者刚才写道：“仆人在等雨停”。"
SERVANT = GlossaryEntry("下人", "仆人", kind="character")


def codes(source: str, translation: str, *, target: str = "zh-CN", terms=()) -> list[str]:
    found = check_translation(
        source, translation, source_lang="ja", target_lang=target, terms=terms
    )
    return [w.code for w in found]


def test_a_good_translation_passes_every_check():
    assert codes(OPENING, OPENING_ZH, terms=[SERVANT]) == []
    assert codes(QUOTED, QUOTED_ZH) == []
    assert codes(INNER, INNER_ZH, terms=[SERVANT]) == []


def test_kana_left_in_a_chinese_translation_is_flagged():
    assert codes(OPENING, "某日傍晚，有一个仆人在罗生门下雨やみを等。") == ["UNTRANSLATED_KANA"]


def test_a_single_kana_as_chinese_sometimes_quotes_it_is_not_flagged():
    assert codes(OPENING, "某日傍晚の事，有一个仆人在罗生门下等雨停。") == []


def test_kana_are_not_judged_in_an_english_translation():
    english = "One evening, a servant was waiting for the rain to stop under the Rashomon gate."
    assert codes(OPENING, english, target="en") == []


def test_a_translation_equal_to_its_source_is_flagged():
    assert codes(OPENING, OPENING) == ["UNTRANSLATED_KANA", "SAME_AS_SOURCE"]
    assert codes(OPENING, OPENING, target="en") == ["SAME_AS_SOURCE"]


def test_a_source_of_han_characters_only_may_stay_as_it_is_in_chinese():
    assert codes("（大正四年九月）", "（大正四年九月）") == []


def test_a_translation_cut_short_or_padded_is_flagged_outside_the_pairs_band():
    low, high = length_band("ja", "zh-CN")

    assert low < len(OPENING_ZH) / len(OPENING) < high
    assert codes(OPENING, "某日傍晚。") == ["LENGTH_OUT_OF_BAND"]
    assert codes(OPENING, OPENING_ZH * 4) == ["LENGTH_OUT_OF_BAND"]


def test_short_sources_are_not_judged_on_length():
    assert codes(QUOTED, "“混账！往哪去？你给我站住，说清楚你到底在做什么！”") == []


def test_a_closing_quote_lost_leaves_the_brackets_unbalanced():
    assert codes(INNER, "作者刚才写道：“仆人在等雨停。") == ["UNBALANCED_BRACKETS"]


def test_brackets_already_open_in_the_source_are_not_judged():
    # A quotation running over several paragraphs opens in one and closes in another.
    assert codes("「この髪を抜いてな、この髪を抜いてな、", "“拔这头发，拔这头发，") == []


def test_a_quotation_translated_without_quotation_marks_is_flagged():
    assert codes(QUOTED, "混账，往哪里去！") == ["QUOTE_LOST"]


def test_an_accepted_term_whose_rendering_is_missing_is_flagged():
    found = codes(OPENING, "某日傍晚，有一个家奴在罗生门下等雨停。", terms=[SERVANT])

    assert found == ["GLOSSARY_TERM_MISSING"]


def test_warnings_carry_the_paragraph_id_and_a_readable_message():
    [warning] = check_translation(
        OPENING, "某日傍晚。", source_lang="ja", target_lang="zh-CN", paragraph_id="1a2b3c4d"
    )

    assert warning.paragraph_id == "1a2b3c4d"
    assert "shorter than usual" in warning.message
