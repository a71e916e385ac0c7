"""A paragraph's inline markup as the workbench draws it, and as a person edits it.

A text and its marks become ``InlineNode``s, which ``macros.html`` (``inline``) draws with
autoescaping: the element names and classes come from this module's own short list, never
from the book or a model, and the book's attributes show only as a tooltip (a link's target,
an image's text). Emphasis, strong and code look like themselves; a link is underlined, a
note reference raised, an image a small sign, ruby drawn as ruby.

A translation is edited with its placeholders written plainly (``⟦1⟧…⟦/1⟧``), the way the
model returned them: a version written by hand is read and checked like a model's
(``domain.book.manual_version``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from honyaku.domain.book import Paragraph
from honyaku.domain.placeholders import (
    RUBY_PARTS,
    Nested,
    PlacedMark,
    RubyChoice,
    is_reference,
    marked_translation,
    nest,
    ordered,
    shown_line,
)
from honyaku.domain.sources import InlineMark

SHOWN_AS = {
    **dict.fromkeys(("em", "i", "cite", "dfn", "var"), "em"),
    **dict.fromkeys(("strong", "b"), "strong"),
    **dict.fromkeys(("code", "tt", "kbd", "samp"), "code"),
    **dict.fromkeys(("s", "strike", "del"), "s"),
    **dict.fromkeys(("u", "ins"), "u"),
    "sup": "sup",
    "sub": "sub",
    "small": "small",
}
"""What each element is drawn as; any other is a ``span``."""
IMAGE_SIGN = "▣"


@dataclass(slots=True)
class InlineNode:
    """Text (``tag`` is ``None``) or an element of the workbench's own list."""

    tag: str | None
    text: str = ""
    css: str = ""
    title: str = ""
    reading: str = ""
    children: list[InlineNode] = field(default_factory=list)


def source_nodes(paragraph: Paragraph) -> list[InlineNode]:
    """The paragraph's source text with its marks."""
    placed = [
        PlacedMark((i,), m.start, m.end)
        for i, m in enumerate(paragraph.marks)
        if m.tag not in RUBY_PARTS and not (m.tag == "img" and m.start < m.end)
    ]
    return nodes_of(paragraph.text, placed, paragraph.marks, paragraph.text)


def translation_nodes(
    text: str, placed: Sequence[PlacedMark], paragraph: Paragraph
) -> list[InlineNode]:
    """A translation of ``paragraph`` (its selected one, or a version) with its marks."""
    return nodes_of(text, placed, paragraph.marks, paragraph.text)


def editable(text: str, placed: Sequence[PlacedMark], paragraph: Paragraph, ruby: str) -> str:
    """A translation as a person edits it: its marks as the line's placeholders."""
    line = shown_line(paragraph.text, paragraph.marks, RubyChoice(ruby))
    return marked_translation(text, placed, line)


def nodes_of(
    text: str, placed: Sequence[PlacedMark], marks: Sequence[InlineMark], source: str
) -> list[InlineNode]:
    spans = [
        (m.start, m.end, m)
        for m in placed
        if m.marks and all(0 <= i < len(marks) for i in m.marks) and m.end <= len(text)
    ]
    return _nodes(text, nest(ordered(spans)), 0, len(text), marks, source)


def _nodes(
    text: str,
    tree: list[Nested[PlacedMark]],
    start: int,
    end: int,
    marks: Sequence[InlineMark],
    source: str,
) -> list[InlineNode]:
    found: list[InlineNode] = []
    position = start
    for node in tree:
        if node.start > position:
            found.append(InlineNode(None, text[position : node.start]))
        mark = marks[node.item.marks[0]]
        words = text[node.start : node.end]
        inner = _nodes(text, node.children, node.start, node.end, marks, source)
        found.append(_node(mark, words, inner, source))
        position = max(position, node.end)
    if position < end:
        found.append(InlineNode(None, text[position:end]))
    return found


def _node(mark: InlineMark, words: str, inner: list[InlineNode], source: str) -> InlineNode:
    attributes = dict(mark.attributes)
    if mark.tag == "br":
        return InlineNode("br")
    if mark.tag == "img":
        return InlineNode("span", IMAGE_SIGN, "mark-image", attributes.get("alt", ""))
    if is_reference(mark, source[mark.start : mark.end]):
        return InlineNode("sup", words, "mark-reference", attributes.get("href", ""))
    if mark.tag == "ruby":
        return InlineNode("ruby", reading=mark.reading or "", children=inner)
    if mark.tag == "a":
        return InlineNode("span", css="mark-link", title=attributes.get("href", ""), children=inner)
    tag = SHOWN_AS.get(mark.tag)
    if tag is None:
        return InlineNode(
            "span", css="mark-span", title=attributes.get("class", ""), children=inner
        )
    return InlineNode(tag, children=inner)
