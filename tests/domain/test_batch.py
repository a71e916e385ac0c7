import pytest
from pydantic import ValidationError

from honyaku.domain.batch import MAX_BATCH_ITEMS, BatchItem, prefix_matches, validate_batch
from honyaku.domain.book import Paragraph

ASSIGNED = {
    "aaaaaaaa": Paragraph("aaaaaaaa", 0, "山路を登りながら、こう考えた。"),
    "bbbbbbbb": Paragraph("bbbbbbbb", 2, "智に働けば角が立つ。"),
    "cccccccc": Paragraph("cccccccc", 3, "情に棹させば流される。"),
}


def item(pid: str, text: str = "译文。", prefix: str = "") -> BatchItem:
    return BatchItem(paragraph_id=pid, translated_text=text, original_text_prefix=prefix)


def codes(problems) -> list[str]:
    return [p.code for p in problems]


def test_a_batch_of_assigned_ids_with_text_is_accepted():
    batch = [item("aaaaaaaa", prefix="山路を"), item("bbbbbbbb"), item("cccccccc")]
    assert validate_batch(batch, ASSIGNED) == []


def test_seed_004_submitting_a_and_d_when_a_b_c_are_assigned_is_rejected_naming_d():
    problems = validate_batch([item("aaaaaaaa"), item("dddddddd")], ASSIGNED)
    assert codes(problems) == ["PARAGRAPH_NOT_ASSIGNED"]
    assert "段落 dddddddd 不在当前任务分配范围内" in problems[0].message


def test_every_unassigned_id_is_named():
    problems = validate_batch([item("dddddddd"), item("eeeeeeee")], ASSIGNED)
    assert [p.paragraph_id for p in problems] == ["dddddddd", "eeeeeeee"]


def test_an_empty_batch_is_rejected():
    assert codes(validate_batch([], ASSIGNED)) == ["EMPTY_BATCH"]


def test_a_batch_over_the_limit_is_rejected_with_the_limit_named():
    problems = validate_batch([item("aaaaaaaa")] * (MAX_BATCH_ITEMS + 1), ASSIGNED)
    assert codes(problems) == ["BATCH_TOO_LARGE"]
    assert str(MAX_BATCH_ITEMS) in problems[0].message


def test_duplicate_ids_are_rejected():
    problems = validate_batch([item("aaaaaaaa"), item("aaaaaaaa", "别的")], ASSIGNED)
    assert codes(problems) == ["DUPLICATE_PARAGRAPH_ID"]


def test_blank_and_multiline_texts_are_rejected():
    problems = validate_batch([item("aaaaaaaa", "  "), item("bbbbbbbb", "一\n二")], ASSIGNED)
    assert codes(problems) == ["BLANK_TEXT", "LINE_BREAK_IN_TEXT"]


def test_a_prefix_that_does_not_start_the_paragraph_is_rejected_as_misplaced():
    problems = validate_batch([item("aaaaaaaa", prefix="智に働けば")], ASSIGNED)
    assert codes(problems) == ["PREFIX_MISMATCH"]
    assert "山路を登りながら" in problems[0].message


def test_prefixes_ignore_width_spacing_and_a_trailing_ellipsis():
    assert prefix_matches("山路を 登り…", "山路を登りながら、こう考えた。")
    assert prefix_matches("ＡＢＣ", "ABC def")
    assert not prefix_matches("山道", "山路を登りながら")


def test_an_item_with_index_instead_of_paragraph_id_gets_its_own_error():
    with pytest.raises(ValidationError) as caught:
        BatchItem.model_validate({"index": 0, "translated_text": "译文"})
    error = caught.value.errors()[0]
    assert error["type"] == "INDEX_NOT_ALLOWED"
    assert "paragraph_id" in error["msg"]
    assert "[ID: …]" in error["msg"]


# -- a wrong id gets a hint ------------------------------------------------------------------

HINTED = {
    "1a2b3c4d": Paragraph("1a2b3c4d", 0, "山路を登りながら、こう考えた。"),
    "9f8e7d6c": Paragraph("9f8e7d6c", 1, "智に働けば角が立つ。"),
    "1a2b3c5e": Paragraph("1a2b3c5e", 2, "情に棹させば流される。"),
}


def test_a_miscopied_id_whose_prefix_fits_one_near_id_is_refused_with_a_hint():
    problems = validate_batch([item("1a2b3d4d", prefix="山路を")], HINTED)

    assert codes(problems) == ["PARAGRAPH_NOT_ASSIGNED"]
    assert problems[0].message.endswith("did you mean 1a2b3c4d?")


def test_a_dropped_character_is_within_two_edits():
    problems = validate_batch([item("1a2bc4d", prefix="山路")], HINTED)

    assert "did you mean 1a2b3c4d?" in problems[0].message


def test_no_hint_when_two_near_ids_fit_the_prefix():
    # Both 1a2b3c4d and 1a2b3c5e are within two edits of 1a2b3c4e; an empty prefix fits both.
    problems = validate_batch([item("1a2b3c4e")], HINTED)

    assert "did you mean" not in problems[0].message


def test_the_prefix_picks_the_one_near_id_it_starts():
    problems = validate_batch([item("1a2b3c4e", prefix="情に棹")], HINTED)

    assert problems[0].message.endswith("did you mean 1a2b3c5e?")


def test_no_hint_for_a_near_id_whose_source_the_prefix_does_not_start():
    problems = validate_batch([item("1a2b3d4d", prefix="智に働けば")], HINTED)

    assert "did you mean" not in problems[0].message


def test_no_hint_for_an_id_of_another_paragraph_of_the_book():
    problems = validate_batch([item("1a2b3d4d", prefix="山路を")], HINTED, in_book={"1a2b3d4d"})

    assert codes(problems) == ["PARAGRAPH_NOT_ASSIGNED"]
    assert "did you mean" not in problems[0].message


def test_a_hinted_batch_is_still_refused_whole():
    batch = [item("9f8e7d6c"), item("1a2b3d4d", prefix="山路を")]

    assert codes(validate_batch(batch, HINTED)) == ["PARAGRAPH_NOT_ASSIGNED"]
