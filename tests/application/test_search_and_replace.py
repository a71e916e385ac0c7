"""Search across a book's source and translations; replace in translations, previewed first,
each replacement a new version that selecting the previous one undoes (or, back to a text
the paragraph held, that version selected again)."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.application import Honyaku
from honyaku.domain.book import TranslationKind
from honyaku.domain.text_search import TextQuery
from honyaku.errors import UserError
from honyaku.store import Library

from ..conftest import novel


@pytest.fixture
def translated(library: Library) -> str:
    """A book of two chapters whose paragraphs are translated "他走了。" (and one "她走了。")."""
    book_id = library.add_book(
        novel(chapters=2, paragraphs=4), source_lang="ja", target_lang="zh-CN"
    )
    paragraphs = [p for c in library.whole_book(book_id).chapters for p in c.work_paragraphs]
    texts = {p.id: "他走了。" for p in paragraphs}
    texts[paragraphs[-1].id] = "她走了。"
    library.add_translations(book_id, texts, kind=TranslationKind.TRANSLATION)
    return book_id


def test_a_plain_search_finds_source_and_translation_matches_with_where_they_are(
    honyaku: Honyaku, translated: str
):
    found = asyncio.run(honyaku.search.find(translated, TextQuery("第2章の1")))

    [hit] = found.hits
    assert found.total == 1
    assert hit.located.chapter_number == 2
    assert hit.located.paragraph.index == 1
    assert hit.source_spans == [(0, 5)]
    assert hit.translation_spans == []


def test_a_regex_search_in_translations_only_counts_every_matching_paragraph(
    honyaku: Honyaku, translated: str
):
    found = asyncio.run(
        honyaku.search.find(translated, TextQuery("[他她]走", regex=True), source=False)
    )

    assert found.total == 8
    assert all(hit.translation_spans == [(0, 2)] for hit in found.hits)
    assert all(hit.source_spans == [] for hit in found.hits)


def test_a_regex_that_does_not_compile_is_refused_in_one_line(honyaku: Honyaku, translated: str):
    with pytest.raises(UserError, match="the regular expression does not work"):
        asyncio.run(honyaku.search.find(translated, TextQuery("(他", regex=True)))


def test_a_replacement_is_previewed_then_applied_as_new_versions_and_undone_by_selecting(
    honyaku: Honyaku, library: Library, translated: str
):
    query = TextQuery("他")

    # Given a preview of replacing 他 with 那人
    preview = asyncio.run(honyaku.search.replace(translated, query, "那人"))
    assert len(preview) == 7
    assert {r.after for r in preview} == {"那人走了。"}
    assert library.whole_book(translated).chapters[0].work_paragraphs[0].translation == "他走了。"

    # When it is applied to two of the paragraphs only
    chosen = [r.located.paragraph.id for r in preview[:2]]
    applied = asyncio.run(
        honyaku.search.replace(translated, query, "那人", paragraphs=chosen, apply=True)
    )

    # Then those two have a new manual version, selected; the others are unchanged
    assert [r.located.paragraph.id for r in applied] == chosen
    for paragraph in (
        p for c in library.whole_book(translated).chapters for p in c.work_paragraphs
    ):
        expected = "那人走了。" if paragraph.id in chosen else paragraph.translation
        assert paragraph.translation == expected
    versions = library.versions(translated, chosen[0])
    assert [(v.text, v.kind, v.selected) for v in versions] == [
        ("他走了。", TranslationKind.TRANSLATION, False),
        ("那人走了。", TranslationKind.MANUAL, True),
    ]
    # and selecting the previous version undoes it
    asyncio.run(honyaku.versions.select(translated, chosen[0], versions[0].id))
    assert library.paragraphs(translated, [chosen[0]])[chosen[0]].translation == "他走了。"


def test_a_replacement_back_to_an_earlier_text_selects_that_version_again(
    honyaku: Honyaku, library: Library, translated: str
):
    paragraph = library.whole_book(translated).chapters[0].work_paragraphs[0]
    asyncio.run(
        honyaku.search.replace(
            translated, TextQuery("他"), "那人", paragraphs=[paragraph.id], apply=True
        )
    )

    asyncio.run(
        honyaku.search.replace(
            translated, TextQuery("那人"), "他", paragraphs=[paragraph.id], apply=True
        )
    )

    versions = library.versions(translated, paragraph.id)
    assert [(v.text, v.kind, v.selected) for v in versions] == [
        ("他走了。", TranslationKind.TRANSLATION, True),
        ("那人走了。", TranslationKind.MANUAL, False),
    ]


def test_a_regex_replacement_uses_groups(honyaku: Honyaku, translated: str):
    preview = asyncio.run(
        honyaku.search.replace(translated, TextQuery("([他她])走了", regex=True), r"\1离开了")
    )

    assert {r.after for r in preview} == {"他离开了。", "她离开了。"}


def test_a_replacement_that_would_empty_a_paragraph_is_refused_and_writes_nothing(
    honyaku: Honyaku, library: Library, translated: str
):
    with pytest.raises(UserError, match="chapter 1, paragraph 1: a version cannot be empty"):
        asyncio.run(honyaku.search.replace(translated, TextQuery(".*", regex=True), "", apply=True))

    assert all(
        len(library.versions(translated, p.id)) == 1
        for c in library.whole_book(translated).chapters
        for p in c.work_paragraphs
    )
