"""A translation's inline marks beside its text: a version written by hand (in the workbench or
by the assistant, through one use case) keeps the placeholders it is shown and is checked for
them as a model's batch is; a replacement in the text carries the marks along its words; a
text with other marks than a version's is another version."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.application import Honyaku
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.domain.book import TranslationKind
from honyaku.domain.placeholders import MARKUP_LOST, PlacedMark
from honyaku.domain.sources import InlineMark, SourceLocation
from honyaku.domain.text_search import TextQuery
from honyaku.errors import UserError
from honyaku.store import Library

TEXT = "Run lb config as root."
MARKS = (InlineMark("tt", 4, 13), InlineMark("em", 17, 21))
"""``lb config`` is code, ``root`` emphasised."""


@pytest.fixture
def marked(library: Library) -> tuple[str, str]:
    """A book of one marked paragraph: its id and the paragraph's."""
    draft = BookDraft(
        "Manual",
        (ChapterDraft("Start", (TEXT,), (SourceLocation("a.xhtml", "/1/0#0", MARKS),)),),
    )
    book_id = library.add_book(draft, source_lang="en", target_lang="zh-CN")
    return book_id, library.whole_book(book_id).chapters[0].paragraphs[0].id


def test_a_version_by_hand_keeps_its_placeholders_and_a_wrong_one_is_refused_naming_them(
    honyaku: Honyaku, library: Library, marked: tuple[str, str]
):
    book_id, pid = marked

    versions = asyncio.run(
        honyaku.versions.write(book_id, pid, "以⟦2⟧root⟦/2⟧运行⟦1⟧lb config⟦/1⟧。")
    )
    with pytest.raises(UserError, match=r"missing: ⟦/2⟧"):
        asyncio.run(honyaku.versions.write(book_id, pid, "以⟦2⟧root运行⟦1⟧lb config⟦/1⟧。"))
    plain = asyncio.run(honyaku.versions.write(book_id, pid, "以 root 运行 lb config。"))

    assert (versions[-1].text, versions[-1].marks) == (
        "以root运行lb config。",
        (PlacedMark((1,), 1, 5), PlacedMark((0,), 7, 16)),
    )
    assert (plain[-1].text, plain[-1].marks, len(plain)) == ("以 root 运行 lb config。", (), 2)
    [flagged] = asyncio.run(honyaku.books.flagged(book_id))
    assert [w.code for w in flagged.warnings] == [MARKUP_LOST]


def test_a_replacement_carries_the_marks_along_and_other_marks_make_another_version(
    honyaku: Honyaku, library: Library, marked: tuple[str, str]
):
    book_id, pid = marked
    placed = (PlacedMark((1,), 1, 5), PlacedMark((0,), 7, 16))
    library.add_translations(
        book_id,
        {pid: "以root运行lb config。"},
        kind=TranslationKind.TRANSLATION,
        marks={pid: placed},
    )

    asyncio.run(honyaku.search.replace(book_id, TextQuery("以root"), "用 root 身份", apply=True))
    again = library.add_translations(
        book_id, {pid: "用 root 身份运行lb config。"}, kind=TranslationKind.MANUAL
    )

    versions = library.versions(book_id, pid)
    assert [v.text for v in versions][:2] == [
        "以root运行lb config。",
        "用 root 身份运行lb config。",
    ]
    assert versions[1].marks == (PlacedMark((1,), 2, 6), PlacedMark((0,), 11, 20))
    assert again == {pid}
    assert versions[2].marks == ()
