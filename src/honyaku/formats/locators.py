"""Where each paragraph of a document came from, noted while its text is extracted.

The paragraph walker in ``xhtml`` reports what it meets (elements entered and left, text
added, lines ended) to a ``SourceTracker``, which turns that into a ``BlockOrigin`` for every
paragraph it writes:

- the **container**: the block element whose inline content the paragraph is, and a
  **locator** for it that survives a new parse of the same bytes: the indices of the
  element children from the walked root down to the container (comments and processing
  instructions do not count), and the paragraph's ordinal among those of its container,
  as in ``/1/0/4#0``;
- the **items** of the container the paragraph spans, counting ``container.text`` as item 0
  and each child ``i`` and its tail as items ``2i+1`` and ``2i+2``. A paragraph cut out by a
  ``<br>`` or a block nested inside an inline element, or by a newline in ``<pre>``, cannot
  be cut out alone; it has no items, and an export replaces its whole **run** (the inline
  content between two block boundaries) instead;
- its inline markup as ``InlineMark``s over the paragraph's text: the raw offsets seen during
  the walk are mapped through the same whitespace collapsing that makes the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto

from lxml import etree

from honyaku.domain.sources import InlineMark

# Elements that show nothing and mean nothing once skipped; anything else skipped (images,
# SVG, page-break markers) is worth a zero-width mark.
UNMARKED_SKIPS = frozenset(
    "rt rp rtc script style template noscript head title meta link".split()  # noqa: SIM905
)
WHITESPACE = frozenset(" \t\n\r\f\v\x1c\x1d\x1e\x85\u2028\u2029")
"""What ``normalize_space`` collapses: each run of these becomes one space or nothing."""


class NodeKind(Enum):
    """How the walker treats a node."""

    OTHER = auto()  # a comment or processing instruction
    BREAK = auto()
    GAIJI = auto()
    SKIPPED = auto()
    BLOCK = auto()
    INLINE = auto()


@dataclass(frozen=True, slots=True)
class BlockOrigin:
    """Where one paragraph came from; ``container`` is an element of the walked tree
    (``None`` for text outside any block, which cannot be put back)."""

    container: etree._Element | None
    locator: str
    items: tuple[int, int] | None
    """First and last item of the container the paragraph spans, when it can be cut alone."""
    run: tuple[int, int]
    """First and last item of the run of inline content the paragraph is part of: from the
    block boundary before it to the one after it."""
    marks: tuple[InlineMark, ...]


@dataclass(frozen=True, slots=True)
class _RawMark:
    """A mark in offsets of the raw line; ``order`` is when its element opened."""

    order: int
    tag: str
    start: int
    end: int
    attributes: tuple[tuple[str, str], ...]
    reading: str | None


@dataclass(slots=True)
class LineTrace:
    """What the tracker saw of one line while the walker wrote it."""

    first: int | None = None
    last: int | None = None
    clean_start: bool = True
    clean_end: bool = True
    length: int = 0
    marks: list[_RawMark] = field(default_factory=list)

    def touch(self, item: int) -> None:
        if self.first is None:
            self.first = item
        self.last = item


@dataclass(slots=True)
class _OpenMark:
    order: int
    tag: str
    start: int
    attributes: tuple[tuple[str, str], ...]
    reading: str | None

    def until(self, end: int) -> _RawMark:
        return _RawMark(self.order, self.tag, self.start, end, self.attributes, self.reading)


@dataclass(slots=True)
class _Frame:
    """One container being walked."""

    container: etree._Element | None
    path: str
    emitted: int = 0
    next_child: int = 0
    item: int = 0
    depth: int = 0
    line: LineTrace = field(default_factory=LineTrace)
    lines: list[LineTrace] = field(default_factory=list)
    open_marks: list[_OpenMark] = field(default_factory=list)
    break_at_top: bool = False
    run_start: int = 0
    run: tuple[int, int] = (0, 0)


class SourceTracker:
    """Follows one walk of a tree and gives each written paragraph its origin."""

    def __init__(self) -> None:
        # The bottom frame holds what lies outside any block (a tree without a body).
        self._frames = [_Frame(None, "")]
        self._counters = [0]  # element children seen so far, per element on the walk path
        self._indices: list[int] = []  # the element-child index of each element on the path
        self._opened = 0  # elements opened so far: the order of marks that start together

    @property
    def _frame(self) -> _Frame:
        return self._frames[-1]

    # -- events from the walker --------------------------------------------------------------

    def enter(self, node: etree._Element, name: str | None, kind: NodeKind) -> None:
        frame = self._frame
        frame.break_at_top = kind is NodeKind.BREAK and frame.depth == 0
        if frame.depth == 0:
            frame.item = 2 * frame.next_child + 1
            frame.next_child += 1
        frame.depth += 1
        if name is not None:
            self._indices.append(self._counters[-1])
            self._counters[-1] += 1
            self._counters.append(0)
        self._opened += 1
        if kind in (NodeKind.INLINE, NodeKind.GAIJI):
            frame.line.touch(frame.item)
            frame.open_marks.append(
                _OpenMark(
                    self._opened,
                    name or "",
                    frame.line.length,
                    _attributes(node),
                    _reading(node, name),
                )
            )
        elif kind is NodeKind.SKIPPED:
            frame.line.touch(frame.item)
            if name not in UNMARKED_SKIPS:
                self._mark(frame, name or "", frame.line.length, _attributes(node))
        elif kind is NodeKind.BREAK and frame.depth > 1:
            frame.line.touch(frame.item)

    def leave(self, name: str | None, kind: NodeKind) -> None:
        frame = self._frame
        if kind in (NodeKind.INLINE, NodeKind.GAIJI) and frame.open_marks:
            frame.line.marks.append(frame.open_marks.pop().until(frame.line.length))
        if name is not None:
            self._counters.pop()
            self._indices.pop()
        frame.depth -= 1
        if frame.depth == 0:
            frame.item += 1  # the tail comes next
        frame.break_at_top = False

    def text(self, text: str) -> None:
        frame = self._frame
        frame.line.touch(frame.item)
        frame.line.length += len(text)

    def joined_break(self) -> None:
        """A ``<br>`` that joins a heading's lines: a zero-width mark, no new line."""
        frame = self._frame
        self._mark(frame, "br", frame.line.length, ())

    def break_line(self) -> None:
        frame = self._frame
        clean = frame.break_at_top
        self._close_line(frame, clean_end=clean)
        frame.line = LineTrace(clean_start=clean)

    def open_block(self, element: etree._Element) -> None:
        path = "".join(f"/{index}" for index in self._indices)
        self._frames.append(_Frame(element, path))

    def close_block(self) -> None:
        self._frames.pop()

    # -- paragraphs written ------------------------------------------------------------------

    def finish_run(self) -> list[LineTrace]:
        """The traces of the lines of the run the walker is flushing, in order."""
        frame = self._frame
        frame.run = (frame.run_start, self._run_end(frame))
        # The next run starts after a block child, or inside the inline element holding one.
        frame.run_start = frame.item + 1 if frame.depth == 1 else frame.item
        if not frame.lines and frame.line.first is None and not frame.line.marks:
            frame.line = LineTrace(clean_start=not frame.open_marks)
            return [LineTrace()]  # an empty run: nothing to trace, nothing written
        self._close_line(frame, clean_end=True)
        lines = frame.lines
        frame.lines, frame.line = [], LineTrace(clean_start=not frame.open_marks)
        return lines

    def origin(self, trace: LineTrace, raw: str, text: str) -> BlockOrigin:
        """The origin of the paragraph ``text``, written from the raw line ``raw``."""
        frame = self._frame
        locator = f"{frame.path}#{frame.emitted}"
        frame.emitted += 1
        items = None
        clean = trace.clean_start and trace.clean_end
        if trace.first is not None and trace.last is not None and clean:
            items = (trace.first, trace.last)
        return BlockOrigin(
            frame.container, locator, items, frame.run, _normalized_marks(trace, raw, text)
        )

    @staticmethod
    def _run_end(frame: _Frame) -> int:
        """The last item of the run being flushed: before the block child that ends it, in
        the inline element that holds one, or the container's last."""
        if frame.depth == 0:
            return 2 * len(frame.container) if frame.container is not None else 0
        return frame.item - 1 if frame.depth == 1 else frame.item

    # -- details -----------------------------------------------------------------------------

    def _mark(
        self, frame: _Frame, tag: str, at: int, attributes: tuple[tuple[str, str], ...]
    ) -> None:
        self._opened += 1
        frame.line.marks.append(_RawMark(self._opened, tag, at, at, attributes, None))

    def _close_line(self, frame: _Frame, *, clean_end: bool) -> None:
        """End the current line; elements still open are cut at its end and go on after it."""
        line = frame.line
        line.clean_end = clean_end and not frame.open_marks
        for opened in frame.open_marks:
            line.marks.append(opened.until(line.length))
            opened.start = 0
        frame.lines.append(line)


def _attributes(node: etree._Element) -> tuple[tuple[str, str], ...]:
    return tuple((str(key), str(value)) for key, value in node.attrib.items())


def _reading(node: etree._Element, name: str | None) -> str | None:
    if name != "ruby":
        return None
    readings = [
        "".join(child.itertext())
        for child in node.iter()
        if isinstance(child.tag, str) and child.tag.rpartition("}")[2].lower() == "rt"
    ]
    return "".join(readings) or None


def _normalized_marks(trace: LineTrace, raw: str, text: str) -> tuple[InlineMark, ...]:
    if not trace.marks:
        return ()
    # A line of ideographic spaces is a blank paragraph (``text`` is empty) though its spaces
    # are not layout: what it held stays at its start.
    offsets = [min(offset, len(text)) for offset in normalized_offsets(raw, text)]
    return tuple(
        InlineMark(m.tag, offsets[m.start], offsets[m.end], m.attributes, m.reading)
        for m in sorted(trace.marks, key=lambda m: (m.start, -m.end, m.order))
    )


def normalized_offsets(raw: str, text: str) -> list[int]:
    """For each offset into ``raw``, the offset into ``text = normalize_space(raw)``.

    Collapsing keeps every character that is not layout whitespace and turns each run of
    layout whitespace into one space or nothing, so the two strings align run by run.
    """
    offsets = [0] * (len(raw) + 1)
    position = index = 0
    while index < len(raw):
        if raw[index] in WHITESPACE:
            end = index
            while end < len(raw) and raw[end] in WHITESPACE:
                offsets[end] = position
                end += 1
            if position < len(text) and text[position] == " ":
                position += 1
            index = end
            continue
        offsets[index] = position
        position += 1
        index += 1
    offsets[len(raw)] = min(position, len(text))
    return offsets
