"""A quality warning the translator dismisses stays dismissed, on its version only."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.application import Honyaku
from honyaku.domain.book import TranslationKind
from honyaku.domain.quality import QualityWarning
from honyaku.errors import NotFoundError
from honyaku.store import Library

KANA = QualityWarning("UNTRANSLATED_KANA", "the translation still holds Japanese kana")
QUOTE = QualityWarning("QUOTE_LOST", "the source opens a quotation")


def flag(
    library: Library, book_id: str, pid: str, *warnings: QualityWarning, text: str = "他走了。"
) -> None:
    library.add_translations(
        book_id, {pid: text}, kind=TranslationKind.TRANSLATION, flags={pid: warnings}
    )


def test_a_dismissed_warning_leaves_the_list_and_the_other_warnings_stay(
    honyaku: Honyaku, library: Library, book_id: str
):
    # Given two paragraphs flagged, one of them twice
    first, second = library.whole_book(book_id).chapters[0].work_paragraphs[:2]
    flag(library, book_id, first.id, KANA, QUOTE)
    flag(library, book_id, second.id, KANA)

    # When the translator dismisses the first paragraph's kana warning
    dismissed = asyncio.run(
        honyaku.books.dismiss_warnings(book_id, first.id, ["UNTRANSLATED_KANA"])
    )

    # Then only that warning is gone, for good
    assert dismissed == 1
    flagged = {
        f.paragraph_id: [w.code for w in f.warnings]
        for f in asyncio.run(honyaku.books.flagged(book_id))
    }
    assert flagged == {first.id: ["QUOTE_LOST"], second.id: ["UNTRANSLATED_KANA"]}
    asyncio.run(honyaku.books.dismiss_warnings(book_id, first.id))
    assert [f.paragraph_id for f in asyncio.run(honyaku.books.flagged(book_id))] == [second.id]


def test_a_new_version_with_the_same_problem_is_flagged_again(
    honyaku: Honyaku, library: Library, book_id: str
):
    pid = library.whole_book(book_id).chapters[0].work_paragraphs[0].id
    flag(library, book_id, pid, KANA)
    asyncio.run(honyaku.books.dismiss_warnings(book_id, pid))

    flag(library, book_id, pid, KANA, text="他走了の。")

    [again] = asyncio.run(honyaku.books.flagged(book_id))
    assert again.paragraph_id == pid


def test_dismissing_on_an_unknown_paragraph_is_an_error(honyaku: Honyaku, book_id: str):
    with pytest.raises(NotFoundError, match="no paragraph 00000000"):
        asyncio.run(honyaku.books.dismiss_warnings(book_id, "00000000"))
