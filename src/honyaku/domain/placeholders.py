"""Inline marks shown to a model as numbered placeholders, and read back from what it writes.

A paragraph's inline marks (``sources.InlineMark``: emphasis, code, a link, a span with a
class, ruby, a note reference, an image) live beside its text as offsets. A work line shows
those inside a sentence as placeholders, numbered in the order they open (``shown_line``):

- a **pair** ``⟦1⟧…⟦/1⟧`` around the words an element holds: emphasis, strong, code, a link,
  a span with a class, a ruby's base where ruby is kept (``RubyChoice.KEEP``); elements over
  the same words share one pair;
- a **single** ``⟦2⟧`` where an element has no words to translate: an image, a line break, an
  empty element, and a note reference, whose number stays as the book wrote it;
- a ruby's reading after its base, as a hint the model reads and never returns: ``《とも》``,
  Aozora Bunko's own notation for ruby, which costs half the tokens a bracket of ours would.

What holds the whole line (a span around a sentence, a link that is the line), empty anchors
at either end of it, elements that only carry an id, and a gaiji's image stay out of the text:
an export keeps them as they are (``formats.placement``).

What a model writes back is read by ``read_marked``. What models commonly do to markers is
normalised first: full-width or spaced brackets (``[[1]]``, ``【1】``, ``⟦ 1 ⟧``), a reading
hint of the line copied, pairs that end together closed in the wrong order. Then every
placeholder sent must come back exactly once, pairs nested and holding text, none invented;
anything else is a ``MarkupMismatch`` that names what is missing, extra or broken, and nothing
is guessed. What is read is the clean text, and its marks as ``PlacedMark``s: each a group of
the source's marks (by index) over a span of the translation. A translation's text is clean
text everywhere it is read; its marks are kept beside it, as the source's are.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum, auto
from typing import Generic, TypeVar

from honyaku.domain.quality import QualityWarning
from honyaku.domain.sources import InlineMark
from honyaku.errors import ToolError

OPEN = "⟦"
CLOSE = "⟧"
HINT_OPEN = "《"
HINT_CLOSE = "》"
MARKUP_MISMATCH = "MARKUP_MISMATCH"
"""The error code of a text whose placeholders do not match its line's."""
MARKUP_LOST = "MARKUP_LOST"
"""The quality flag of a translation kept without the markup its model could not keep."""
MAX_NUMBER_DIGITS = 3


class RubyChoice(StrEnum):
    """What becomes of the source's ruby in a translation (a book setting)."""

    HINTS = "hints"
    """The model reads each reading as a hint; the translation has no ruby."""
    KEEP = "keep"
    """Ruby stays, its reading over the translated words (a Japanese target, bilingual output)."""
    DROP = "drop"
    """Ruby goes, and the model is not shown the readings."""


class LostMarkup(StrEnum):
    """What becomes of a paragraph whose markup a model could not keep, its rounds spent
    (a book setting)."""

    KEEP_TEXT = "keep_text"
    """Its translation is kept without the paragraph's markup, flagged ``MARKUP_LOST``."""
    LEAVE = "leave"
    """The paragraph is left to the translator, with the reason."""


PLACEHOLDER_RULE = (
    "Work lines may hold placeholders for the book's inline markup: ⟦n⟧…⟦/n⟧ around words "
    "(emphasis, code, a link…) and a lone ⟦n⟧ where an element stands (a note, an image). "
    "Return each of a line's placeholders exactly once, around the words that correspond in "
    "your translation; 《…》 right after a word of a work line is its reading (ruby), a hint "
    "not to be returned."
)
PLACEHOLDER_RULE_ZH = (
    "待处理行中可能有代表原书行内标记的占位符：⟦n⟧…⟦/n⟧ 包住一段文字（强调、代码、链接等），"
    "单独的 ⟦n⟧ 代表一个元素（注释、图片等）。译文中每个占位符恰好保留一次，包住对应的译文；"
    "待处理行中紧跟在词语后的《…》是该词的读音（注音），仅作提示，不要写进译文。"
)

_EPUB_TYPE = ("{http://www.idpf.org/2007/ops}type", "epub:type")
_REFERENCE_TYPES = frozenset({"noteref", "biblioref", "glossref"})
_REFERENCE_ROLES = frozenset({"doc-noteref", "doc-biblioref", "doc-glossref"})
_REFERENCE_TEXT = re.compile(r"[\[(（［〔]?[*＊※†‡§#]{0,2}[0-9０-９]{0,3}[a-z]?[\])）］〕]?")
_REFERENCE_CHARS = re.compile(r"[0-9０-９*＊※†‡§]")
MAX_REFERENCE_CHARS = 5
_ANCHOR_ATTRIBUTES = frozenset(
    {"id", "name", "lang", "{http://www.w3.org/XML/1998/namespace}lang", "xml:lang"}
)
_BARE_TAGS = frozenset({"span", "a", "font"})
"""Elements that mean nothing without attributes (other than an id)."""
RUBY_PARTS = frozenset({"rb", "rt", "rp", "rtc"})
LINK_TAGS = frozenset({"a"})
"""Elements that may not hold one another (a link in a link is no HTML)."""

_PLACEHOLDER = re.compile(r"⟦(/?)(\d{1,3})⟧")
_ANY_BRACKETED = re.compile(r"⟦[^⟦⟧]*⟧")
_VARIANT = re.compile(
    r"(?P<open>⟦|\[\[|［［|【|〚)[ \u3000]*(?P<slash>[/／])?[ \u3000]*"
    r"(?P<number>[0-9０-９]{1,3})[ \u3000]*(?P<close>⟧|\]\]|］］|】|〛)"
)
_FULL_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


# -- what the model reads ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One placeholder of a work line: its number, the source's marks it stands for (by
    index, outer first), and whether it is a pair around words or a single one."""

    number: int
    marks: tuple[int, ...]
    paired: bool
    tags: tuple[str, ...] = ()
    """The elements' names, outer first."""
    kept: str = ""
    """The source text a single one stands for (a note's number), put back as it is."""

    @property
    def opening(self) -> str:
        return f"{OPEN}{self.number}{CLOSE}"

    @property
    def closing(self) -> str:
        return f"{OPEN}/{self.number}{CLOSE}"

    @property
    def shown(self) -> str:
        """How a message names it: ``⟦1⟧…⟦/1⟧`` or ``⟦2⟧``."""
        return f"{self.opening}…{self.closing}" if self.paired else self.opening

    @property
    def is_link(self) -> bool:
        return any(tag in LINK_TAGS for tag in self.tags)

    @property
    def is_ruby(self) -> bool:
        return "ruby" in self.tags


@dataclass(frozen=True, slots=True)
class MarkedText:
    """A paragraph's text as a model reads it on a work line, with its placeholders."""

    text: str
    placeholders: tuple[Placeholder, ...] = ()
    unchecked: bool = False
    """The source itself writes ⟦ or ⟧: nothing is shown or checked for it."""
    hints: tuple[str, ...] = ()
    """The reading hints the line shows, as written (``《とも》``)."""

    def __bool__(self) -> bool:
        """Whether the line holds any placeholder."""
        return bool(self.placeholders)

    def by_number(self) -> dict[int, Placeholder]:
        return {p.number: p for p in self.placeholders}

    def by_marks(self) -> dict[tuple[int, ...], Placeholder]:
        return {p.marks: p for p in self.placeholders}

    @property
    def listed(self) -> str:
        """Every placeholder of the line, as a message lists them."""
        return " ".join(p.shown for p in self.placeholders)


@dataclass(frozen=True, slots=True)
class PlacedMark:
    """Where a group of the source's marks (by index, outer first) lands in a translation:
    ``text[start:end]``; a single one without text has ``start == end``."""

    marks: tuple[int, ...]
    start: int
    end: int


class _Role(Enum):
    SKIP = auto()
    PAIR = auto()
    SINGLE = auto()
    REFERENCE = auto()


@dataclass(slots=True)
class _Group:
    start: int
    end: int
    role: _Role
    marks: list[int] = field(default_factory=list)
    hint: str = ""
    """A ruby's reading, shown after its base (at ``hint_at``)."""
    hint_at: int = 0


@dataclass(frozen=True, slots=True)
class _Hint:
    reading: str


T = TypeVar("T")


@dataclass(slots=True)
class Nested(Generic[T]):
    """A span of a text, with the spans inside it."""

    start: int
    end: int
    item: T
    children: list[Nested[T]] = field(default_factory=list)


def nest(spans: Iterable[tuple[int, int, T]]) -> list[Nested[T]]:
    """Spans (ordered by start, the longer first where two start together) as a tree: each
    span inside the last one that holds it. A span that would cross one (never, for spans
    read from a document or checked by ``read_marked``) is cut to fit."""
    roots: list[Nested[T]] = []
    stack: list[Nested[T]] = []
    for start, end, item in spans:
        while stack and stack[-1].end <= start and not _holds_empty(stack[-1], start, end):
            stack.pop()
        if stack:
            end = min(end, stack[-1].end)
        node = Nested(start, end, item)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots


def _holds_empty(top: Nested[T], start: int, end: int) -> bool:
    """An empty span at the start of a longer one sits inside it."""
    return top.start < top.end and start == end == top.start


def ordered(spans: Iterable[tuple[int, int, T]]) -> list[tuple[int, int, T]]:
    """Spans in the order ``nest`` takes them; spans that start and end together keep theirs."""
    return sorted(spans, key=lambda span: (span[0], -span[1]))


def shown_line(text: str, marks: Sequence[InlineMark], ruby: RubyChoice) -> MarkedText:
    """The paragraph ``text`` with its ``marks`` as a model reads them."""
    if not marks:
        return MarkedText(text)
    if OPEN in text or CLOSE in text:
        return MarkedText(text, unchecked=True)
    groups = _groups(text, marks, ruby)
    spans: list[tuple[int, int, _Group | _Hint]] = [
        (g.start, g.end, g) for g in groups if g.role is not _Role.SKIP
    ]
    spans += [(g.hint_at, g.hint_at, _Hint(g.hint)) for g in groups if g.hint]
    tree = nest(ordered(spans))
    placeholders: list[Placeholder] = []
    parts: list[str] = []
    _render_line(text, marks, tree, 0, len(text), parts, placeholders)
    hints = tuple(dict.fromkeys(hint_of(g.hint) for g in groups if g.hint))
    return MarkedText("".join(parts), tuple(placeholders), hints=hints)


def hint_of(reading: str) -> str:
    """How a reading is shown after its base."""
    return f"{HINT_OPEN}{reading}{HINT_CLOSE}"


def _groups(text: str, marks: Sequence[InlineMark], ruby: RubyChoice) -> list[_Group]:
    groups: list[_Group] = []
    references: list[_Group] = []
    order = sorted(range(len(marks)), key=lambda i: (marks[i].start, -marks[i].end, i))
    for index in order:
        mark = marks[index]
        if any(r.start <= mark.start < r.end and mark.end <= r.end for r in references):
            continue  # inside a note reference, which goes back whole
        reading = _reading(mark, ruby)
        role = _role(mark, text, ruby)
        if role is _Role.SKIP:
            if reading:
                groups.append(_Group(mark.end, mark.end, _Role.SKIP, [], reading, mark.end))
            continue
        start, end = (mark.start, mark.start) if role is _Role.SINGLE else (mark.start, mark.end)
        last = next((g for g in reversed(groups) if g.role is not _Role.SKIP), None)
        same = last is not None and (last.start, last.end) == (start, end) and start < end
        if same and last is not None and last.role in (_Role.PAIR, _Role.REFERENCE):
            last.marks.append(index)
            if role is _Role.REFERENCE:
                last.role = _Role.REFERENCE
                references.append(last)
            if reading and not last.hint:
                last.hint, last.hint_at = reading, mark.end
            continue
        group = _Group(start, end, role, [index], reading, mark.end)
        groups.append(group)
        if role is _Role.REFERENCE:
            references.append(group)
    return groups


def _role(mark: InlineMark, text: str, ruby: RubyChoice) -> _Role:
    name = mark.tag
    if name in RUBY_PARTS:
        return _Role.SKIP  # a ruby's base goes with the ruby
    if mark.start == mark.end:
        return _Role.SKIP if mark.start in (0, len(text)) else _Role.SINGLE
    if mark.covers(len(text)):
        return _Role.SKIP
    if name == "img":
        return _Role.SKIP  # a gaiji's image, whose character the text holds
    if name == "ruby":
        return _Role.PAIR if ruby is RubyChoice.KEEP else _Role.SKIP
    attributes = {key for key, _ in mark.attributes}
    if name in _BARE_TAGS and attributes <= _ANCHOR_ATTRIBUTES:
        return _Role.SKIP  # an id alone goes back as an anchor at the line's start
    if is_reference(mark, text[mark.start : mark.end]):
        return _Role.REFERENCE
    if not text[mark.start : mark.end].strip():
        return _Role.SKIP if mark.start == 0 or mark.end == len(text) else _Role.SINGLE
    return _Role.PAIR


def is_reference(mark: InlineMark, text: str) -> bool:
    """Whether ``mark`` over ``text`` refers to a note (or a source, a glossary entry): its
    words are a number or a sign, kept as the book wrote them."""
    attributes = dict(mark.attributes)
    types = " ".join(attributes.get(key, "") for key in _EPUB_TYPE).split()
    if _REFERENCE_TYPES.intersection(types) or attributes.get("role") in _REFERENCE_ROLES:
        return True
    if mark.tag not in ("a", "sup"):
        return False
    if mark.tag == "a" and "#" not in attributes.get("href", ""):
        return False
    words = text.strip()
    return (
        0 < len(words) <= MAX_REFERENCE_CHARS
        and _REFERENCE_TEXT.fullmatch(words) is not None
        and _REFERENCE_CHARS.search(words) is not None
    )


def _reading(mark: InlineMark, ruby: RubyChoice) -> str:
    if mark.tag != "ruby" or ruby is RubyChoice.DROP or not mark.reading:
        return ""
    reading = " ".join(mark.reading.split())
    brackets = (OPEN, CLOSE, HINT_OPEN, HINT_CLOSE)
    return "" if any(b in reading for b in brackets) else reading


def _render_line(
    text: str,
    marks: Sequence[InlineMark],
    nodes: list[Nested[_Group | _Hint]],
    position: int,
    end: int,
    parts: list[str],
    placeholders: list[Placeholder],
) -> None:
    for node in nodes:
        group = node.item
        parts.append(text[position : node.start])
        position = node.start
        if isinstance(group, _Hint):
            parts.append(hint_of(group.reading))
            continue
        number = len(placeholders) + 1
        tags = tuple(marks[i].tag for i in group.marks)
        if group.role is _Role.PAIR:
            placeholder = Placeholder(number, tuple(group.marks), True, tags)
            placeholders.append(placeholder)
            parts.append(placeholder.opening)
            _render_line(text, marks, node.children, node.start, node.end, parts, placeholders)
            parts.append(placeholder.closing)
        else:
            kept = text[node.start : node.end] if group.role is _Role.REFERENCE else ""
            placeholder = Placeholder(number, tuple(group.marks), False, tags, kept)
            placeholders.append(placeholder)
            parts.append(placeholder.opening)
        position = node.end
    parts.append(text[position:end])


def marked_translation(text: str, placed: Sequence[PlacedMark], line: MarkedText) -> str:
    """A translation with its marks written back as the line's placeholders (what a revision
    or a person edits); marks the line does not show are left out."""
    if not line or not placed:
        return text
    known = line.by_marks()
    spans = [(m.start, m.end, known[m.marks]) for m in placed if m.marks in known]
    parts: list[str] = []
    _render_translation(text, nest(ordered(spans)), 0, len(text), parts)
    return "".join(parts)


def _render_translation(
    text: str, nodes: list[Nested[Placeholder]], position: int, end: int, parts: list[str]
) -> None:
    for node in nodes:
        placeholder = node.item
        parts.append(text[position : node.start])
        if placeholder.paired:
            parts.append(placeholder.opening)
            _render_translation(text, node.children, node.start, node.end, parts)
            parts.append(placeholder.closing)
        else:
            parts.append(placeholder.opening)
        position = node.end
    parts.append(text[position:end])


# -- what the model writes ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReadText:
    """A text read back: clean, and its marks beside it."""

    text: str
    marks: tuple[PlacedMark, ...] = ()


@dataclass(frozen=True, slots=True)
class MarkupMismatch:
    """Why a text's placeholders do not match its line's: each item as a message shows it."""

    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    broken: tuple[str, ...] = ()

    def message(self, paragraph_id: str, line: MarkedText) -> str:
        found = [
            f"{what}: {', '.join(items)}"
            for what, items in (
                ("missing", self.missing),
                ("extra", self.extra),
                ("broken", self.broken),
            )
            if items
        ]
        return (
            f"Paragraph {paragraph_id}: its placeholders do not match its line's "
            f"({'; '.join(found)}). The line has {line.listed}: return each exactly once, "
            "a pair ⟦n⟧…⟦/n⟧ around the translated words it marks (pairs nested, never "
            "empty), a lone ⟦n⟧ where its element stands, and nothing else in ⟦⟧."
        )


@dataclass(frozen=True, slots=True)
class _Token:
    start: int
    end: int
    number: int
    closing: bool

    @property
    def shown(self) -> str:
        return f"{OPEN}{'/' if self.closing else ''}{self.number}{CLOSE}"


def read_marked(written: str, line: MarkedText, source: str = "") -> ReadText | MarkupMismatch:
    """The clean text and its marks from what a model ``written`` for ``line`` (the work line
    of the paragraph whose text is ``source``), or why it cannot be read."""
    if line.unchecked:
        return ReadText(written)
    text = normalized(written, line, source)
    tokens = [
        _Token(m.start(), m.end(), int(m.group(2)), bool(m.group(1)))
        for m in _PLACEHOLDER.finditer(text)
    ]
    if problems := _count_problems(text, tokens, line):
        return problems
    return _nested(text, tokens, line)


def normalized(written: str, line: MarkedText, source: str = "") -> str:
    """``written`` with what models commonly do to placeholders undone: readings copied from
    their hints dropped, and a line's placeholders written with other brackets (``[[1]]``,
    ``【1】``, ``⟦ 1 ⟧``), full-width digits or slashes, spelled the line's way, unless the
    source writes that very spelling itself."""
    text = without_hints(written, line, source)
    numbers = {p.number for p in line.placeholders}

    def canonical(match: re.Match[str]) -> str:
        number = int(match["number"].translate(_FULL_WIDTH_DIGITS))
        spelled = match.group(0)
        is_canonical = match["open"] == OPEN and match["close"] == CLOSE
        if not is_canonical and (number not in numbers or spelled in source):
            return spelled
        return f"{OPEN}{'/' if match['slash'] else ''}{number}{CLOSE}"

    return _VARIANT.sub(canonical, text)


def _count_problems(text: str, tokens: list[_Token], line: MarkedText) -> MarkupMismatch | None:
    sent = line.by_number()
    opened = Counter(t.number for t in tokens if not t.closing)
    closed = Counter(t.number for t in tokens if t.closing)
    missing: list[str] = []
    extra: list[str] = []
    broken: list[str] = []
    for placeholder in line.placeholders:
        number = placeholder.number
        if placeholder.paired:
            if not opened[number] and not closed[number]:
                missing.append(placeholder.shown)
                continue
            if not opened[number]:
                missing.append(placeholder.opening)
            if not closed[number]:
                missing.append(placeholder.closing)
        else:
            if not opened[number]:
                missing.append(placeholder.opening)
            if closed[number]:
                broken.append(f"{placeholder.closing} ({placeholder.opening} stands alone)")
        for token, count in (
            (placeholder.opening, opened[number]),
            (placeholder.closing, closed[number]),
        ):
            if count > 1:
                extra.append(f"{token} ×{count}")
    invented = sorted(
        {t.shown for t in tokens if t.number not in sent}, key=lambda s: int(s.strip("⟦⟧/"))
    )
    extra += [f"{shown} (not in the line)" for shown in invented]
    stray = _PLACEHOLDER.sub("", text)
    if OPEN in stray or CLOSE in stray:
        broken.append("a ⟦ or ⟧ that is no placeholder")
    if missing or extra or broken:
        return MarkupMismatch(tuple(missing), tuple(extra), tuple(broken))
    return None


def _nested(text: str, tokens: list[_Token], line: MarkedText) -> ReadText | MarkupMismatch:
    """The clean text and marks of a text whose every placeholder is there once: pairs must
    nest, links may not hold links, no pair may be empty. Closings that follow one another
    with nothing between them may come in any order (pairs that end together)."""
    sent = line.by_number()
    clean: list[str] = []
    length = 0
    stack: list[tuple[Placeholder, int]] = []
    placed: list[PlacedMark] = []
    broken: list[str] = []
    position = 0
    index = 0
    while index < len(tokens):
        token = tokens[index]
        between = text[position : token.start]
        clean.append(between)
        length += len(between)
        position = token.end
        placeholder = sent[token.number]
        if not token.closing and placeholder.paired:
            if (placeholder.is_link and any(p.is_link for p, _ in stack)) or (
                placeholder.is_ruby and any(p.is_ruby for p, _ in stack)
            ):
                broken.append(f"{placeholder.opening} inside a pair of its own kind")
            stack.append((placeholder, length))
            index += 1
            continue
        if not token.closing:
            if placeholder.is_link and any(p.is_link for p, _ in stack):
                broken.append(f"{placeholder.opening} inside a link")
            clean.append(placeholder.kept)
            placed.append(PlacedMark(placeholder.marks, length, length + len(placeholder.kept)))
            length += len(placeholder.kept)
            index += 1
            continue
        run = _closing_run(text, tokens, index)
        if not _closes_top(run, stack):
            broken.append(_crossing(token, stack, sent))
            return MarkupMismatch(broken=tuple(broken))
        for _ in run:
            opened, start = stack.pop()
            span = "".join(clean)[start:length]
            if not span.strip():
                broken.append(f"{opened.shown} holds no text")
                continue
            trimmed_start = start + len(span) - len(span.lstrip())
            trimmed_end = length - (len(span) - len(span.rstrip()))
            placed.append(PlacedMark(opened.marks, trimmed_start, trimmed_end))
        position = tokens[index + len(run) - 1].end
        index += len(run)
    clean.append(text[position:])
    if broken:
        return MarkupMismatch(broken=tuple(broken))
    result = "".join(clean)
    marks = tuple(sorted(placed, key=lambda m: (m.start, -m.end)))
    return _stripped_edges(result, marks)


def _closing_run(text: str, tokens: list[_Token], index: int) -> list[_Token]:
    """The closings from ``index`` on that follow one another with nothing between them."""
    run = [tokens[index]]
    for token in tokens[index + 1 :]:
        if not token.closing or token.start != run[-1].end:
            break
        run.append(token)
    return run


def _closes_top(run: list[_Token], stack: list[tuple[Placeholder, int]]) -> bool:
    """Whether ``run`` closes the pairs open last, in whatever order it names them; a run
    longer than what is open closes the top ones and leaves the rest to the next run."""
    if not stack:
        return False
    top = [p.number for p, _ in stack[-len(run) :]]
    wanted = [t.number for t in run]
    if len(wanted) > len(top):
        return False
    return sorted(wanted) == sorted(top)


def _crossing(
    token: _Token, stack: list[tuple[Placeholder, int]], sent: Mapping[int, Placeholder]
) -> str:
    if not any(p.number == token.number for p, _ in stack):
        return f"{token.shown} comes before {sent[token.number].opening}"
    inner = stack[-1][0]
    return f"{token.shown} closes while {inner.opening}, opened inside it, is still open"


def _stripped_edges(text: str, marks: tuple[PlacedMark, ...]) -> ReadText:
    """The text without the spaces at its ends, the marks moved with it."""
    lead = len(text) - len(text.lstrip())
    clean = text.strip()
    if not lead and len(clean) == len(text):
        return ReadText(text, marks)
    limit = len(clean)
    return ReadText(
        clean,
        tuple(
            PlacedMark(
                m.marks, min(max(m.start - lead, 0), limit), min(max(m.end - lead, 0), limit)
            )
            for m in marks
        ),
    )


def without_hints(written: str, line: MarkedText, source: str = "") -> str:
    """``written`` without copies of the line's reading hints (``《とも》``), unless the source
    itself writes that very text."""
    for hint in line.hints:
        if hint in written and hint not in source:
            written = written.replace(hint, "")
    return written


def without_placeholders(text: str) -> str:
    """``text`` without anything in ⟦⟧: a prefix a model copied from its work line, read as
    the source's own words."""
    return _ANY_BRACKETED.sub("", text) if OPEN in text else text


def holds_placeholders(written: str, line: MarkedText, source: str = "") -> bool:
    """Whether ``written`` writes any placeholder, in any spelling ``normalized`` reads."""
    return _PLACEHOLDER.search(normalized(written, line, source)) is not None


def stripped(written: str, line: MarkedText, source: str = "") -> str:
    """``written`` without any placeholder: a note reference back as its source text, pairs
    and anything else in ⟦⟧ gone. What is kept of a text whose markup is dropped."""
    if line.unchecked:
        return written.strip()
    text = normalized(written, line, source)
    sent = line.by_number()

    def replace(match: re.Match[str]) -> str:
        placeholder = sent.get(int(match.group(2)))
        if placeholder is None or match.group(1) or placeholder.paired:
            return ""
        return placeholder.kept

    text = _PLACEHOLDER.sub(replace, text)
    text = re.sub(r"⟦[^⟦⟧]{0,12}⟧", "", text)
    return " ".join(text.replace(OPEN, "").replace(CLOSE, "").split(" ")).strip()


def markup_lost(paragraph_id: str) -> QualityWarning:
    """The flag of a translation kept without its paragraph's markup."""
    return QualityWarning(
        MARKUP_LOST,
        "markup lost: the model could not keep the paragraph's inline markup (emphasis, "
        "links, notes…); its translation was kept without it. Write a version with the "
        "placeholders to restore it.",
        paragraph_id,
    )


def markup_refusals(refused: ToolError) -> set[str]:
    """The paragraphs a refused batch was refused for because of their placeholders."""
    problems = refused.details.get("problems")
    if not isinstance(problems, list):
        return set()
    return {
        str(p["paragraph_id"])
        for p in problems
        if isinstance(p, dict) and p.get("error_code") == MARKUP_MISMATCH
    }


# -- marks carried through an edit -------------------------------------------------------------


def carried_marks(before: str, after: str, marks: Sequence[PlacedMark]) -> tuple[PlacedMark, ...]:
    """``marks`` of the text ``before``, moved to the text ``after`` it became by an edit
    (a search and replace): a mark's ends follow the text around them; a pair whose words
    were all replaced holds what replaced them; one left with no text is dropped."""
    if not marks or before == after:
        return tuple(marks)
    blocks = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()

    def moved(offset: int, *, closing: bool) -> int:
        for _, a_start, a_end, b_start, b_end in blocks:
            inside = a_start <= offset < a_end or (closing and a_start < offset <= a_end)
            if inside or (a_start == a_end == offset):
                if a_end - a_start == b_end - b_start:
                    return b_start + offset - a_start
                return b_end if closing else b_start
        return len(after)

    carried = []
    for mark in marks:
        start = moved(mark.start, closing=False)
        end = moved(mark.end, closing=True) if mark.end > mark.start else start
        if mark.end > mark.start and end <= start:
            continue
        carried.append(PlacedMark(mark.marks, start, end))
    return tuple(carried)


def valid_marks(marks: Sequence[PlacedMark], text: str, count: int) -> tuple[PlacedMark, ...]:
    """The ``marks`` that still fit ``text`` and a source of ``count`` marks (a new edition
    may have changed the source since they were placed)."""
    return tuple(
        m
        for m in marks
        if 0 <= m.start <= m.end <= len(text) and all(0 <= i < count for i in m.marks)
    )
