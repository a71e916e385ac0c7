"""Putting translations where their paragraphs came from, in one parsed content document.

The document is walked again with the same rules that made its paragraphs (``xhtml``), this
time tracing each one to its container and items (``locators``). A translation is placed
only where the locator finds a paragraph whose text is still exactly the stored source text:
anything else is left as it is and counted as missed, so a translation is never misplaced.

How a paragraph's line becomes its translation:

- the block element itself stays, with its attributes; only its inline content changes;
- things without text at either edge of the line (an image, an anchor, a page-break
  marker) stay where they are;
- an inline element that holds the whole text (a ``<span id>`` around a sentence, an
  ``<em>`` around a title, a link that is the whole line) stays, with the translation
  inside it; this repeats inward;
- everything else inside (ruby, emphasis, code, links, note references within a sentence)
  goes back around the translated words its marks cover (``inline_marks``; the model
  returned them as placeholders, ``domain.placeholders``); what a translation has no mark
  for is dropped, and ids it carried stay as empty anchors at the line's start, so that
  links into the text still resolve;
- a line that cannot be cut out alone (broken by a ``<br>`` inside an inline element, a
  newline in ``<pre>``) has its whole run rewritten as plain lines joined by ``<br/>``.

Bilingual output puts the source before its translation: a paragraph block (``p``, a
heading, ``div``…) is copied, the copy keeping the ids and the source text, the original
taking the translation, a class and the target language; a line that shares its block
with others gets ``<br/>`` and a ``<span>`` with its translation after it instead.
"""

from __future__ import annotations

import copy
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lxml import etree

from honyaku.domain.placeholders import PlacedMark
from honyaku.domain.sources import InlineMark
from honyaku.formats.chapters import same_title
from honyaku.formats.inline_marks import InlineBuilder, Item, Marked, ids_in
from honyaku.formats.locators import BlockOrigin
from honyaku.formats.markup import local_name
from honyaku.formats.xhtml import BLOCK_TAGS, Block, extract_text, inline_text

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
TRANSLATION_CLASS = "honyaku-translation"
DUPLICATED_BLOCKS = frozenset(
    "p div blockquote h1 h2 h3 h4 h5 h6 pre address center".split()  # noqa: SIM905
)
"""Blocks that bilingual output repeats whole; in others (li, td, dd…) a line follows."""
UNWRAPPABLE = frozenset("ruby rb rt rp rtc img br svg math object video audio".split())  # noqa: SIM905
RUBY_ANNOTATIONS = frozenset(["rt", "rp", "rtc"])

# Characters XML 1.0 cannot hold; a stray one in a translation must not break the document.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class Placement:
    """A translation for the paragraph at ``locator``, whose text must be ``source_text``
    as the library stores it (without an indent of ideographic or no-break spaces), or,
    for a ``title``, read the same as it: a chapter title may differ from its heading in
    width, case or spacing."""

    locator: str
    source_text: str
    translation: str
    title: bool = False
    marks: tuple[InlineMark, ...] = ()
    """The source paragraph's inline marks."""
    placed: tuple[PlacedMark, ...] = ()
    """Where they land in ``translation``."""

    def matches(self, text: str) -> bool:
        if self.title:
            return same_title(text, self.source_text)
        return text.strip() == self.source_text


@dataclass(frozen=True, slots=True)
class PlacementStyle:
    """How translations are marked up in one document."""

    language: str
    html_lang: bool = True
    """Set ``lang`` beside ``xml:lang`` (XHTML 1.1, in EPUB 2, has no ``lang``)."""
    bilingual: bool = False
    drop_source_ruby: bool = False


@dataclass(slots=True)
class PlacementResult:
    placed: int = 0
    missed: list[str] = field(default_factory=list)
    """Locators of placements that found no paragraph with their source text."""
    bilingual: bool = False
    """Whether bilingual markup was added (the document then needs its stylesheet)."""


@dataclass(slots=True)
class _Line:
    origin: BlockOrigin
    translation: Marked


@dataclass(slots=True)
class _Edit:
    """Items ``first..last`` of a container replaced by ``items``, placing ``lines``."""

    first: int
    last: int
    items: list[Item]
    lines: list[str]


def place_translations(
    root: etree._Element, placements: Iterable[Placement], style: PlacementStyle
) -> PlacementResult:
    """Put each translation in place in the tree under ``root`` (changed in place)."""
    document = extract_text(root, trace=True)
    read = _blocks_per_container(document.blocks)
    found = {
        b.origin.locator: (b.text, b.origin)
        for blocks in read.values()
        for b in blocks
        if b.origin is not None
    }
    result = PlacementResult()
    by_container: dict[etree._Element, list[_Line]] = defaultdict(list)
    for placement in placements:
        text, origin = found.get(placement.locator, (None, None))
        translation = _clean(placement.translation).strip()
        if origin is None or text is None or not placement.matches(text) or not translation:
            result.missed.append(placement.locator)
            continue
        # A character XML cannot hold was taken out: the marks no longer fit.
        marks = placement.placed if translation == placement.translation else ()
        marked = Marked(translation, marks, placement.marks, placement.source_text)
        by_container[origin.container].append(_Line(origin, marked))
    for container, lines in by_container.items():
        editor = _ContainerEditor(container, read[container], style)
        placed = editor.place(lines)
        result.placed += placed
        result.missed += editor.missed
        result.bilingual = result.bilingual or (style.bilingual and placed > 0)
    return result


def _blocks_per_container(blocks: Sequence[Block]) -> dict[etree._Element, list[Block]]:
    """The paragraphs read from each block element (text outside any has none to go back to)."""
    per_container: dict[etree._Element, list[Block]] = defaultdict(list)
    for block in blocks:
        if block.origin is not None and block.origin.container is not None:
            per_container[block.origin.container].append(block)
    return per_container


def _clean(text: str) -> str:
    return _NOT_XML.sub("", text)


class _ContainerEditor:
    """The translated lines of one block element, applied together."""

    def __init__(
        self, container: etree._Element, blocks: list[Block], style: PlacementStyle
    ) -> None:
        self.container = container
        self.blocks = blocks
        """Every paragraph read from the container, in order."""
        self.style = style
        self.namespace = etree.QName(container).namespace
        self.missed: list[str] = []
        self.whole = True
        """Every line with text in the container is being translated."""
        self.duplicate = False
        """The container is being repeated: the copy keeps the source, edges and ids."""

    def place(self, lines: list[_Line]) -> int:
        self.whole = len(lines) == sum(1 for block in self.blocks if block.text)
        self.duplicate = duplicate = self.style.bilingual and self._repeats_whole()
        source_copy = copy.deepcopy(self.container) if duplicate else None
        items = content_items(self.container)
        inline_bilingual = self.style.bilingual and not duplicate
        taken: list[_Edit] = []
        for edit in sorted(self._edits(lines, items, inline_bilingual), key=lambda e: -e.first):
            if any(edit.first <= done.last and done.first <= edit.last for done in taken):
                self.missed += edit.lines  # a run that shares items with one already written
                continue
            items[edit.first : edit.last + 1] = edit.items
            taken.append(edit)
        set_content(self.container, items)
        placed = sum(len(edit.lines) for edit in taken)
        if placed and ((self.whole and not self.style.bilingual) or duplicate):
            _set_language(self.container, self.style)
        if placed and source_copy is not None:
            self._put_source_before(source_copy)
        return placed

    def _repeats_whole(self) -> bool:
        name = local_name(self.container.tag)
        if name not in DUPLICATED_BLOCKS or not self.whole:
            return False
        if self.container.getparent() is None:
            return False
        inner = self.container.iterdescendants()
        return not any(local_name(e.tag) in BLOCK_TAGS for e in inner if isinstance(e.tag, str))

    def _edits(self, lines: list[_Line], items: list[Item], inline_bilingual: bool) -> list[_Edit]:
        edits = []
        runs: dict[tuple[int, int], list[_Line]] = defaultdict(list)
        for line in lines:
            runs[line.origin.run].append(line)
        for run, run_lines in runs.items():
            uncut = any(line.origin.items is None for line in run_lines)
            if uncut and not _holds_blocks(items[run[0] : run[1] + 1]):
                locators = [line.origin.locator for line in run_lines]
                run_items = items[run[0] : run[1] + 1]
                new_run = self._plain_run(run, run_lines, run_items)
                edits.append(_Edit(*run, new_run, locators))
                continue
            for line in run_lines:
                if line.origin.items is None:
                    # Rewriting its run would lose the blocks inside it: the line stays.
                    self.missed.append(line.origin.locator)
                    continue
                first, last = line.origin.items
                line_items = items[first : last + 1]
                new = (
                    self._followed_by_translation(line_items, line.translation)
                    if inline_bilingual
                    else self._translated(line_items, line.translation)
                )
                edits.append(_Edit(first, last, new, [line.origin.locator]))
        return edits

    # -- one line ----------------------------------------------------------------------------

    def _translated(self, line_items: list[Item], translation: Marked) -> list[Item]:
        """The line with its text replaced by ``translation``, keeping what stays aligned."""
        start, end = _text_bounds(line_items)
        if start is None or end is None:
            return line_items
        lead, core, trail = line_items[:start], line_items[start : end + 1], line_items[end + 1 :]
        if self.duplicate:  # images and anchors at the edges are the source copy's
            lead, trail = [i for i in lead if isinstance(i, str)], [""]
        return [*lead, *self._translated_core(core, translation), *trail]

    def _translated_core(self, core: list[Item], translation: Marked) -> list[Item]:
        elements = [item for item in core if not isinstance(item, str)]
        if len(core) == 1 and elements and _can_wrap(elements[0]):
            wrapper = elements[0]
            set_content(wrapper, self._translated(content_items(wrapper), translation))
            return [wrapper]
        inline = InlineBuilder(self.namespace, core).items(translation)
        text: list[Item] = inline
        if not self.whole:
            span = self._element("span")
            set_content(span, inline)
            _set_language(span, self.style)
            text = [span]
        # Space at the ends of the text stays: an indent (　), or what parts it from an image.
        before, after = _edge_space(core[0], leading=True), _edge_space(core[-1], leading=False)
        if self.duplicate:
            return [before, *text, after]
        return [*self._anchors(elements, ids_in(text)), before, *text, after]

    def _followed_by_translation(self, line_items: list[Item], translation: Marked) -> list[Item]:
        source = _without_ruby(line_items) if self.style.drop_source_ruby else line_items
        follower = self._element("span")
        builder = InlineBuilder(self.namespace, line_items, drop_ids=True)
        set_content(follower, builder.items(translation))
        follower.set("class", TRANSLATION_CLASS)
        _set_language(follower, self.style)
        return [*source, self._element("br"), follower]

    def _plain_run(
        self, run: tuple[int, int], translated: list[_Line], run_items: list[Item]
    ) -> list[Item]:
        """The whole run as plain lines: translations where given, source text elsewhere.
        An inline element that holds the whole run (a ``<span id>`` around a poem's lines)
        stays, with the lines inside it; ids of the others stay as anchors."""
        by_locator = {line.origin.locator: line.translation.text for line in translated}
        in_pre = any(
            local_name(e.tag) == "pre" for e in (self.container, *self.container.iterancestors())
        )
        lines = [
            by_locator.get(block.origin.locator, block.text)
            for block in self.blocks
            if block.origin is not None and block.origin.run == run
        ]
        if lines and not lines[-1]:
            lines.append("")  # a last blank line is only read as one when a break ends it
        new: list[Item] = []
        for index, line in enumerate(lines):
            if index:
                new.append("\n" if in_pre else self._element("br"))
            new.append(line)
        elements = [item for item in run_items if not isinstance(item, str)]
        blank = all(not item.strip() for item in run_items if isinstance(item, str))
        if blank and len(elements) == 1 and _can_wrap(elements[0]):
            set_content(elements[0], new)
            return run_items
        return new if self.duplicate else [*self._anchors(elements, set()), *new]

    # -- pieces ------------------------------------------------------------------------------

    def _anchors(self, dropped: list[etree._Element], kept: set[str]) -> list[Item]:
        """Empty anchors keeping the ids of the elements a translation drops (all but those
        it ``kept``): a link's name and id stay on a link, any other id on a span."""
        anchors: list[Item] = []
        for top in dropped:
            for element in top.iter():
                if not isinstance(element.tag, str) or element.get("id") in kept:
                    continue
                if not element.get("id") and not (
                    local_name(element.tag) == "a" and element.get("name")
                ):
                    continue
                link = local_name(element.tag) == "a"
                anchor = self._element("a" if link else "span")
                for name in ("id", "name") if link else ("id",):
                    if element.get(name):
                        anchor.set(name, element.get(name))
                anchors.append(anchor)
        return anchors

    def _element(self, name: str, text: str | None = None) -> etree._Element:
        tag = f"{{{self.namespace}}}{name}" if self.namespace else name
        element = etree.Element(tag)
        element.text = text
        return element

    def _put_source_before(self, source: etree._Element) -> None:
        if self.style.drop_source_ruby:
            set_content(source, _without_ruby(content_items(source)))
        for element in self.container.iter():
            if isinstance(element.tag, str) and "id" in element.attrib:
                del element.attrib["id"]
        classes = (self.container.get("class") or "").split()
        self.container.set("class", " ".join([*classes, TRANSLATION_CLASS]))
        self.container.addprevious(source)


def translate_label(element: etree._Element, translation: str, style: PlacementStyle) -> None:
    """Replace the text of a one-line element (a link in a table of contents, a title)."""
    editor = _ContainerEditor(element, [], style)
    marked = Marked(_clean(translation))
    set_content(element, editor._translated(content_items(element), marked))
    _set_language(element, style)


# -- items: an element's inline content as a list ---------------------------------------------


def content_items(element: etree._Element) -> list[Item]:
    """``element.text``, then each child and its tail: item ``2i+1`` is child ``i``."""
    items: list[Item] = [element.text or ""]
    for child in element:
        items += [child, child.tail or ""]
    return items


def set_content(element: etree._Element, items: Iterable[Item]) -> None:
    """Make ``items`` (strings and elements, in any order) the content of ``element``."""
    del element[:]
    element.text = None
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


def _text_bounds(items: list[Item]) -> tuple[int | None, int | None]:
    """The first and last item that carry visible text."""
    carrying = [index for index, item in enumerate(items) if _has_text(item)]
    return (carrying[0], carrying[-1]) if carrying else (None, None)


def _has_text(item: Item) -> bool:
    if isinstance(item, str):
        return bool(item.strip())
    return isinstance(item.tag, str) and bool(inline_text(item).strip())


def _edge_space(item: Item, *, leading: bool) -> str:
    if not isinstance(item, str):
        return ""
    stripped = item.lstrip() if leading else item.rstrip()
    return item[: len(item) - len(stripped)] if leading else item[len(stripped) :]


def _holds_blocks(items: list[Item]) -> bool:
    """Whether a block element sits inside any of the items (a div inside a span)."""
    return any(
        isinstance(d.tag, str) and local_name(d.tag) in BLOCK_TAGS
        for item in items
        if not isinstance(item, str)
        for d in item.iterdescendants()
    )


def _can_wrap(element: etree._Element) -> bool:
    name = local_name(element.tag)
    return name is not None and name not in UNWRAPPABLE and name not in BLOCK_TAGS


def _set_language(element: etree._Element, style: PlacementStyle) -> None:
    element.set(XML_LANG, style.language)
    if style.html_lang:
        element.set("lang", style.language)


def _without_ruby(items: list[Item]) -> list[Item]:
    """The items with every ruby reduced to its base text."""
    result: list[Item] = []
    for item in items:
        if isinstance(item, str) or not isinstance(item.tag, str):
            result.append(item)
        elif local_name(item.tag) == "ruby":
            result.append(_ruby_base(item))
        else:
            set_content(item, _without_ruby(content_items(item)))
            result.append(item)
    return result


def _ruby_base(element: etree._Element) -> str:
    """The text of a ruby without its readings (rt) and their parentheses (rp)."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and local_name(child.tag) not in RUBY_ANNOTATIONS:
            parts.append(_ruby_base(child))
        parts.append(child.tail or "")
    return "".join(parts)
