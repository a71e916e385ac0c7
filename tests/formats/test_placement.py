"""Placing translations in one document: what stays, what goes, and nothing misplaced."""

from __future__ import annotations

import re
from xml.sax.saxutils import escape

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from honyaku.formats.placement import Placement, PlacementStyle, place_translations
from honyaku.formats.xhtml import extract_text

STYLE = PlacementStyle("zh-CN")
PROPERTY_EXAMPLES = 80


def _tree(body: str) -> etree._Element:
    markup = (
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
        f"<head><title>t</title></head><body>{body}</body></html>"
    )
    return etree.fromstring(markup.encode())


def _body(root: etree._Element) -> str:
    return re.split("<body[^>]*>|</body>", etree.tostring(root, encoding="unicode"))[1]


def _place_all(root: etree._Element, *, style: PlacementStyle = STYLE) -> list[str]:
    """Translate every paragraph of the tree as 译+text (its text as the library stores it,
    without an indent); the locators that were missed."""
    blocks = extract_text(root, trace=True).blocks
    placements = [
        Placement(b.origin.locator, b.text.strip(), "译" + b.text.strip())
        for b in blocks
        if b.origin and b.text.strip()
    ]
    return place_translations(root, placements, style).missed


def test_a_paragraph_block_keeps_its_attributes_and_takes_the_target_language() -> None:
    root = _tree('<p class="first" id="p1"><ruby>山路<rt>やまみち</rt></ruby>を登りながら</p>')

    assert _place_all(root) == []
    assert _body(root) == (
        '<p class="first" id="p1" xml:lang="zh-CN" lang="zh-CN">译山路を登りながら</p>'
    )


def test_epub2_documents_get_xml_lang_only() -> None:
    root = _tree("<p>text</p>")

    _place_all(root, style=PlacementStyle("zh-CN", html_lang=False))

    assert _body(root) == '<p xml:lang="zh-CN">译text</p>'


def test_a_placement_whose_text_differs_is_missed_and_changes_nothing() -> None:
    root = _tree("<p>one</p><p>two</p>")
    [first, _] = extract_text(root, trace=True).blocks
    before = _body(root)

    result = place_translations(root, [Placement(first.origin.locator, "two", "译")], STYLE)

    assert (result.placed, result.missed) == (0, [first.origin.locator])
    assert _body(root) == before


def test_an_indent_before_the_text_stays_before_its_translation() -> None:
    root = _tree("<p>\u3000ある日の暮方の事である。</p><p>\u3000<em>強調</em></p>")

    _place_all(root)

    assert [b.text for b in extract_text(root).blocks] == [
        "\u3000译ある日の暮方の事である。",
        "\u3000译強調",
    ]


def test_only_some_lines_of_a_block_translated_are_marked_one_by_one() -> None:
    root = _tree("<p>一<br/>二</p>")
    [first, _] = extract_text(root, trace=True).blocks

    place_translations(root, [Placement(first.origin.locator, "一", "译一")], STYLE)

    assert _body(root) == '<p><span xml:lang="zh-CN" lang="zh-CN">译一</span><br/>二</p>'


def test_a_run_with_a_block_inside_an_inline_element_is_left_whole() -> None:
    root = _tree("<p><span>a<br/>b<div>c</div>d</span></p>")

    missed = _place_all(root)

    assert [b.text for b in extract_text(root).blocks] == ["a", "b", "译c", "d"]
    assert len(missed) == 3


_PIECE = st.one_of(
    st.text(alphabet="ab日本。 \n\u3000", min_size=1, max_size=6).map(escape),
    st.sampled_from(
        [
            "<br/>",
            "<em>強調</em>",
            "<ruby>漢<rt>かん</rt></ruby>",
            '<img src="i.png" alt=""/>',
            '<a id="x" href="#x">link</a>',
            '<span epub:type="pagebreak" id="pg">7</span>',
            " ",
        ]
    ),
    st.sampled_from(
        ["<p>", "</p>", "<span>", "</span>", "<div>", "</div>", "<h2>", "</h2>", "<pre>", "</pre>"]
    ),
)
_OPENING = {"<p>", "<span>", "<div>", "<h2>", "<pre>"}


def _balanced(pieces: list[str]) -> str:
    """The pieces with every tag closed in order, so that any list makes a valid tree."""
    out: list[str] = []
    open_tags: list[str] = []
    for piece in pieces:
        if piece.startswith("</"):
            name = piece[2:-1]
            while name in open_tags:
                closing = open_tags.pop()
                out.append(f"</{closing}>")
                if closing == name:
                    break
            continue
        if piece in _OPENING:
            open_tags.append(piece[1:-1])
        out.append(piece)
    return "".join(out + [f"</{name}>" for name in reversed(open_tags)])


@settings(max_examples=PROPERTY_EXAMPLES, deadline=None)
@given(pieces=st.lists(_PIECE, max_size=16))
def test_any_document_translated_in_place_reads_back_as_its_translation(
    pieces: list[str],
) -> None:
    root = _tree(_balanced(pieces))
    before = extract_text(root, trace=True).blocks
    unclean = {b.origin.locator for b in before if b.origin and b.origin.items is None}

    missed = set(_place_all(root))
    after = [b.text.strip() for b in extract_text(root).blocks]

    assert missed <= unclean  # a line that can be cut out alone is always placed
    assert after == [
        "译" + b.text.strip()
        if b.text.strip() and b.origin and b.origin.locator not in missed
        else b.text.strip()
        for b in before
    ]
