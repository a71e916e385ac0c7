"""Glossary entries: matching in text (widths, case, aliases, words) and contradictions."""

from __future__ import annotations

import pytest

from honyaku.domain.glossary import (
    EntryStatus,
    GlossaryEntry,
    GlossaryMatcher,
    clean_entry,
    contradiction,
    search_entries,
)

ALICE = GlossaryEntry("アリス", "爱丽丝", kind="character", aliases=("アリスちゃん",))
TOME = GlossaryEntry("魔導書", "魔导书")
AL = GlossaryEntry("Al", "阿尔", kind="character")
WIDE = GlossaryEntry("ＡＢＣ商会", "ABC商会", kind="organization")


def sources(entries: list[GlossaryEntry]) -> list[str]:
    return [e.source for e in entries]


def test_the_entries_in_texts_are_found_once_each_in_the_glossarys_order():
    matcher = GlossaryMatcher([ALICE, TOME, AL, WIDE])

    found = matcher.find(["魔導書を開いた。", "アリスは笑った。魔導書がまた光った。"])

    assert sources(found) == ["アリス", "魔導書"]


def test_no_entry_spans_two_texts():
    assert GlossaryMatcher([TOME]).find(["魔導", "書を開いた。"]) == []


def test_widths_and_case_do_not_matter():
    matcher = GlossaryMatcher([WIDE, GlossaryEntry("Excalibur", "王者之剑")])

    found = matcher.find(["abc商会の馬車が来た。", "EXCALIBUR を抜く。"])

    assert sources(found) == ["ＡＢＣ商会", "Excalibur"]


def test_half_width_katakana_find_full_width_entries():
    assert sources(GlossaryMatcher([ALICE]).find(["ｱﾘｽが来た。"])) == ["アリス"]


def test_an_alias_finds_its_entry_once():
    matcher = GlossaryMatcher([ALICE])

    assert matcher.find(["アリスちゃんとアリス。"]) == [ALICE]


def test_latin_keys_match_whole_words_only():
    matcher = GlossaryMatcher([AL])

    assert matcher.find(["Also, the alley was dark."]) == []
    assert matcher.find(["Al said nothing.", "「Alだ」"]) == [AL]


def test_an_empty_glossary_finds_nothing():
    assert GlossaryMatcher([]).find(["アリス"]) == []


def test_a_proposal_rendering_an_accepted_entry_differently_contradicts_it():
    proposal = GlossaryEntry("アリス", "艾莉丝", status=EntryStatus.PROPOSED)

    assert contradiction(proposal, ALICE)
    assert not contradiction(GlossaryEntry("アリス", "爱丽丝"), ALICE)
    assert not contradiction(
        proposal, GlossaryEntry("アリス", "亚丽丝", status=EntryStatus.PROPOSED)
    )
    assert not contradiction(proposal, None)


def test_clean_entry_trims_and_refuses_what_cannot_be_an_entry():
    cleaned = clean_entry(
        GlossaryEntry(" アリス ", " 爱丽丝 ", "  主人公\n ", " Character ", ("アリス", " ア "))
    )

    assert cleaned == GlossaryEntry("アリス", "爱丽丝", "主人公", "character", ("ア",))
    with pytest.raises(ValueError, match="target is blank"):
        clean_entry(GlossaryEntry("アリス", " "))
    with pytest.raises(ValueError, match="one non-empty line"):
        clean_entry(GlossaryEntry("", "爱丽丝"))


def test_a_search_finds_entries_by_part_of_a_field_or_in_a_sentence():
    entries = [ALICE, TOME, WIDE]

    assert search_entries(entries, "魔導") == [TOME]
    assert search_entries(entries, "爱丽") == [ALICE]
    assert search_entries(entries, "アリスちゃんが魔導書を読む") == [ALICE, TOME]
