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


# -- not in the target language --------------------------------------------------------------

LATE = (
    "なぜかと云うと、この二三年、京都には、地震とか辻風とか火事とか饑饉とか云う災がつづいて起った。"
)
LATE_ZH_CN = "要说为什么，是因为这两三年来，京都接连发生了地震、旋风、火灾、饥荒等灾祸。"
LATE_ZH_TW = "要說為什麼，是因為這兩三年來，京都接連發生了地震、旋風、火災、饑荒等災禍。"
OPENING_ZH_TW = "某日傍晚，有一個僕人在羅生門下等雨停。"
OPENING_EN = "One evening, a servant was waiting for the rain to stop under the Rashomon gate."
OPENING_KO = "어느 날 저녁의 일이다. 한 하인이 라쇼몬 아래에서 비가 그치기를 기다리고 있었다."


def test_a_translation_in_traditional_characters_for_a_simplified_book_is_flagged():
    assert codes(OPENING, OPENING_ZH_TW) == ["WRONG_SCRIPT"]
    assert codes(LATE, LATE_ZH_TW) == ["WRONG_SCRIPT"]


def test_a_translation_in_simplified_characters_for_a_traditional_book_is_flagged():
    assert codes(OPENING, OPENING_ZH, target="zh-TW") == ["WRONG_SCRIPT"]
    assert codes(LATE, LATE_ZH_CN, target="zh-HK") == ["WRONG_SCRIPT"]
    assert codes(LATE, LATE_ZH_TW, target="zh-TW") == []
    assert codes(LATE, LATE_ZH_TW, target="zh-Hant") == []


def test_the_wrong_script_warning_says_which_characters_to_write_how():
    [warning] = check_translation(OPENING, OPENING_ZH_TW, source_lang="ja", target_lang="zh-CN")

    assert warning.message == (
        "the translation is written in Traditional characters (4 of its 4 characters that "
        "differ between the scripts, such as 個→个 僕→仆 羅→罗 門→门); zh-CN is written in "
        "Simplified: rewrite it in Simplified characters"
    )


def test_a_few_characters_of_the_other_script_are_not_flagged():
    # One ambiguous character, or a short line's two-character name, never warns.
    assert codes(OPENING, "某日傍晚，有一个仆人在罗生门後面等雨停。") == []
    assert codes("「張偉です。」", "“我叫張偉。”") == []


def test_a_simplified_line_quoting_a_traditional_name_or_sign_is_not_flagged():
    signs = [
        ("封筒に「陳國華様」と書いた。", "她在信封上写着：“致陳國華先生”，然后把信放进了邮筒里。"),
        (
            "店の看板には「張記牛肉麵」とある。",
            "据说那家店的招牌上写着“張記牛肉麵”，是从台湾来的老师傅开的。",
        ),
        (
            "「鄭成功紀念館」の文字が見えた。",
            "他回过头，看见“鄭成功紀念館”几个大字挂在门口，这才想起自己到了台南。",
        ),
    ]
    for source, translation in signs:
        assert codes(source, translation) == [], translation


def test_corner_brackets_in_a_simplified_translation_are_no_traditional_script():
    assert codes(QUOTED, "「混账，往哪里去！」") == []


def test_the_script_is_not_judged_for_japanese_or_english_targets():
    kyujitai = "或日の暮方の事である。一人の下人が、羅生門の下で雨やみを待つてゐた。"
    assert codes(OPENING, kyujitai, target="ja") == []
    assert codes(OPENING, OPENING_EN, target="en") == []


def test_a_translation_nearly_all_the_source_is_flagged_as_a_copy():
    nearly = OPENING.replace("暮方", "夕方")

    [warning] = check_translation(OPENING, nearly, source_lang="ja", target_lang="en")

    assert warning.code == "SAME_AS_SOURCE"
    assert "nearly all the source text (97% the same)" in warning.message


def test_a_copy_is_judged_after_whitespace_is_normalised():
    spaced = "ある日の暮方の事である。\n一人の下人が、　羅生門の下で 雨やみを待っていた。"
    assert codes(OPENING, spaced, target="en") == ["SAME_AS_SOURCE"]


def test_a_short_line_nearly_kept_as_it_is_is_no_copy():
    assert codes("「OK！」と彼は言った。", "“OK！”他说。", target="zh-CN") == []
    assert codes("Hello, world!", "Hello, world.", target="fr") == []


def test_a_translation_in_a_third_language_is_flagged():
    assert codes(OPENING, OPENING_EN) == ["WRONG_LANGUAGE", "LENGTH_OUT_OF_BAND"]
    assert codes(OPENING, OPENING_KO) == ["WRONG_LANGUAGE"]
    assert codes(OPENING, OPENING_EN, target="ja") == ["WRONG_LANGUAGE"]
    assert codes(OPENING, OPENING_ZH, target="en") == ["WRONG_LANGUAGE", "LENGTH_OUT_OF_BAND"]


def test_the_wrong_language_warning_names_the_letters_found():
    [warning] = check_translation(OPENING, OPENING_KO, source_lang="ja", target_lang="zh-CN")

    assert warning.message == (
        "the translation is mostly Hangul (33 of its 33 letters), not zh-CN: translate it into "
        "zh-CN"
    )


def test_latin_names_in_a_chinese_translation_are_no_third_language():
    source = "Visual Studio Codeを開いて、README.mdを書き始めた。"
    assert codes(source, "他打开 Visual Studio Code，开始写 README.md。") == []
    assert codes("彼はスタジオに行った。", "他去了 Visual Studio 的办公室。") == []


def test_a_source_in_latin_letters_kept_in_them_is_no_third_language():
    # Song lyrics quoted in English in a Japanese novel, kept (with a change) in the translation.
    lyrics = "Happy birthday to you, happy birthday dear Yuki, happy birthday to you."
    kept = "Happy birthday to you, happy birthday dear Yuki～ happy birthday to you!"
    assert codes(lyrics, kept) == ["SAME_AS_SOURCE"]
    assert codes(lyrics, "Happy birthday, dear Yuki!") == []


def test_leftover_kana_is_one_warning_not_a_third_language_or_a_script():
    japanese = "ある夕方のことだった。一人の下人が羅生門の下でじっと雨がやむのを待っていた。"
    traditional_and_kana = "某日傍晚，有一個僕人在羅生門下等雨やみ。"

    assert codes(OPENING, japanese) == ["UNTRANSLATED_KANA"]
    assert codes(OPENING, traditional_and_kana) == ["UNTRANSLATED_KANA"]
    assert codes(OPENING, traditional_and_kana.replace("やみ", "停")) == ["WRONG_SCRIPT"]
