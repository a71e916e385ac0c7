"""How (X)HTML markup becomes paragraphs: blocks, breaks, ruby, whitespace, skipped parts."""

from __future__ import annotations

from xml.sax.saxutils import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from honyaku.formats.xhtml import extract_text, normalize_space


def _paragraphs(body: str) -> list[str]:
    markup = (
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
        f"<head><title>t</title></head><body>{body}</body></html>"
    )
    return [block.text for block in extract_text(etree.fromstring(markup.encode())).blocks]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("山路を\n    登りながら", "山路を登りながら"),
        ("Call me\n    Ishmael.", "Call me Ishmael."),
        ("a  \t b", "a b"),
        ("  padded  ", "padded"),
        ("日本 語", "日本 語"),
        ("漢字\nLatin", "漢字 Latin"),
        ("\u3000indented", "\u3000indented"),
    ],
)
def test_layout_whitespace_collapses_the_way_css_does(text: str, expected: str) -> None:
    assert normalize_space(text) == expected


def test_spans_split_by_layout_newlines_join_without_spaces_in_japanese() -> None:
    body = "<p>\n  <span>智に働けば</span>\n  <span>角が立つ。</span>\n</p>"

    assert _paragraphs(body) == ["智に働けば角が立つ。"]


def test_ruby_keeps_its_base_and_drops_readings_and_parentheses() -> None:
    body = (
        "<p><ruby>山路<rt>やまみち</rt></ruby>と"
        "<ruby><rb>下人</rb><rp>（</rp><rt>げにん</rt><rp>）</rp></ruby></p>"
    )

    assert _paragraphs(body) == ["山路と下人"]


def test_br_inside_a_block_splits_it_into_paragraphs_and_keeps_blank_lines() -> None:
    assert _paragraphs("<div>一行目<br/>二行目<br/><br/>四行目<br/></div>") == [
        "一行目",
        "二行目",
        "",
        "四行目",
    ]


def test_an_empty_p_is_an_empty_paragraph_but_an_empty_div_is_nothing() -> None:
    assert _paragraphs("<p>a</p><p><br/></p><p> </p><div></div><p>b</p>") == ["a", "", "", "b"]


def test_text_directly_inside_a_div_around_blocks_is_its_own_paragraph() -> None:
    assert _paragraphs("<div>before<p>inside</p>after</div>") == ["before", "inside", "after"]


def test_headings_are_one_line_and_carry_their_level() -> None:
    markup = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body>'
        "<h2>Chapter 1<br/>The Start</h2><p>x</p></body></html>"
    )
    blocks = extract_text(etree.fromstring(markup.encode())).blocks

    assert [(b.text, b.heading_level) for b in blocks] == [("Chapter 1 The Start", 2), ("x", 0)]


def test_images_scripts_styles_and_marked_parts_are_skipped() -> None:
    body = (
        '<p>a<img src="x.png" alt="picture"/>b</p><script>var x;</script><style>p{}</style>'
        '<section epub:type="toc"><p>contents</p></section>'
        '<p>page<span epub:type="pagebreak" title="12">12</span> turns</p>'
    )

    assert _paragraphs(body) == ["ab", "page turns"]


def test_preformatted_lines_are_separate_paragraphs() -> None:
    assert _paragraphs("<pre>$ make\n$ make install\n</pre>") == ["$ make", "$ make install"]


def test_no_paragraph_ever_holds_a_newline() -> None:
    body = "<p>a\u2028b</p><p>c\r\nd</p><h1>x<br/>y</h1><blockquote>e<br/>f</blockquote>"

    assert all("\n" not in p and "\r" not in p and "\u2028" not in p for p in _paragraphs(body))


def test_ids_point_at_the_first_paragraph_after_them() -> None:
    markup = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body>'
        '<p>one</p><div id="two"><h2>Two</h2><p>2</p></div><p>three<a id="end"/></p>'
        "</body></html>"
    )
    document = extract_text(etree.fromstring(markup.encode()))

    assert document.anchors == {"two": 1, "end": 3}


_MIXED_TEXT = st.text(alphabet="ab日本。 \t\n\r\x85\u2028\u2029\u3000", max_size=30)


@settings(max_examples=60, deadline=None)
@given(
    pieces=st.lists(_MIXED_TEXT, min_size=1, max_size=5), tag=st.sampled_from(["p", "h1", "div"])
)
def test_any_text_with_breaks_gives_paragraphs_that_are_single_lines(
    pieces: list[str], tag: str
) -> None:
    body = f"<{tag}>" + "<br/>".join(escape(piece) for piece in pieces) + f"</{tag}>"

    for paragraph in _paragraphs(body):
        assert len(paragraph.splitlines()) <= 1
        assert paragraph == paragraph.strip(" \t")
