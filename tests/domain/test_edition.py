"""A new edition matched against a book: what each chapter and paragraph is to it."""

from __future__ import annotations

from dataclasses import replace

from honyaku.domain.book import Book, BookDraft, Chapter, ChapterDraft, Paragraph
from honyaku.domain.edition import Outcome, match_edition


def chapter_text(number: int, count: int = 4) -> tuple[str, ...]:
    return tuple(
        "" if i == 2 else f"第{number}章の{i}番目の段落、彼は峠の道を{number * 7 + i}歩だけ歩いた。"
        for i in range(count)
    )


DRAFT = BookDraft(
    "峠",
    tuple(ChapterDraft(f"第{n}章", chapter_text(n)) for n in range(1, 5)),
)


def stored(draft: BookDraft) -> Book:
    """The draft as the library holds it: ids ``c1``, ``c1p0``…"""
    return Book(
        "book0001",
        draft.title,
        None,
        "ja",
        "zh-CN",
        chapters=tuple(
            Chapter(
                f"c{n}",
                n,
                chapter.title,
                None,
                tuple(Paragraph(f"c{n}p{i}", i, text) for i, text in enumerate(chapter.paragraphs)),
            )
            for n, chapter in enumerate(draft.chapters, start=1)
        ),
    )


def edition(*chapters: ChapterDraft) -> BookDraft:
    return replace(DRAFT, chapters=chapters)


def test_the_same_file_changes_nothing():
    match = match_edition(stored(DRAFT), DRAFT)

    assert [c.id for c in match.chapters] == ["c1", "c2", "c3", "c4"]
    assert {c.outcome for c in match.chapters} == {Outcome.UNCHANGED}
    assert match.summary.paragraphs.unchanged == 12
    assert (match.gone_chapters, match.gone_paragraphs) == ((), ())


def test_an_appended_chapter_is_new_and_every_other_keeps_its_ids():
    added = ChapterDraft("第5章", chapter_text(5))

    match = match_edition(stored(DRAFT), edition(*DRAFT.chapters, added))

    assert match.chapters[4].outcome is Outcome.NEW
    assert [p.id for p in match.chapters[4].paragraphs] == [None] * 4
    assert match.chapters[0].paragraphs[3].id == "c1p3"
    assert match.summary.chapters.new == 1
    assert match.summary.paragraphs.new == 3  # the empty paragraph is layout


def test_a_removed_chapter_is_gone_with_its_paragraphs():
    match = match_edition(stored(DRAFT), edition(*DRAFT.chapters[:1], *DRAFT.chapters[2:]))

    assert match.gone_chapters == ("c2",)
    assert {p.id for p in match.gone_paragraphs} == {"c2p0", "c2p1", "c2p2", "c2p3"}
    assert match.summary.paragraphs.gone == 3
    assert match.summary.chapters.gone == 1


def test_a_moved_chapter_keeps_its_id_and_is_marked_moved():
    first, second, third, fourth = DRAFT.chapters

    match = match_edition(stored(DRAFT), edition(first, third, fourth, second))

    assert [c.id for c in match.chapters] == ["c1", "c3", "c4", "c2"]
    assert [c.moved for c in match.chapters] == [False, False, False, True]
    assert match.summary.moved_chapters == 1
    assert match.chapters[3].outcome is Outcome.UNCHANGED


def test_a_renamed_chapter_keeps_its_id_and_says_its_old_title():
    renamed = replace(DRAFT.chapters[1], title="第2章　峠の茶屋")

    match = match_edition(stored(DRAFT), edition(DRAFT.chapters[0], renamed, *DRAFT.chapters[2:]))

    chapter = match.chapters[1]
    assert (chapter.id, chapter.outcome, chapter.previous_title) == ("c2", Outcome.CHANGED, "第2章")


def test_an_edited_paragraph_is_changed_and_keeps_its_id_and_old_text():
    texts = list(chapter_text(3))
    texts[1] = texts[1].replace("彼は", "かれは")
    edited = ChapterDraft("第3章", tuple(texts))

    match = match_edition(stored(DRAFT), edition(*DRAFT.chapters[:2], edited, DRAFT.chapters[3]))

    paragraph = match.chapters[2].paragraphs[1]
    assert (paragraph.id, paragraph.outcome) == ("c3p1", Outcome.CHANGED)
    assert paragraph.previous_text == chapter_text(3)[1]
    assert match.summary.paragraphs.changed == 1
    assert match.chapters[2].outcome is Outcome.CHANGED


def test_a_chapter_split_in_two_keeps_its_id_on_the_larger_part():
    long = ChapterDraft("第2章", chapter_text(2, count=9))
    book = stored(edition(DRAFT.chapters[0], long))
    head = ChapterDraft("第2章", long.paragraphs[:6])
    tail = ChapterDraft("第2章の続き", long.paragraphs[6:])

    match = match_edition(book, edition(DRAFT.chapters[0], head, tail))

    assert [c.id for c in match.chapters] == ["c1", "c2", None]
    assert [p.id for p in match.chapters[2].paragraphs] == ["c2p6", "c2p7", "c2p8"]
    assert match.summary.paragraphs.unchanged == 3 + 8
    assert match.gone_paragraphs == ()


def test_another_book_is_not_plausibly_an_edition():
    other = BookDraft("別の本", (ChapterDraft("序", ("It was a bright cold day in April.",)),))

    summary = match_edition(stored(DRAFT), other).summary

    assert not summary.is_plausible
    assert (summary.found, summary.book_paragraphs) == (0, 12)
