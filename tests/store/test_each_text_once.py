"""No paragraph holds the same text twice: a text written again selects the version that
holds it, whoever writes it (a job's batch, a version by hand, a replacement)."""

from __future__ import annotations

from honyaku.domain import BookDraft, ChapterDraft, TranslationKind
from honyaku.domain.edition import match_edition
from honyaku.domain.quality import QualityWarning
from honyaku.store import EditionFile

from ..conftest import novel

T = TranslationKind.TRANSLATION


def test_a_batch_written_again_word_for_word_adds_no_version(library, book_id):
    first, second = library.whole_book(book_id).chapters[0].work_paragraphs[:2]
    batch = {first.id: "他走了。", second.id: "她来了。"}
    added = library.add_translations(book_id, batch, kind=T, model="m", job_id="0a0b0c0d")

    again = library.add_translations(book_id, batch, kind=T, model="m", job_id="0a0b0c0d")

    assert (added, again) == ({first.id, second.id}, set())
    for pid, text in batch.items():
        assert [(v.text, v.selected) for v in library.versions(book_id, pid)] == [(text, True)]


def test_only_the_texts_a_paragraph_does_not_hold_become_new_versions(library, book_id):
    first, second = library.whole_book(book_id).chapters[0].work_paragraphs[:2]
    library.add_translations(book_id, {first.id: "他走了。", second.id: "她来了。"}, kind=T)

    added = library.add_translations(book_id, {first.id: "他走了。", second.id: "她走了。"}, kind=T)

    assert added == {second.id}
    assert len(library.versions(book_id, first.id)) == 1
    assert [(v.text, v.selected) for v in library.versions(book_id, second.id)] == [
        ("她来了。", False),
        ("她走了。", True),
    ]


def test_a_manual_version_equal_to_an_earlier_one_selects_that_one(library, book_id):
    paragraph = library.whole_book(book_id).chapters[0].work_paragraphs[0]
    library.add_translations(book_id, {paragraph.id: "他走了。"}, kind=T, model="m")
    library.add_translations(book_id, {paragraph.id: "他离开了。"}, kind=TranslationKind.POLISH)

    # Written by hand as people type: with spaces around, which every manual version loses
    versions = library.add_manual_version(book_id, paragraph.id, "  他走了。\n")

    assert [(v.text, v.kind, v.model, v.selected) for v in versions] == [
        ("他走了。", TranslationKind.TRANSLATION, "m", True),
        ("他离开了。", TranslationKind.POLISH, None, False),
    ]
    assert library.paragraphs(book_id, [paragraph.id])[paragraph.id].translation == "他走了。"


def test_a_text_selected_again_keeps_its_own_quality_flags(stores, library, book_id):
    paragraph = library.whole_book(book_id).chapters[0].work_paragraphs[0]
    kana = QualityWarning("KANA_LEFT", "kana left in the translation", paragraph.id)
    library.add_translations(
        book_id, {paragraph.id: "他は走了。"}, kind=T, flags={paragraph.id: [kana]}
    )
    library.add_translations(book_id, {paragraph.id: "他走了。"}, kind=T)
    assert stores.quality.flagged(book_id) == []

    other = QualityWarning("GLOSSARY_MISSING", "a glossary rendering is missing", paragraph.id)
    library.add_translations(
        book_id, {paragraph.id: "他は走了。"}, kind=T, flags={paragraph.id: [kana, other]}
    )

    [flagged] = stores.quality.flagged(book_id)
    assert [w.code for w in flagged.warnings] == ["KANA_LEFT"]
    assert len(library.versions(book_id, paragraph.id)) == 2


def test_a_stale_version_written_again_for_the_new_source_is_fresh_and_not_doubled(
    stores, library, book_id
):
    book = library.whole_book(book_id)
    paragraph = book.chapters[0].work_paragraphs[0]
    library.add_translations(book_id, {paragraph.id: "他走了。"}, kind=T)
    draft = novel()
    edited = ChapterDraft(
        draft.chapters[0].title,
        (draft.chapters[0].paragraphs[0] + "。", *draft.chapters[0].paragraphs[1:]),
    )
    new = BookDraft(draft.title, (edited, *draft.chapters[1:]), draft.author)
    stores.editions.write(book_id, match_edition(book, new), EditionFile("x.txt", None, None))
    assert library.paragraphs(book_id, [paragraph.id])[paragraph.id].is_stale

    # The fix to the source changes nothing in the translation: the translator says so
    library.add_manual_version(book_id, paragraph.id, "他走了。")

    after = library.paragraphs(book_id, [paragraph.id])[paragraph.id]
    assert (after.translation, after.is_stale) == ("他走了。", False)
    assert [v.text for v in library.versions(book_id, paragraph.id)] == ["他走了。"]
