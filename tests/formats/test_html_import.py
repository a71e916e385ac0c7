"""(X)HTML import: Aozora Bunko's rashomon page and ordinary HTML files."""

from __future__ import annotations

from pathlib import Path

from honyaku.formats import read_book

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
RASHOMON_SJIS = BOOKS / "rashomon_akutagawa" / "127_15260.sjis.html"
RASHOMON_UTF8 = BOOKS / "rashomon_akutagawa" / "127_15260.utf8.html"


def test_rashomon_shift_jis_xhtml_is_one_chapter_of_37_paragraphs() -> None:
    book = read_book(RASHOMON_SJIS)

    assert (book.title, book.author, book.language) == ("羅生門", "芥川龍之介", "ja")
    assert [c.title for c in book.chapters] == ["羅生門"]
    assert len(book.chapters[0].paragraphs) == 37
    assert book.chapters[0].paragraphs[0] == (
        "\u3000ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。"
    )
    assert book.chapters[0].paragraphs[-1] == "（大正四年九月）"


def test_rashomon_ruby_readings_do_not_leak_into_the_text() -> None:
    text = "".join(read_book(RASHOMON_SJIS).chapters[0].paragraphs)

    assert text.count("下人") == 44
    assert "下人が、羅生門の下" in text
    for reading in ("げにん", "らしょうもん", "（げにん）", "にきび"):
        assert reading not in text


def test_rashomon_colophon_and_notation_notes_are_excluded() -> None:
    text = "".join(read_book(RASHOMON_SJIS).chapters[0].paragraphs)

    for outside in ("底本", "青空文庫", "入力：", "表記について", "図書カード"):
        assert outside not in text


def test_rashomon_gaiji_images_become_the_characters_their_notes_name() -> None:
    text = "".join(read_book(RASHOMON_SJIS).chapters[0].paragraphs)

    assert "眶の赤くなった" in text  # <img class="gaiji" alt="※(「目＋匡」、第3水準1-88-81)">
    assert "※" not in text


def test_rashomon_shift_jis_and_utf8_pages_read_the_same() -> None:
    assert read_book(RASHOMON_SJIS) == read_book(RASHOMON_UTF8)


def test_given_html_with_repeated_headings_when_read_then_they_make_chapters(
    tmp_path: Path,
) -> None:
    path = tmp_path / "story.html"
    path.write_text(
        "<!DOCTYPE html><html lang='en'><head><title>A Story</title></head><body>"
        "<h1>A Story</h1><h2>One</h2><p>First &amp; best.</p><h2>Two</h2><p>Second."
        "<p>Third&nbsp;part</body></html>",
        encoding="utf-8",
    )

    book = read_book(path)

    assert (book.title, book.language) == ("A Story", "en")
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("One", ("First & best.",)),
        ("Two", ("Second.", "Third\u00a0part")),
    ]


def test_given_an_aozora_page_with_midashi_headings_when_read_then_they_make_chapters(
    tmp_path: Path,
) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="ja"><head><title>t</title></head>'
        '<body><div class="metadata"><h1 class="title">短編集</h1>'
        '<h2 class="author">作者</h2></div><div class="main_text">'
        '<h3 class="o-midashi"><a class="midashi_anchor" id="m1">上</a></h3><br />\n'
        '<h4 class="naka-midashi"><a class="midashi_anchor" id="m2">一</a></h4><br />\n'
        '　本文一。<br />\n<br />\n　続き<span class="notes">［＃「続き」はママ］</span>。<br />\n'
        '<h4 class="naka-midashi"><a class="midashi_anchor" id="m3">二</a></h4><br />\n'
        '<h5 class="ko-midashi"><a class="midashi_anchor" id="m4">小</a></h5><br />\n'
        "　本文二。<br />\n</div>"
        '<div class="bibliographical_information">底本：どこか<br /></div></body></html>',
        encoding="utf-8",
    )

    book = read_book(path)

    assert (book.title, book.author) == ("短編集", "作者")
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("上\u3000一", ("\u3000本文一。", "", "\u3000続き。")),
        ("二", ("小", "\u3000本文二。")),
    ]
