"""Inline elements put back around the words a text's marks cover.

A translation keeps its inline marks beside its text (``domain.placeholders.PlacedMark``: a
group of the source's marks, by index, over a span of the translation). ``InlineBuilder``
turns the text and its marks into a run of strings and elements, nested as the marks are:

- each element is the source's own, found among the elements of the line it translates
  (same name, same attributes, same words where they can be told): a pair's element is
  copied without its content and holds the translated words; an element without words of
  its own (an image, a line break, an empty anchor) and a note reference (its number kept as
  the book wrote it) are copied whole;
- a ruby holds the translated words as its base, with the source's readings (``rt``) and
  parentheses (``rp``);
- an element the line does not hold (a book rebuilt from its paragraphs, an Aozora Bunko
  text) is made from its mark, and in a generated book (``safe``) only as an element any
  EPUB 3 reader takes: known inline elements, ``class``, links out of the book, no ids.

A copy around translated words drops the source's ``lang``: its words are the target's now.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from lxml import etree

from honyaku.domain.placeholders import (
    RUBY_PARTS,
    Nested,
    PlacedMark,
    is_reference,
    nest,
    ordered,
)
from honyaku.domain.sources import InlineMark
from honyaku.formats.markup import local_name
from honyaku.formats.xhtml import inline_text

Item: TypeAlias = str | etree._Element

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
LANGUAGE_ATTRIBUTES = frozenset({"lang", XML_LANG})
RUBY_ANNOTATIONS = frozenset({"rt", "rp", "rtc"})
SAFE_TAGS = frozenset(
    """
    a abbr b bdi cite code dfn em i kbd mark q rb ruby s samp small span strong sub sup u var
    """.split()  # noqa: SIM905
)
"""What a generated book keeps of an element, by name; another becomes a span."""
SAFE_RENAMED = {"tt": "code", "font": "span", "big": "span", "strike": "s"}
SAFE_LINK_SCHEMES = ("http://", "https://", "mailto:")


@dataclass(frozen=True, slots=True)
class Marked:
    """A text with its marks, and what they refer to: the source's marks and text."""

    text: str
    placed: tuple[PlacedMark, ...] = ()
    marks: tuple[InlineMark, ...] = ()
    source: str = ""

    @classmethod
    def source_of(cls, text: str, marks: Sequence[InlineMark]) -> Marked:
        """A source paragraph with its own marks, each in place (a gaiji's image and a ruby's
        parts aside: the text holds the character, the ruby builds its parts)."""
        placed = tuple(
            PlacedMark((index,), mark.start, mark.end)
            for index, mark in enumerate(marks)
            if mark.tag not in RUBY_PARTS and not (mark.tag == "img" and mark.start < mark.end)
        )
        return cls(text, placed, tuple(marks), text)


class InlineBuilder:
    """Makes the inline content of a text with its marks, in one document."""

    def __init__(
        self,
        namespace: str | None,
        line: Iterable[Item] = (),
        *,
        safe: bool = False,
        drop_ids: bool = False,
    ) -> None:
        self.namespace = namespace
        self.pool = [
            element
            for item in line
            if not isinstance(item, str)
            for element in item.iter()
            if isinstance(element.tag, str)
        ]
        """The elements of the source line, in document order; each is used once."""
        self.safe = safe
        self.drop_ids = drop_ids

    def items(self, marked: Marked) -> list[Item]:
        """``marked.text`` as strings and elements."""
        spans = [(m.start, m.end, m) for m in marked.placed if _fits(m, marked)]
        return self._run(marked, nest(ordered(spans)), 0, len(marked.text))

    def _run(
        self, marked: Marked, nodes: list[Nested[PlacedMark]], start: int, end: int
    ) -> list[Item]:
        items: list[Item] = []
        position = start
        for node in nodes:
            items.append(marked.text[position : node.start])
            items += self._element(marked, node)
            position = node.end
        items.append(marked.text[position:end])
        return items

    def _element(self, marked: Marked, node: Nested[PlacedMark]) -> list[Item]:
        group = [marked.marks[i] for i in node.item.marks]
        whole = node.start == node.end or any(
            is_reference(m, marked.source[m.start : m.end]) for m in group
        )
        if whole:
            found = self._take(group[0], marked.source)
            if found is not None:
                inside = set(found.iter())
                self.pool = [e for e in self.pool if e not in inside]
                return [self._copy(found, deep=True)]
            made = self._made(group[0], marked.text[node.start : node.end])
            return [made] if made is not None else [marked.text[node.start : node.end]]
        content = self._run(marked, node.children, node.start, node.end)
        if any(m.tag == "ruby" for m in group):
            group = [m for m in group if m.tag != "rb"]
        for mark in reversed(group):
            content = self._wrapped(mark, marked.source, content)
        return content

    def _wrapped(self, mark: InlineMark, source: str, content: list[Item]) -> list[Item]:
        found = self._take(mark, source)
        if mark.tag == "ruby":
            return [self._ruby(mark, found, content)]
        if found is not None:
            element = self._copy(found, deep=False)
        else:
            made = self._made(mark, None)
            if made is None:
                return content
            element = made
        _set_items(element, content)
        return [element]

    def _ruby(
        self, mark: InlineMark, found: etree._Element | None, content: list[Item]
    ) -> etree._Element:
        if found is None:
            ruby = self._new("ruby", dict(mark.attributes))
            base: list[Item] = content
            annotations = [self._new("rp", {}, "("), self._new("rt", {}, mark.reading or "")]
            annotations.append(self._new("rp", {}, ")"))
            _set_items(ruby, [*base, *annotations])
            return ruby
        ruby = self._copy(found, deep=False)
        children = [c for c in found if isinstance(c.tag, str)]
        rb = next((c for c in children if local_name(c.tag) == "rb"), None)
        if rb is not None:
            holder = self._copy(rb, deep=False)
            _set_items(holder, content)
            content = [holder]
        annotations = [
            self._copy(child, deep=True)
            for child in children
            if local_name(child.tag) in RUBY_ANNOTATIONS
        ]
        _set_items(ruby, [*content, *annotations])
        return ruby

    # -- the source's elements ---------------------------------------------------------------

    def _take(self, mark: InlineMark, source: str) -> etree._Element | None:
        """The first unused element of the line that is ``mark``'s: by name and attributes,
        and by its words where one has them."""
        words = source[mark.start : mark.end].strip()
        alike = [
            e
            for e in self.pool
            if local_name(e.tag) == mark.tag and _attributes(e) == mark.attributes
        ]
        found = next((e for e in alike if inline_text(e).strip() == words), None)
        if found is None and alike:
            found = alike[0]
        if found is not None:
            self.pool.remove(found)
        return found

    def _copy(self, element: etree._Element, *, deep: bool) -> etree._Element:
        if deep:
            made = copy.deepcopy(element)
            made.tail = None
        else:
            made = etree.Element(element.tag, dict(element.attrib), nsmap=element.nsmap)
            for name in LANGUAGE_ATTRIBUTES & set(made.attrib):
                del made.attrib[name]
        if self.drop_ids:
            for inner in made.iter():
                if isinstance(inner.tag, str):
                    inner.attrib.pop("id", None)
        return made

    def _made(self, mark: InlineMark, text: str | None) -> etree._Element | None:
        """An element made from ``mark`` alone; ``None`` where a generated book cannot hold
        it (an image it does not carry)."""
        name = mark.tag
        attributes = dict(mark.attributes)
        if self.safe:
            if name in ("img", "br") or (mark.start == mark.end and name != "br"):
                return self._new("br", {}) if name == "br" else None
            name = SAFE_RENAMED.get(name, name if name in SAFE_TAGS else "span")
            attributes = _safe_attributes(name, attributes)
        for language in LANGUAGE_ATTRIBUTES & set(attributes):
            del attributes[language]
        return self._new(name, attributes, text)

    def _new(
        self, name: str, attributes: dict[str, str], text: str | None = None
    ) -> etree._Element:
        tag = f"{{{self.namespace}}}{name}" if self.namespace else name
        element = etree.Element(tag, attributes)
        element.text = text
        return element


def _fits(mark: PlacedMark, marked: Marked) -> bool:
    return (
        0 <= mark.start <= mark.end <= len(marked.text)
        and all(0 <= i < len(marked.marks) for i in mark.marks)
        and bool(mark.marks)
    )


def _attributes(element: etree._Element) -> tuple[tuple[str, str], ...]:
    return tuple((str(key), str(value)) for key, value in element.attrib.items())


def _safe_attributes(name: str, attributes: dict[str, str]) -> dict[str, str]:
    kept = {"class": attributes["class"]} if "class" in attributes else {}
    href = attributes.get("href", "")
    if name == "a" and href.startswith(SAFE_LINK_SCHEMES):
        kept["href"] = href
    return kept


def _set_items(element: etree._Element, items: Iterable[Item]) -> None:
    """Make ``items`` the content of ``element`` (which has none yet)."""
    last: etree._Element | None = None
    for item in items:
        if isinstance(item, str):
            if not item:
                continue
            if last is None:
                element.text = (element.text or "") + item
            else:
                last.tail = (last.tail or "") + item
            continue
        item.tail = None
        element.append(item)
        last = item


def ids_in(items: Iterable[Item]) -> set[str]:
    """The ids the elements among ``items`` carry, inside them too."""
    return {
        element.get("id") or ""
        for item in items
        if not isinstance(item, str)
        for element in item.iter()
        if isinstance(element.tag, str) and element.get("id")
    }
