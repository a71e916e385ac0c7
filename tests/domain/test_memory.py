"""The translation memory's index: the same source through a dictionary, nearly the same
through prefix filtering, which finds exactly what comparing every pair would."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel

from honyaku.domain.memory import (
    MIN_MEMORY_CHARS,
    NEARLY_SAME,
    MemoryIndex,
    Remembered,
    choose_translation,
    memory_key,
)


def remembered(n: int, source: str, translation: str = "", book: str = "b1") -> Remembered:
    return Remembered(book, f"{n:08x}", 1, n, source, translation or f"译{n}", order=n)


def test_the_same_source_is_found_whatever_its_width_spaces_and_case():
    index = MemoryIndex()
    index.put([remembered(1, "桜の花びらが風に舞っていた。ABC")])

    [found] = index.recall("桜の花びらが 風に舞っていた。ａｂｃ")

    assert found.exact
    assert found.remembered.paragraph_id == "00000001"


def test_a_nearly_same_source_is_found_with_how_alike_and_a_different_one_is_not():
    index = MemoryIndex()
    index.put(
        [
            remembered(1, "真白は窓の外をじっと見ていた。"),
            remembered(2, "空太は猫を拾った。それだけだ。"),
        ]
    )

    [found] = index.recall("真白は窓の外をじっと見つめていた。")

    assert not found.exact
    assert found.similarity >= NEARLY_SAME
    assert found.remembered.paragraph_id == "00000001"
    assert index.recall("龍之介はキーボードを叩いていた。") == []


def test_short_lines_are_neither_remembered_nor_looked_up():
    index = MemoryIndex()
    index.put([remembered(1, "「はい」"), remembered(2, "x" * MIN_MEMORY_CHARS)])

    assert index.recall("「はい」") == []
    assert len(index) == 1


def test_a_paragraph_written_again_is_remembered_by_its_latest_translation_only():
    index = MemoryIndex()
    index.put([remembered(1, "桜の花びらが風に舞っていた。", "旧译")])
    index.put([remembered(1, "桜の花びらが風に舞っていた。", "新译")])

    assert [r.translation for r in index.exact("桜の花びらが風に舞っていた。")] == ["新译"]


def test_what_a_filter_does_not_allow_is_not_recalled():
    index = MemoryIndex()
    index.put([remembered(1, "桜の花びらが風に舞っていた。", book="b2")])

    assert index.recall("桜の花びらが風に舞っていた。", lambda r: r.book_id == "b1") == []


def test_the_translation_most_agree_on_is_written_and_of_a_tie_the_latest():
    found = [
        remembered(1, "s", "甲"),
        remembered(2, "s", "乙"),
        remembered(3, "s", "甲"),
        remembered(4, "s", "丙"),
    ]

    assert choose_translation(found) == "甲"
    assert choose_translation(found[1:2] + found[3:]) == "丙"
    assert choose_translation([]) is None


ALPHABET = "あいうえおかきくけこ花風"


@st.composite
def near_query(draw: st.DrawFn, sources: list[str]) -> str:
    """One of ``sources`` with up to three characters changed, added or taken out."""
    text = list(draw(st.sampled_from(sources)))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text) - 1))
        match draw(st.sampled_from(("change", "add", "take"))):
            case "change":
                text[at] = draw(st.sampled_from(ALPHABET))
            case "add":
                text.insert(at, draw(st.sampled_from(ALPHABET)))
            case "take" if len(text) > 1:
                del text[at]
    return "".join(text)


@settings(max_examples=80, deadline=None)
@given(st.data(), st.lists(st.text(ALPHABET, min_size=8, max_size=30), min_size=1, max_size=30))
def test_the_index_finds_every_nearly_same_source_comparing_every_pair_would(data, sources):
    index = MemoryIndex()
    index.put([remembered(n, source) for n, source in enumerate(sources)])
    query = data.draw(near_query(sources))

    found = {r.remembered.paragraph_id for r in index.recall(query, limit=len(sources))}

    key = memory_key(query)
    expected = {
        f"{n:08x}"
        for n, source in enumerate(sources)
        if len(key) >= MIN_MEMORY_CHARS
        and len(memory_key(source)) >= MIN_MEMORY_CHARS
        and Indel.normalized_similarity(key, memory_key(source)) >= NEARLY_SAME
    }
    assert found == expected
