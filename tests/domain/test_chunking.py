import re

from honyaku.domain.book import Chapter, Paragraph
from honyaku.domain.chunking import render_chunk, split_into_chunks
from honyaku.domain.workflow import JobKind

LINE = re.compile(r"^\[(\d+)\] \[ID: ([0-9a-f]{8})\] (.*)$")


def chapter_with(texts: list[str], translations: list[str | None] | None = None) -> Chapter:
    translations = translations or [None] * len(texts)
    paragraphs = tuple(
        Paragraph(f"{i:08x}", i, text, translation)
        for i, (text, translation) in enumerate(zip(texts, translations, strict=True))
    )
    return Chapter("c0ffee00", 1, "第一章", None, paragraphs)


def test_chunks_hold_at_most_the_character_budget_and_keep_chapter_order():
    chapter = chapter_with(["あ" * 30] * 10)
    chunks = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=100)
    assert [len(c.paragraphs) for c in chunks] == [3, 3, 3, 1]
    assert [p.index for c in chunks for p in c.paragraphs] == list(range(10))
    assert [c.shows_title for c in chunks] == [True, False, False, False]


def test_a_paragraph_longer_than_the_budget_gets_a_chunk_of_its_own():
    chapter = chapter_with(["短い。", "長" * 500, "短い。"])
    chunks = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=100)
    assert [len(c.paragraphs) for c in chunks] == [1, 1, 1]


def test_each_work_line_carries_the_chapter_position_and_the_exact_text():
    chapter = chapter_with(["一行目。", "", "三行目 with  spaces "])
    chunk = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=8000)[0]
    lines = [LINE.match(line) for line in render_chunk(chunk, JobKind.TRANSLATION).splitlines()]
    work = [m for m in lines if m]
    assert [(m[1], m[2], m[3]) for m in work] == [
        ("1", "00000000", "一行目。"),
        ("3", "00000002", "三行目 with  spaces "),
    ]


def test_the_first_chunk_shows_the_chapter_id_and_title_to_translate():
    chapter = chapter_with(["本文。"])
    text = render_chunk(
        split_into_chunks(chapter, chapter.work_paragraphs, max_chars=10)[0], JobKind.TRANSLATION
    )
    assert text.splitlines()[:2] == ["chapter_id: c0ffee00", "title: 第一章"]


def test_polish_lines_add_the_current_translation_on_the_next_line():
    chapter = chapter_with(["原文。"], ["译文。"])
    chunk = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=8000, with_title=False)[0]
    assert render_chunk(chunk, JobKind.POLISH).splitlines() == [
        "[1] [ID: 00000000] 原文。",
        "    → 译文。",
    ]


def test_only_work_paragraphs_use_the_id_marker():
    chapter = chapter_with(["一。", "二。"], ["甲。", "乙。"])
    chunk = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=8000)[0]
    text = render_chunk(chunk, JobKind.PROOFREADING)
    assert text.count("[ID: ") == 2


def test_a_chapter_with_nothing_left_but_its_title_still_gets_a_title_chunk():
    chapter = chapter_with(["一。"])
    chunks = split_into_chunks(chapter, [], max_chars=8000, with_title=True)
    assert len(chunks) == 1
    assert chunks[0].paragraphs == ()
    assert split_into_chunks(chapter, [], max_chars=8000, with_title=False) == []
