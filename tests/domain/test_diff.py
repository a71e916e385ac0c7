"""Two versions compared as a reader would: Chinese and Japanese by the character, other
scripts by the word."""

from __future__ import annotations

from honyaku.domain.diff import Change, DiffPart, diff_texts

SAME, ADDED, REMOVED = Change.SAME, Change.ADDED, Change.REMOVED


def test_chinese_versions_differ_by_the_character():
    parts = diff_texts("某日傍晚，一个仆人。", "某天傍晚，一名仆人。")

    assert parts == [
        DiffPart(SAME, "某"),
        DiffPart(REMOVED, "日"),
        DiffPart(ADDED, "天"),
        DiffPart(SAME, "傍晚，一"),
        DiffPart(REMOVED, "个"),
        DiffPart(ADDED, "名"),
        DiffPart(SAME, "仆人。"),
    ]


def test_english_versions_differ_by_the_whole_word():
    parts = diff_texts("One evening a servant waited.", "One night a servant waited.")

    assert [p for p in parts if p.change is not SAME] == [
        DiffPart(REMOVED, "evening"),
        DiffPart(ADDED, "night"),
    ]


def test_what_is_removed_and_added_rebuilds_both_texts():
    old, new = "下人は雨やみを待っていた。", "一人の下人が、雨やみを待っていた。"
    parts = diff_texts(old, new)

    assert "".join(p.text for p in parts if p.change is not ADDED) == old
    assert "".join(p.text for p in parts if p.change is not REMOVED) == new


def test_the_same_text_is_one_unchanged_part():
    assert diff_texts("同じ。", "同じ。") == [DiffPart(SAME, "同じ。")]
