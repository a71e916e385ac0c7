"""Pairing the paragraphs of a new edition with the book's: equal, moved, edited, split."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from honyaku.domain.alignment import align_paragraphs, alignment_key

OLD = [
    "吾輩は猫である。名前はまだ無い。",
    "どこで生れたかとんと見当がつかぬ。",
    "何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。",
    "吾輩はここで始めて人間というものを見た。",
    "しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。",
]


def test_an_unchanged_text_pairs_every_paragraph_with_itself():
    alignment = align_paragraphs(OLD, OLD)

    assert alignment.pairs == {i: i for i in range(len(OLD))}
    assert alignment.similar == frozenset()


def test_width_and_spacing_are_no_change():
    assert alignment_key("ＡＢＣ　１２３ x") == alignment_key("abc123x")
    new = ["\u3000" + OLD[0], OLD[1].replace("。", " 。"), *OLD[2:]]

    assert align_paragraphs(OLD, new).similar == frozenset()


def test_a_paragraph_edited_by_a_few_characters_is_similar_not_new():
    new = [OLD[0], "どこで生れたか、とんと見当がつかない。", *OLD[2:]]

    alignment = align_paragraphs(OLD, new)

    assert alignment.pairs[1] == 1
    assert alignment.similar == {1}


def test_a_paragraph_split_in_two_gives_its_larger_part_the_pair():
    new = [
        *OLD[:2],
        "何でも薄暗いじめじめした所で",
        "ニャーニャー泣いていた事だけは記憶している。",
        *OLD[3:],
    ]

    alignment = align_paragraphs(OLD, new)

    assert alignment.pairs[3] == 2
    assert 2 not in alignment.pairs
    assert alignment.similar == {3}


def test_a_short_line_rewritten_is_not_taken_for_an_edit():
    old = ["「はい」", *OLD]
    new = ["「いいえ」", *OLD]

    assert 0 not in align_paragraphs(old, new).pairs


def test_a_moved_block_is_found_where_it_went():
    new = [OLD[3], OLD[4], OLD[0], OLD[1], OLD[2]]

    assert align_paragraphs(OLD, new).pairs == {0: 3, 1: 4, 2: 0, 3: 1, 4: 2}


def test_an_edit_inside_a_moved_block_is_found_beside_its_neighbours():
    edited = OLD[4].replace("一番", "いちばん")
    new = [OLD[3], edited, OLD[0], OLD[1], OLD[2]]

    alignment = align_paragraphs(OLD, new)

    assert alignment.pairs[1] == 4
    assert alignment.similar == {1}


def test_a_text_with_nothing_in_common_pairs_nothing():
    new = ["It was a bright cold day in April.", "The clocks were striking thirteen."]

    assert align_paragraphs(OLD, new).pairs == {}


@given(st.lists(st.text(min_size=1, max_size=12), max_size=30), st.data())
def test_every_pair_is_one_to_one_and_equal_texts_are_never_called_similar(old, data):
    new = data.draw(st.permutations(old)) + data.draw(st.lists(st.text(max_size=12), max_size=5))

    alignment = align_paragraphs(old, new)

    assert len(set(alignment.pairs.values())) == len(alignment.pairs)
    for j, i in alignment.pairs.items():
        equal = alignment_key(new[j]) == alignment_key(old[i])
        assert equal != (j in alignment.similar)
