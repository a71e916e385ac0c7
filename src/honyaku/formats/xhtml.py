"""Paragraphs out of an (X)HTML tree: blocks, line breaks, ruby and layout whitespace.

The rules, in the order a reader meets them:

- every block element (p, div, h1–h6, li, blockquote, td, …) starts and ends a paragraph;
  text directly inside a div is a paragraph too;
- ``<br>`` ends a line (so does a newline inside ``<pre>``), and a line is a paragraph:
  a paragraph never holds a newline; ``<br>`` inside a heading only joins, since a title
  is one line;
- an empty ``<p>`` (nothing but whitespace or ``<br>``) is an empty paragraph, which keeps the
  blank lines that Japanese novels rely on;
- ruby keeps its base text; rt and rp are dropped; images, scripts, styles, form controls,
  and parts the book marks as cover, table of contents, page-break or copyright page are
  skipped;
- layout whitespace is collapsed the way CSS does it: a line break between two East Asian
  wide characters disappears, any other run of whitespace becomes one space.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from lxml import etree

from honyaku.formats.aozora import gaiji_character
from honyaku.formats.limits import BookBudget
from honyaku.formats.locators import BlockOrigin, LineTrace, NodeKind, SourceTracker
from honyaku.formats.markup import local_name

# Word lists read better than columns of quoted words, hence the SIM905 exemptions.
BLOCK_TAGS = frozenset(
    """
    address article aside blockquote body caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr li main menu
    nav ol p pre section summary table tbody td tfoot th thead tr ul
    """.split()  # noqa: SIM905
)
SKIPPED_TAGS = frozenset(
    """
    audio button canvas embed head iframe img input label link map math meta noscript object
    rp rt rtc script select style svg template textarea title video
    """.split()  # noqa: SIM905
)
SKIPPED_EPUB_TYPES = frozenset(
    "cover toc landmarks page-list loi lot lov loa pagebreak copyright-page".split()  # noqa: SIM905
)
SKIPPED_ROLES = frozenset(["doc-pagebreak", "doc-toc", "doc-cover"])
HEADING_LEVELS = {f"h{n}": n for n in range(1, 7)}
# Aozora Bunko's XHTML marks its heading levels by class: 大見出し, 中見出し, 小見出し.
AOZORA_HEADING_CLASSES = {"o-midashi": 1, "naka-midashi": 2, "ko-midashi": 3}
EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"

_SPACE_RUN = re.compile(r"[ \t\f\v]+")
# Everything str.splitlines() would break at counts as a line break here, so that no
# paragraph can ever hold one.
_BREAK_RUN = re.compile(
    r"[ \t\f\v]*[\n\r\x1c-\x1e\x85\u2028\u2029][ \t\n\r\f\v\x1c-\x1e\x85\u2028\u2029]*"
)
_BREAKS = ("\n", "\r", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_STRIPPED = " \t\n\r\f\v\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True, slots=True)
class Block:
    """One paragraph of a document; ``heading_level`` is 1–6 for headings, else 0.

    ``origin`` says where in the tree it came from, when the walk was asked to trace.
    """

    text: str
    heading_level: int = 0
    origin: BlockOrigin | None = field(default=None, compare=False, repr=False)


@dataclass(slots=True)
class DocumentText:
    """The paragraphs of one document, and where its ids point among them."""

    blocks: list[Block] = field(default_factory=list)
    anchors: dict[str, int] = field(default_factory=dict)
    """Element id -> index of the first block at or after the element."""
    title: str | None = None


def normalize_space(text: str) -> str:
    """Collapse layout whitespace the way CSS does for horizontal text, then trim."""
    if any(brk in text for brk in _BREAKS):
        text = _BREAK_RUN.sub(_join_across_break, text)
    return _SPACE_RUN.sub(" ", text).strip(_STRIPPED)


def _join_across_break(match: re.Match[str]) -> str:
    text, start, end = match.string, match.start(), match.end()
    if start > 0 and end < len(text) and _is_wide(text[start - 1]) and _is_wide(text[end]):
        return ""
    return " "


def _is_wide(char: str) -> bool:
    if "\uac00" <= char <= "\ud7af" or "\u1100" <= char <= "\u11ff":
        return False  # Hangul is written with spaces between words.
    return unicodedata.east_asian_width(char) in ("W", "F", "H")


def element_text(element: etree._Element) -> str:
    """The visible inline text of one element on one line (nav labels, titles)."""
    collector = _Collector(aozora=False)
    collector.heading_depth = 1  # a label is one line, like a heading
    collector.walk_children(element)
    collector.flush()
    return " ".join(block.text for block in collector.document.blocks if block.text)


def inline_text(element: etree._Element) -> str:
    """The text ``element`` adds to its paragraph: nothing for a skipped element."""
    collector = _Collector(aozora=False)
    collector.heading_depth = 1
    if collector._kind(element, local_name(element.tag)) not in (NodeKind.INLINE, NodeKind.BLOCK):
        return ""
    collector.walk_children(element)
    collector.flush()
    return " ".join(block.text for block in collector.document.blocks if block.text)


def extract_text(
    root: etree._Element,
    *,
    aozora: bool = False,
    trace: bool = False,
    budget: BookBudget | None = None,
) -> DocumentText:
    """The paragraphs under ``root`` (its ``body`` when it has one).

    ``aozora`` turns on Aozora Bunko's XHTML conventions: heading classes, gaiji images whose
    alt text names the character, and ``span.notes`` editor's notes, which are skipped.
    ``trace`` gives each block its ``origin`` (see ``locators``). Each paragraph is charged to
    ``budget`` as it is written, so that a document of millions of paragraphs is refused as
    soon as the book passes a cap.
    """
    body = _find_body(root)
    collector = _Collector(aozora=aozora, tracker=SourceTracker() if trace else None, budget=budget)
    collector.walk(body)
    collector.flush()
    collector.document.title = _document_title(root)
    return collector.document


def _find_body(root: etree._Element) -> etree._Element:
    for element in root.iter():
        if local_name(element.tag) == "body":
            return element
    return root


def _document_title(root: etree._Element) -> str | None:
    for element in root.iter():
        name = local_name(element.tag)
        if name == "title":
            return normalize_space("".join(element.itertext())) or None
        if name == "body":
            return None
    return None


class _Collector:
    """Walks a tree once and writes paragraphs as their blocks close."""

    def __init__(
        self,
        *,
        aozora: bool,
        tracker: SourceTracker | None = None,
        budget: BookBudget | None = None,
    ) -> None:
        self.aozora = aozora
        self.tracker = tracker
        self.budget = budget
        self.document = DocumentText()
        self.heading_depth = 0
        self.pre_depth = 0
        self._heading_level = 0
        self._parts: list[str] = []
        self._lines: list[str] = []
        self._after_heading = False

    def walk(self, element: etree._Element) -> None:
        name = local_name(element.tag)
        kind = self._kind(element, name)
        if self.tracker is not None:
            self.tracker.enter(element, name, kind)
        if kind is not NodeKind.OTHER:
            self._register_anchor(element)
        if kind is NodeKind.BREAK:
            self._break_line()
        elif kind is NodeKind.GAIJI:
            self._add(gaiji_character(element.get("alt") or "") or "")
        elif kind is NodeKind.SKIPPED:
            self._register_inner_anchors(element)
        elif kind is NodeKind.BLOCK:
            self._walk_block(element, name or "")
        elif kind is NodeKind.INLINE:
            self.walk_children(element)
        if self.tracker is not None:
            self.tracker.leave(name, kind)
        self._add(element.tail)

    def _kind(self, element: etree._Element, name: str | None) -> NodeKind:
        if name is None:
            return NodeKind.OTHER
        if name == "br":
            return NodeKind.BREAK
        if name == "img" and self.aozora:
            return NodeKind.GAIJI
        if self._is_skipped(element, name):
            return NodeKind.SKIPPED
        return NodeKind.BLOCK if name in BLOCK_TAGS else NodeKind.INLINE

    def walk_children(self, element: etree._Element) -> None:
        self._add(element.text)
        for child in element:
            self.walk(child)

    def _walk_block(self, element: etree._Element, name: str) -> None:
        self.flush()
        if self.tracker is not None:
            self.tracker.open_block(element)
        emitted_before = len(self.document.blocks)
        saved = (self._heading_level, self.heading_depth, self.pre_depth)
        level = self._block_heading_level(element, name)
        if level:
            self._heading_level, self.heading_depth = level, self.heading_depth + 1
        if name == "pre":
            self.pre_depth += 1
        self.walk_children(element)
        self.flush()
        if self.tracker is not None:
            self.tracker.close_block()
        self._heading_level, self.heading_depth, self.pre_depth = saved
        if name == "p" and len(self.document.blocks) == emitted_before:
            self._write(Block(""))  # an empty <p> is a blank line of the book
        self._after_heading = bool(level)

    def _block_heading_level(self, element: etree._Element, name: str) -> int:
        if self.aozora:
            for css_class in (element.get("class") or "").split():
                if css_class in AOZORA_HEADING_CLASSES:
                    return AOZORA_HEADING_CLASSES[css_class]
        return HEADING_LEVELS.get(name, 0)

    def _is_skipped(self, element: etree._Element, name: str) -> bool:
        if name in SKIPPED_TAGS or element.get("hidden") is not None:
            return True
        epub_types = (element.get(EPUB_TYPE) or element.get("epub:type") or "").split()
        if SKIPPED_EPUB_TYPES.intersection(epub_types):
            return True
        if element.get("role") in SKIPPED_ROLES:
            return True
        return self.aozora and "notes" in (element.get("class") or "").split()

    def _add(self, text: str | None) -> None:
        if not text:
            return
        if self.pre_depth and "\n" in text:
            # Preformatted lines (verse, code) are lines: each one is a paragraph.
            first, *others = text.replace("\r\n", "\n").split("\n")
            self._append(first)
            for line in others:
                self._break_line()
                self._append(line)
            return
        self._append(text)

    def _append(self, text: str) -> None:
        self._parts.append(text)
        if self.tracker is not None:
            self.tracker.text(text)

    def _break_line(self) -> None:
        if self.heading_depth:
            if self.tracker is not None:
                self.tracker.joined_break()
            self._append("\n")
            return
        self._lines.append("".join(self._parts))
        self._parts = []
        if self.tracker is not None:
            self.tracker.break_line()

    def flush(self) -> None:
        """Close the current run of inline content, writing its lines as paragraphs."""
        if not self._lines and not self._parts:  # nothing since the last block boundary
            self._after_heading = False
            if self.tracker is not None:
                self.tracker.finish_run()
            return
        broken = bool(self._lines)
        lines = [*self._lines, "".join(self._parts)]
        self._lines, self._parts = [], []
        run = self.tracker.finish_run() if self.tracker is not None else []
        traces: list[LineTrace | None] = list(run) or [None] * len(lines)
        if broken and not lines[-1].strip():
            lines.pop()  # a trailing <br> ends the last line; it does not open another
            traces.pop()
        if broken and self._after_heading and lines and not lines[0].strip():
            lines.pop(0)  # <h4>…</h4><br/>, as Aozora writes it: the <br> ends the heading's line
            traces.pop(0)
        self._after_heading = False
        for line, trace in zip(lines, traces, strict=True):
            text = normalize_space(line)
            if not text.strip():
                if not broken:
                    continue  # whitespace between blocks is layout, not a blank line
                text = ""
            origin = None
            if self.tracker is not None and trace is not None:
                origin = self.tracker.origin(trace, line, text)
            self._write(Block(text, self._level(), origin))

    def _write(self, block: Block) -> None:
        if self.budget is not None:
            self.budget.charge(block.text)
        self.document.blocks.append(block)

    def _level(self) -> int:
        return self._heading_level if self.heading_depth else 0

    def _register_anchor(self, element: etree._Element) -> None:
        anchor = element.get("id") or (
            element.get("name") if local_name(element.tag) == "a" else None
        )
        if anchor and anchor not in self.document.anchors:
            # Lines already ended by <br> in this run will be written before the anchor.
            self.document.anchors[anchor] = len(self.document.blocks) + len(self._lines)

    def _register_inner_anchors(self, element: etree._Element) -> None:
        for inner in element.iter():
            if isinstance(inner.tag, str):
                self._register_anchor(inner)
