"""How an in-place export looks: Kusamakura, translated, opened in Debian's Chromium.

The screenshots are left in the test's output folder (``tmp_path``) for a person to look at:
``kusamakura-cover.png`` (the cover page with its two images) and
``kusamakura-chapter-1.png`` (the first chapter, translated and turned horizontal).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from honyaku.domain import TranslationKind
from honyaku.formats import read_book
from honyaku.formats.epub_inplace import write_epub_in_place
from honyaku.store import Library

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"
VIEWPORT = {"width": 900, "height": 1200}


@pytest.fixture
def unzipped_export(tmp_path: Path, library: Library) -> Path:
    """Kusamakura translated into Chinese (every paragraph and title), exported in place."""
    book_id = library.add_book(read_book(KUSAMAKURA), source_lang="ja", target_lang="zh-CN")
    book = library.whole_book(book_id)
    texts = {p.id: f"【译】{p.text}" for c in book.chapters for p in c.work_paragraphs}
    library.add_translations(book_id, texts, kind=TranslationKind.TRANSLATION)
    for chapter in book.chapters:
        library.set_chapter_title(book_id, chapter.id, f"第{chapter.title}章")
    sources = library.sources(book_id)
    assert sources is not None
    exported = tmp_path / "kusamakura.zh-CN.epub"
    with exported.open("wb") as file:
        write_epub_in_place(library.whole_book(book_id), sources, file)
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(exported) as archive:
        archive.extractall(folder)
    return folder


def _open(page: Page, document: Path) -> None:
    page.goto(document.as_uri())
    page.wait_for_load_state("load")


def test_the_translated_kusamakura_renders_horizontally_with_its_images(
    tmp_path: Path, unzipped_export: Path, browser: Browser
) -> None:
    documents = unzipped_export / "OPS" / "xhtml"
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        _open(page, documents / "表紙.xhtml")
        cover_mode = page.evaluate("getComputedStyle(document.documentElement).writingMode")
        images = page.evaluate(
            "[...document.images].map(i => [i.complete && i.naturalWidth > 0,"
            " i.getBoundingClientRect().width > 0])"
        )
        page.screenshot(path=tmp_path / "kusamakura-cover.png", full_page=True)

        _open(page, documents / "一.xhtml")
        chapter_mode = page.evaluate("getComputedStyle(document.documentElement).writingMode")
        heading = page.inner_text("h2")
        first = page.inner_text("section p")
        page.screenshot(path=tmp_path / "kusamakura-chapter-1.png")
    finally:
        context.close()

    assert (cover_mode, chapter_mode) == ("horizontal-tb", "horizontal-tb")
    assert images == [[True, True], [True, True]]
    assert heading == "第一章"
    assert first.startswith("【译】山路を登りながら")
    assert (tmp_path / "kusamakura-chapter-1.png").stat().st_size > 10_000
