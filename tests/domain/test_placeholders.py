"""Inline marks as a model reads them (numbered placeholders) and as it writes them back:
normalised where models commonly slip, refused where it lost, repeated, reordered or invented
one, nothing guessed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from honyaku.domain.batch import BatchItem, read_batch, validate_batch
from honyaku.domain.book import Paragraph, manual_version
from honyaku.domain.placeholders import (
    MARKUP_MISMATCH,
    MarkupMismatch,
    PlacedMark,
    ReadText,
    RubyChoice,
    carried_marks,
    marked_translation,
    read_marked,
    shown_line,
    stripped,
)
from honyaku.domain.sources import InlineMark
from honyaku.errors import UserError

NOTE_TYPE = ("{http://www.idpf.org/2007/ops}type", "noteref")
MANUAL = "Run lb config as root; see The Basics1 now."


def _at(text: str, words: str) -> tuple[int, int]:
    start = text.index(words)
    return start, start + len(words)


MANUAL_MARKS = (
    InlineMark("tt", *_at(MANUAL, "lb config")),
    InlineMark("a", *_at(MANUAL, "The Basics"), (("href", "basics.xhtml#b"),)),
    InlineMark("a", *_at(MANUAL, "1"), (("href", "#fn1"), NOTE_TYPE)),
    InlineMark("img", MANUAL.index(" now"), MANUAL.index(" now"), (("src", "i.png"),)),
)
MANUAL_LINE = shown_line(MANUAL, MANUAL_MARKS, RubyChoice.HINTS)
NOVEL = "彼は強敵と本気で戦った。"
NOVEL_MARKS = (
    InlineMark("ruby", 2, 4, reading="とも"),
    InlineMark("rb", 2, 4),
    InlineMark("em", 5, 7, (("class", "sesame_dot"),)),
    InlineMark("ruby", 5, 7, reading="マジ"),
)


def test_marks_inside_a_sentence_are_numbered_pairs_and_singles_in_the_order_they_open():
    assert MANUAL_LINE.text == "Run ⟦1⟧lb config⟦/1⟧ as root; see ⟦2⟧The Basics⟦/2⟧⟦3⟧⟦4⟧ now."
    assert [(p.number, p.paired, p.tags) for p in MANUAL_LINE.placeholders] == [
        (1, True, ("tt",)),
        (2, True, ("a",)),
        (3, False, ("a",)),
        (4, False, ("img",)),
    ]
    assert MANUAL_LINE.placeholders[2].kept == "1"  # a note's number stays as the book wrote it


def test_what_holds_the_whole_line_anchors_at_its_ends_and_bare_ids_stay_out_of_the_text():
    text = "The whole line."
    marks = (
        InlineMark("span", 0, len(text), (("class", "sentence"),)),
        InlineMark("a", 0, 0, (("id", "p1"),)),
        InlineMark("span", 4, 9, (("id", "s2"),)),
        InlineMark("br", len(text), len(text)),
    )

    line = shown_line(text, marks, RubyChoice.HINTS)

    assert line.text == text
    assert not line


@pytest.mark.parametrize(
    ("ruby", "shown"),
    [
        (RubyChoice.HINTS, "彼は強敵《とも》と⟦1⟧本気⟦/1⟧《マジ》で戦った。"),
        (RubyChoice.KEEP, "彼は⟦1⟧強敵⟦/1⟧《とも》と⟦2⟧本気⟦/2⟧《マジ》で戦った。"),
        (RubyChoice.DROP, "彼は強敵と⟦1⟧本気⟦/1⟧で戦った。"),
    ],
)
def test_a_ruby_reading_is_a_hint_after_its_base_and_its_base_a_pair_only_where_ruby_is_kept(
    ruby, shown
):
    assert shown_line(NOVEL, NOVEL_MARKS, ruby).text == shown


def test_marks_over_the_same_words_share_one_pair():
    line = shown_line(NOVEL, NOVEL_MARKS, RubyChoice.KEEP)

    assert line.placeholders[1].marks == (2, 3)
    assert line.placeholders[1].tags == ("em", "ruby")


def test_a_translation_that_keeps_every_placeholder_is_read_clean_with_its_marks_beside_it():
    read = read_marked("以 root 运行⟦1⟧lb config⟦/1⟧；参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧。", MANUAL_LINE, MANUAL)

    assert read == ReadText(
        "以 root 运行lb config；参见基础1。",
        (
            PlacedMark((0,), 9, 18),
            PlacedMark((1,), 21, 23),
            PlacedMark((2,), 23, 24),
            PlacedMark((3,), 24, 24),
        ),
    )


@pytest.mark.parametrize(
    "written",
    [
        "运行[[1]]lb config[[/1]]，参见【2】基础【/2】⟦3⟧⟦4⟧。",
        "运行⟦ 1 ⟧lb config⟦／1⟧，参见⟦２⟧基础⟦/２⟧⟦3⟧⟦4⟧。",
        "运行［［1］］lb config［［/1］］，参见〚2〛基础〚/2〛⟦3⟧⟦4⟧。",
    ],
)
def test_brackets_models_write_for_placeholders_are_read_as_the_placeholders(written):
    read = read_marked(written, MANUAL_LINE, MANUAL)

    assert isinstance(read, ReadText)
    assert read.text == "运行lb config，参见基础1。"


def test_a_spelling_the_source_itself_writes_is_text_not_a_placeholder():
    source = "見出し【1】と本文"
    line = shown_line(source, (InlineMark("em", 7, 9),), RubyChoice.HINTS)

    assert line.text == "見出し【1】と⟦1⟧本文⟦/1⟧"
    read = read_marked("标题【1】和⟦1⟧正文⟦/1⟧", line, source)
    assert isinstance(read, ReadText)
    assert read.text == "标题【1】和正文"


def test_pairs_that_end_together_may_close_in_either_order_and_a_copied_reading_is_dropped():
    line = shown_line(NOVEL, NOVEL_MARKS, RubyChoice.KEEP)
    inner = shown_line("あいう", (InlineMark("em", 0, 2), InlineMark("b", 1, 2)), RubyChoice.HINTS)

    assert read_marked("⟦1⟧强敌⟦/1⟧《とも》和⟦2⟧认真⟦/2⟧", line, NOVEL) == ReadText(
        "强敌和认真", (PlacedMark((0,), 0, 2), PlacedMark((2, 3), 3, 5))
    )
    assert read_marked("⟦1⟧a⟦2⟧b⟦/1⟧⟦/2⟧c", inner, "あいう") == ReadText(
        "abc", (PlacedMark((0,), 0, 2), PlacedMark((1,), 1, 2))
    )


INVENTED = "⟦9⟧ (not in the line)"
CROSSED = "⟦/1⟧ closes while ⟦2⟧, opened inside it, is still open"


@pytest.mark.parametrize(
    ("written", "missing", "extra", "broken"),
    [
        ("运行lb config⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧。", ["⟦1⟧"], [], []),
        ("运行lb config，参见⟦2⟧基础⟦/2⟧⟦3⟧。", ["⟦1⟧…⟦/1⟧", "⟦4⟧"], [], []),
        ("运行⟦1⟧lb config⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦3⟧⟦4⟧。", [], ["⟦3⟧ ×2"], []),
        ("运行⟦1⟧lb⟦/1⟧⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧⟦9⟧。", [], ["⟦/1⟧ ×2", INVENTED], []),
        ("运行⟦1⟧lb⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦/3⟧⟦4⟧。", [], [], ["⟦/3⟧ (⟦3⟧ stands alone)"]),
        ("运行⟦/1⟧lb⟦1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧。", [], [], ["⟦/1⟧ comes before ⟦1⟧"]),
        ("运行⟦1⟧lb⟦2⟧基础⟦/1⟧⟦3⟧⟦/2⟧⟦4⟧。", [], [], [CROSSED]),
        ("运行⟦1⟧ ⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧。", [], [], ["⟦1⟧…⟦/1⟧ holds no text"]),
        ("运行⟦1⟧lb⟦/1⟧，参见⟦2⟧基础⟦3⟧⟦/2⟧⟦4⟧。", [], [], ["⟦3⟧ inside a link"]),
        ("运行⟦1⟧lb⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧⟦。", [], [], ["a ⟦ or ⟧ that is no placeholder"]),
    ],
)  # fmt: skip
def test_a_placeholder_dropped_repeated_reordered_or_invented_is_refused_naming_it(
    written, missing, extra, broken
):
    found = read_marked(written, MANUAL_LINE, MANUAL)

    assert found == MarkupMismatch(tuple(missing), tuple(extra), tuple(broken))
    message = found.message("1a2b3c4d", MANUAL_LINE)
    assert message.startswith("Paragraph 1a2b3c4d: its placeholders do not match")
    assert "The line has ⟦1⟧…⟦/1⟧ ⟦2⟧…⟦/2⟧ ⟦3⟧ ⟦4⟧" in message


def test_a_placeholder_in_a_line_that_has_none_is_invented():
    line = shown_line("ただの文。", (), RubyChoice.HINTS)

    assert read_marked("只是⟦1⟧句子。", line, "ただの文。") == MarkupMismatch(
        extra=("⟦1⟧ (not in the line)",)
    )
    assert read_marked("只是【1】句子。", line, "ただの文。") == ReadText("只是【1】句子。")


def test_a_source_that_writes_the_brackets_itself_is_shown_and_read_as_it_is():
    source = "数学の⟦x⟧記号"
    line = shown_line(source, (InlineMark("em", 0, 2),), RubyChoice.HINTS)

    assert (line.text, line.unchecked) == (source, True)
    assert read_marked("数学的⟦x⟧符号", line, source) == ReadText("数学的⟦x⟧符号")


def test_a_translation_is_written_back_with_the_placeholders_it_was_read_with():
    written = "以root运行⟦1⟧lb config⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧。"
    read = read_marked(written, MANUAL_LINE, MANUAL)

    assert isinstance(read, ReadText)
    assert marked_translation(read.text, read.marks, MANUAL_LINE) == written


def test_a_text_whose_markup_is_dropped_keeps_its_words_and_note_numbers_only():
    assert stripped("运行⟦1⟧lb config，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦9⟧⟦", MANUAL_LINE, MANUAL) == (
        "运行lb config，参见基础1"
    )


def test_marks_follow_their_words_through_a_replacement():
    marks = (PlacedMark((0,), 1, 3), PlacedMark((1,), 4, 6), PlacedMark((2,), 3, 3))

    assert carried_marks("aXXbYYc", "aZbYYc", marks) == (
        PlacedMark((0,), 1, 2),
        PlacedMark((1,), 3, 5),
        PlacedMark((2,), 2, 2),
    )
    gone = carried_marks("aXXbYYc", "abYYc", marks)  # the first pair's words are gone
    assert [m.marks for m in gone] == [(1,), (2,)]


ASSIGNED = {"aaaaaaaa": Paragraph("aaaaaaaa", 0, MANUAL, marks=MANUAL_MARKS)}


def test_a_batch_with_a_mismatch_is_refused_with_its_own_code_and_read_clean_once_right():
    wrong = BatchItem(paragraph_id="aaaaaaaa", translated_text="运行lb config。")
    right = BatchItem(
        paragraph_id="aaaaaaaa", translated_text="运行⟦1⟧lb config⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧。"
    )
    markup = {"aaaaaaaa": MANUAL_LINE}

    problems = validate_batch([wrong], ASSIGNED, markup=markup)
    assert [(p.code, p.paragraph_id) for p in problems] == [(MARKUP_MISMATCH, "aaaaaaaa")]
    assert validate_batch([right], ASSIGNED, markup=markup) == []
    read = read_batch([right], ASSIGNED, markup)
    assert (read.texts, read.lost) == ({"aaaaaaaa": "运行lb config，参见基础1。"}, frozenset())
    dropped = read_batch([wrong], ASSIGNED, markup)  # a batch let through on a last attempt
    assert (dropped.texts, dropped.marks, dropped.lost) == (
        {"aaaaaaaa": "运行lb config。"},
        {},
        frozenset({"aaaaaaaa"}),
    )


def test_a_version_written_by_hand_is_checked_like_a_model_s_unless_it_writes_no_placeholder():
    paragraph = ASSIGNED["aaaaaaaa"]

    read, lost = manual_version("运行⟦1⟧lb⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧。", MANUAL_LINE, paragraph)
    assert (read.text, lost) == ("运行lb，参见基础1。", False)
    assert manual_version("运行 lb config。", MANUAL_LINE, paragraph)[1] is True
    with pytest.raises(UserError, match=r"missing: ⟦4⟧"):
        manual_version("运行⟦1⟧lb⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧。", MANUAL_LINE, paragraph)


@st.composite
def _marked_texts(draw: st.DrawFn) -> tuple[str, tuple[InlineMark, ...]]:
    """A text with nested marks over it, as a document's elements make them."""
    text = draw(st.text(alphabet="あいうえおかきくけこ", min_size=4, max_size=30))
    marks: list[InlineMark] = []

    def spans(start: int, end: int, depth: int) -> None:
        position = start
        while position < end and depth < 3 and draw(st.booleans()):
            first = draw(st.integers(position, end))
            last = draw(st.integers(first, end))
            tag = draw(st.sampled_from(["em", "strong", "code", "img", "span"]))
            if tag == "img":
                last = first
            attributes = (("class", "c"),) if tag == "span" else ()
            marks.append(InlineMark(tag, first, last, attributes))
            spans(first, last, depth + 1)
            position = last + 1

    spans(0, len(text), 0)
    return text, tuple(sorted(marks, key=lambda m: (m.start, -m.end)))


@given(_marked_texts())
def test_a_line_sent_back_as_it_was_shown_reads_back_as_the_source_with_its_marks(marked):
    text, marks = marked
    line = shown_line(text, marks, RubyChoice.HINTS)

    read = read_marked(line.text, line, text)

    assert isinstance(read, ReadText)
    assert read.text == text
    assert marked_translation(read.text, read.marks, line) == line.text


def test_a_prefix_copied_from_the_work_line_with_its_placeholders_still_anchors_the_text():
    prefixed = BatchItem(
        paragraph_id="aaaaaaaa",
        translated_text="运行⟦1⟧lb config⟦/1⟧，参见⟦2⟧基础⟦/2⟧⟦3⟧⟦4⟧。",
        original_text_prefix="Run ⟦1⟧lb conf",
    )

    assert validate_batch([prefixed], ASSIGNED, markup={"aaaaaaaa": MANUAL_LINE}) == []
