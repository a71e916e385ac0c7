"""A translation's inline marks go back around its words on export: in the EPUB translated in
place (each element the source's own, with its attributes; a note reference at its place,
still resolving; bilingual output without repeated ids), in the EPUB honyaku builds for a book
read from Aozora Bunko text or XHTML (its ruby and emphasis), and in Markdown; plain text is
clean."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from honyaku.domain.book import TranslationKind
from honyaku.domain.placeholders import ReadText, RubyChoice, read_marked, shown_line
from honyaku.formats import ExportFormat, read_book, write_book
from honyaku.store import Library

from ..support.marked_epub import MARKED, PAGE, write_marked_epub

RASHOMON = Path(__file__).parents[1] / "fixtures/books/rashomon_akutagawa/127_15260.utf8.html"
TRANSLATED = "以⟦2⟧root⟦/2⟧身份运行⟦1⟧lb config⟦/1⟧，然后在⟦5⟧构建⟦/5⟧映像之前阅读⟦3⟧手册⟦/3⟧⟦4⟧。"
"""A model's translation of ``MARKED``: the placeholders in the order Chinese wants them."""
AOZORA = """\
試験の本
作者

-------------------------------------------------------
【テキスト中に現れる記号について】

《》：ルビ
-------------------------------------------------------

［＃３字下げ］第一章［＃「第一章」は中見出し］

　彼は強敵《とも》と本気で戦った［＃「戦った」に傍点］。
　｜山路《やまみち》を登りながら、こう考えた。

底本：「試験」
"""


def _translated(library: Library, path: Path) -> str:
    """The marked EPUB imported, its marked paragraph translated with ``TRANSLATED``."""
    book_id = library.add_book(read_book(path), source_lang="en", target_lang="zh-CN")
    paragraph = next(
        p for c in library.whole_book(book_id).chapters for p in c.paragraphs if p.text == MARKED
    )
    read = read_marked(TRANSLATED, shown_line(MARKED, paragraph.marks, RubyChoice.HINTS), MARKED)
    assert isinstance(read, ReadText)
    library.add_translations(
        book_id,
        {paragraph.id: read.text},
        kind=TranslationKind.TRANSLATION,
        marks={paragraph.id: read.marks},
    )
    return book_id


def _page(path: Path, name: str = PAGE) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(name).decode()


@pytest.fixture
def exports(library: Library, tmp_path: Path) -> dict[str, Path]:
    """The marked EPUB translated and exported in place, alone and bilingual; and a book
    read from Aozora Bunko text, its first paragraph translated with ruby kept, built as an
    EPUB of honyaku's own."""
    book_id = _translated(library, write_marked_epub(tmp_path / "marked.epub"))
    book, sources = library.whole_book(book_id), library.sources(book_id)
    found = {"alone": tmp_path / "alone.epub", "bilingual": tmp_path / "bilingual.epub"}
    write_book(book, found["alone"], ExportFormat.EPUB, sources=sources)
    write_book(book, found["bilingual"], ExportFormat.EPUB, sources=sources, bilingual=True)
    found["markdown"] = tmp_path / "book.md"
    write_book(book, found["markdown"], ExportFormat.MD)
    found["text"] = tmp_path / "book.txt"
    write_book(book, found["text"], ExportFormat.TXT)

    aozora = tmp_path / "aozora.txt"
    aozora.write_text(AOZORA, encoding="utf-8")
    novel = library.add_book(read_book(aozora), source_lang="ja", target_lang="zh-CN")
    library.update_settings(novel, ruby=RubyChoice.KEEP)
    first = library.whole_book(novel).chapters[0].work_paragraphs[0]
    line = shown_line(first.text, first.marks, RubyChoice.KEEP)
    assert line.text == "彼は⟦1⟧強敵⟦/1⟧《とも》と本気で⟦2⟧戦った⟦/2⟧。"
    read = read_marked("他和⟦1⟧劲敌⟦/1⟧认真地⟦2⟧战斗了⟦/2⟧。", line, first.text)
    assert isinstance(read, ReadText)
    library.add_translations(
        novel, {first.id: read.text}, kind=TranslationKind.TRANSLATION, marks={first.id: read.marks}
    )
    found["generated"] = tmp_path / "generated.epub"
    write_book(library.whole_book(novel), found["generated"], ExportFormat.EPUB, bilingual=True)
    return found


def test_each_element_goes_back_around_its_translated_words_with_its_attributes(exports):
    page = _page(exports["alone"])

    assert (
        "以<em>root</em>身份运行<code>lb config</code>，然后在<strong>构建</strong>映像之前阅读"
        '<a href="https://live-team.pages.debian.net/live-manual/">手册</a>'
        '<a id="ref1" href="#note1" epub:type="noteref">1</a>。</p>'
    ) in page
    assert '<aside id="note1" epub:type="footnote">' in page


def test_bilingual_output_keeps_the_ids_on_the_source_and_the_note_reachable_from_both(exports):
    page = _page(exports["bilingual"])

    assert page.count('id="ref1"') == 1
    assert page.count('href="#note1" epub:type="noteref">1</a>') == 2
    assert 'class="honyaku-translation">以<em>root</em>身份运行<code>lb config</code>' in page


def test_a_book_honyaku_builds_keeps_its_ruby_and_emphasis_on_source_and_translation(exports):
    page = _page(exports["generated"], "OEBPS/chapter-0001.xhtml")

    assert (
        "他和<ruby>劲敌<rp>(</rp><rt>とも</rt><rp>)</rp></ruby>认真地"
        '<em class="sesame_dot">战斗了</em>。' in page
    )
    assert "彼は<ruby>強敵<rp>(</rp><rt>とも</rt><rp>)</rp></ruby>と本気で" in page
    assert "<ruby>山路<rp>(</rp><rt>やまみち</rt><rp>)</rp></ruby>を登りながら" in page


def test_markdown_writes_emphasis_code_links_and_text_stays_clean(exports):
    markdown = exports["markdown"].read_text(encoding="utf-8")
    text = exports["text"].read_text(encoding="utf-8")

    assert (
        "以*root*身份运行`lb config`，然后在**构建**映像之前阅读"
        "[手册](https://live-team.pages.debian.net/live-manual/)1。"
    ) in markdown
    assert "Or its *Japanese* edition. Back" in markdown  # a link into the book: its words
    assert "以root身份运行lb config，然后在构建映像之前阅读手册1。" in text.splitlines()


def test_epubcheck_finds_nothing_in_books_exported_with_their_markup(exports, epubcheck):
    reports = epubcheck([exports["alone"], exports["bilingual"], exports["generated"]])

    assert [report.clean for report in reports] == [True, True, True], [r.output for r in reports]


def test_an_xhtml_page_s_ruby_is_kept_in_the_epub_honyaku_builds_for_it(library, tmp_path):
    book_id = library.add_book(read_book(RASHOMON), source_lang="ja", target_lang="zh-CN")
    path = tmp_path / "rashomon.epub"

    write_book(library.whole_book(book_id), path, ExportFormat.EPUB)

    with zipfile.ZipFile(path) as archive:
        pages = "".join(
            archive.read(name).decode() for name in archive.namelist() if "chapter-" in name
        )
    assert pages.count("<ruby>") > 50
    assert "<rt>" in pages
