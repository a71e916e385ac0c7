"""A chapter is read a page at a time, whatever its length; a paragraph is found in its
chapter; two versions are compared. Through the application, as the web calls them."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.application import Honyaku
from honyaku.domain import BookDraft, ChapterDraft, TranslationKind
from honyaku.errors import NotFoundError

LONG = 5000


@pytest.fixture
def long_book(library) -> str:
    """One chapter of 5000 paragraphs, every third one blank, as a TXT without headings."""
    paragraphs = tuple("" if n % 3 == 2 else f"段落{n}。" for n in range(LONG))
    draft = BookDraft("長い本", (ChapterDraft("序", ("短い。",)), ChapterDraft("本文", paragraphs)))
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")


def test_a_page_holds_the_paragraphs_asked_for_and_the_chapters_counts(honyaku, long_book):
    view = asyncio.run(honyaku.books.chapter(long_book, 2, start=4000, limit=50))

    assert [p.index for p in view.paragraphs] == list(range(4000, 4050))
    assert view.paragraphs[0].text == "段落4000。"
    assert view.paragraphs[1].text == ""  # 4001 is a blank line, kept in its place
    assert view.chapter.paragraphs == LONG
    assert view.chapter.work_paragraphs == len([n for n in range(LONG) if n % 3 != 2])
    assert (view.start, view.count, view.chapter.title) == (4000, 2, "本文")


def test_a_page_holds_only_its_own_paragraphs_versions(honyaku: Honyaku, library, long_book):
    inside, outside = (
        library.whole_book(long_book, chapter_numbers=[2]).chapters[0].paragraphs[n]
        for n in (10, 300)
    )
    library.add_translations(
        long_book,
        {inside.id: "段落十。", outside.id: "段落三百。"},
        kind=TranslationKind.TRANSLATION,
    )

    view = asyncio.run(honyaku.books.chapter(long_book, 2, start=0, limit=100))

    assert set(view.versions) == {inside.id}
    assert view.paragraphs[10].translation == "段落十。"


def test_a_page_past_the_end_is_empty_and_a_missing_chapter_is_not_found(honyaku, long_book):
    assert asyncio.run(honyaku.books.chapter(long_book, 2, start=LONG)).paragraphs == ()
    with pytest.raises(NotFoundError, match="no chapter 3"):
        asyncio.run(honyaku.books.chapter(long_book, 3))


def test_a_paragraph_is_located_in_its_chapter(honyaku, library, long_book):
    paragraph = library.whole_book(long_book, chapter_numbers=[2]).chapters[0].paragraphs[4321]

    found = asyncio.run(honyaku.books.locate(long_book, paragraph.id))

    assert (found.chapter_number, found.paragraph.index) == (2, 4321)
    with pytest.raises(NotFoundError):
        asyncio.run(honyaku.books.locate(long_book, "ffffffff"))


def test_two_versions_of_a_paragraph_are_compared(honyaku, library, long_book):
    paragraph = library.whole_book(long_book, chapter_numbers=[1]).chapters[0].paragraphs[0]
    library.add_translations(long_book, {paragraph.id: "很短。"}, kind=TranslationKind.TRANSLATION)
    first, second = asyncio.run(honyaku.versions.write(long_book, paragraph.id, "非常短。"))

    parts = asyncio.run(honyaku.versions.diff(long_book, paragraph.id, first.id, second.id))

    assert [(p.change.value, p.text) for p in parts] == [
        ("removed", "很"),
        ("added", "非常"),
        ("same", "短。"),
    ]
    with pytest.raises(NotFoundError, match="no version"):
        asyncio.run(honyaku.versions.diff(long_book, paragraph.id, first.id, 999_999))
