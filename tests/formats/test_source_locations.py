"""Import remembers where each paragraph came from: document, locator and inline markup."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from xml.sax.saxutils import escape

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from honyaku.domain.sources import EPUB_MEDIA_TYPE, XHTML_MEDIA_TYPE, InlineMark
from honyaku.formats import read_book
from honyaku.formats.xhtml import extract_text

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KANJI_NUMBERS = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三"]
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"
MOBY_DICK = BOOKS / "epub" / "moby-dick_en_epub3" / "moby-dick_en_epub3.epub"
RASHOMON = BOOKS / "rashomon_akutagawa" / "127_15260.sjis.html"


def _tree(body: str) -> etree._Element:
    markup = (
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
        f"<head><title>t</title></head><body>{body}</body></html>"
    )
    return etree.fromstring(markup.encode())


def _traced(body: str) -> list[tuple[str, str, tuple[InlineMark, ...]]]:
    blocks = extract_text(_tree(body), trace=True).blocks
    return [(b.text, b.origin.locator, b.origin.marks) for b in blocks if b.origin]


def test_every_kusamakura_paragraph_keeps_its_document_and_its_own_locator() -> None:
    book = read_book(KUSAMAKURA)

    located = [
        (chapter.source_of(index), text)
        for chapter in book.chapters
        for index, text in enumerate(chapter.paragraphs)
    ]

    assert all(source is not None for source, text in located if text)
    places = Counter((s.document, s.locator) for s, _ in located if s is not None)
    assert max(places.values()) == 1
    assert {s.document for s, _ in located if s is not None} == {
        f"OPS/xhtml/{number}.xhtml" for number in KANJI_NUMBERS
    }


def test_chapter_titles_keep_the_heading_they_were_read_from() -> None:
    book = read_book(KUSAMAKURA)

    first = book.chapters[0]

    assert first.title == "一"
    assert first.title_source is not None
    assert first.title_source.document == "OPS/xhtml/一.xhtml"
    assert first.title_source.locator != first.source_of(0).locator


def test_the_imported_epub_is_kept_whole_with_the_draft() -> None:
    book = read_book(MOBY_DICK)

    assert book.original is not None
    assert book.original.media_type == EPUB_MEDIA_TYPE
    assert book.original.data == MOBY_DICK.read_bytes()


def test_ruby_keeps_its_reading_and_emphasis_its_span_as_marks_over_the_text() -> None:
    [(text, _, marks)] = _traced(
        '<p><ruby>山路<rt>やまみち</rt></ruby>を<em class="x">登り</em>ながら</p>'
    )

    assert text == "山路を登りながら"
    assert marks == (
        InlineMark("ruby", 0, 2, reading="やまみち"),
        InlineMark("em", 3, 5, (("class", "x"),)),
    )


def test_links_images_and_a_heading_break_are_marks_too() -> None:
    traced = _traced(
        '<h2>Part<br/>One</h2><p><img src="a.png" alt="A"/>See <a href="#n1">note</a>.</p>'
    )

    assert [(text, marks) for text, _, marks in traced] == [
        ("Part One", (InlineMark("br", 4, 4),)),
        (
            "See note.",
            (
                InlineMark("img", 0, 0, (("src", "a.png"), ("alt", "A"))),
                InlineMark("a", 4, 8, (("href", "#n1"),)),
            ),
        ),
    ]


def test_marks_follow_the_text_through_layout_whitespace_collapsing() -> None:
    [(text, _, marks)] = _traced("<p>\n   <span>Call   me</span>\n   <i>Ishmael</i>.\n</p>")

    assert text == "Call me Ishmael."
    assert [(m.tag, text[m.start : m.end]) for m in marks] == [
        ("span", "Call me"),
        ("i", "Ishmael"),
    ]


def test_lines_split_by_br_are_located_by_their_place_in_the_same_block() -> None:
    traced = _traced("<div>一行目<br/>二行目<br/><br/>四行目</div><p>次</p>")

    assert [(text, locator) for text, locator, _ in traced] == [
        ("一行目", "/0/0#0"),
        ("二行目", "/0/0#1"),
        ("", "/0/0#2"),
        ("四行目", "/0/0#3"),
        ("次", "/0/1#0"),
    ]


def test_aozora_xhtml_paragraphs_are_located_in_their_page() -> None:
    book = read_book(RASHOMON)

    chapter = book.chapters[0]
    first = chapter.source_of(0)

    assert book.original is not None
    assert book.original.media_type == XHTML_MEDIA_TYPE
    assert first is not None
    assert first.document == RASHOMON.name
    assert len({chapter.source_of(i).locator for i in range(len(chapter.paragraphs))}) == 37
    assert any(mark.tag == "ruby" and mark.reading == "げにん" for mark in chapter.sources[0].marks)


_MARKUP_PIECE = st.one_of(
    st.text(alphabet="ab日本。 \n\u3000", max_size=6).map(escape),
    st.sampled_from(
        ["<br/>", "<em>強調</em>", "<ruby>漢<rt>かん</rt></ruby>", '<img src="i.png"/>', " "]
    ),
    st.sampled_from(["<p>", "</p>", "<span>", "</span>", "<div>", "</div>"]),
)


def _balanced(pieces: list[str]) -> str:
    """The pieces with their tags closed in order, so that any list makes a valid tree."""
    out, open_tags = [], []
    for piece in pieces:
        if piece.startswith("</"):
            name = piece[2:-1]
            if name in open_tags:
                while open_tags:
                    closing = open_tags.pop()
                    out.append(f"</{closing}>")
                    if closing == name:
                        break
            continue
        if piece in ("<p>", "<span>", "<div>"):
            open_tags.append(piece[1:-1])
        out.append(piece)
    out += [f"</{name}>" for name in reversed(open_tags)]
    return "".join(out)


@settings(max_examples=60, deadline=None)
@given(pieces=st.lists(_MARKUP_PIECE, max_size=14))
def test_tracing_where_paragraphs_came_from_never_changes_their_text(pieces: list[str]) -> None:
    body = _balanced(pieces)

    plain = extract_text(_tree(body)).blocks
    traced = extract_text(_tree(body), trace=True).blocks

    assert [(b.text, b.heading_level) for b in traced] == [(b.text, b.heading_level) for b in plain]
    for block in traced:
        if block.origin is None:
            assert block.text == ""  # an empty <p>: a blank line with nothing to put back
            continue
        for mark in block.origin.marks:
            assert 0 <= mark.start <= mark.end <= len(block.text)
