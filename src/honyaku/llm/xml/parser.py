"""Incremental parser for the tool calls a model writes as XML in its text.

A model without native function calling calls a tool by writing, inside its reply::

    <tool_use>
    <invoke name="TOOL">
    <parameter name="PARAM">VALUE</parameter>
    </invoke>
    </tool_use>

It also reads the format local Qwen coder models write on their own, whatever the prompt says::

    <tool_call>
    <function=TOOL>
    <parameter=PARAM>
    VALUE
    </parameter>
    </function>
    </tool_call>

and tells the model's reasoning from its answer (``honyaku.llm.reasoning``): reasoning models
write their thinking into the same text, ``<think>…</think>``, and draft calls in it.

``XmlToolParser`` is fed the reply as it streams (``feed(chunk)`` then ``close()``) and answers
with events in reply order: ``VisibleText`` (the answer with the blocks cut out),
``ReasoningText``, ``BeganInReasoning``, ``UnclosedReasoning``, ``ParsedInvoke``,
``MalformedInvoke`` and ``ReplyTooLong``. It does no I/O and runs nothing.

The state machine; each arrow is labelled with the tags that take it::

    REASONING  the raw text up to the block's own closer: never a call
      ▲ │
      │ │   down: "<think>", "<thinking>", "<reasoning>"     up: "</think>"… (the same element)
      │ ▼
    TEXT       a closer here with no opener: the reply began inside reasoning (see below)
      │ ▲
      │ │   down: "<tool_use>", "<tool_call>"     up: "</tool_use>", "</tool_call>"
      ▼ │
    BLOCK
      │ ▲
      │ │   down: '<invoke name="T">', "<function=T>"     up: "</invoke>", "</function>"
      ▼ │
    INVOKE ──▶ TEXT on "</tool_use>", or ──▶ a new INVOKE on the next '<invoke name="T">':
      │ ▲      either ends the call when the model forgot its "</invoke>"
      │ │   down: '<parameter name="P">', "<parameter=P>"     up: "</parameter>"
      ▼ │
    VALUE      the raw text up to the first "</parameter>"

    any state ── more than max_chars fed ──▶ OVERFLOW: nothing more is read

Rules, chosen for what models really write:

- Only the exact openers ``<tool_use>`` and ``<tool_call>`` start a block. Any other tag in the
  text (``<b>``, ``<tool_call name="x">``, ``<!-- -->``) is visible text.
- Reasoning tags are read only in the text, never inside a block: a ``<think>`` in a value is
  part of the value. In the text, ``<think>`` opens reasoning wherever it stands (after a tool
  block too). A closer with no opener means the server put the opener in the prompt: the
  reply so far was reasoning, and ``BeganInReasoning`` withdraws the text and calls reported
  before it (they were drafts). A parser made with ``inside_reasoning`` starts in the block.
  A reply that ends inside reasoning reports ``UnclosedReasoning``: it has no answer.
- Visible text and reasoning stream out as soon as it is safe: only a tail that could still
  grow into a tag (``<``, ``<too``, ``<thin``, ``</thi``…) is held back, and it is let go as
  soon as it cannot.
- Inside a block, tags are read leniently: single or double quotes or none around names, extra
  spaces, self-closing ``<invoke name="T"/>`` (a call with no parameters). Text between tags and
  unknown tags are ignored. A tag longer than ``TAG_MAX_CHARS`` is not a tag.
- A value is the raw text up to the first ``</parameter>``: it may hold ``<``, ``&``, newlines,
  ``</invoke>`` or any tag but that one. It is never XML-unescaped (``&lt;`` stays ``&lt;``):
  models rarely escape, and a translation of HTML must keep its entities as written. One
  newline (``\\n`` or ``\\r\\n``) right after the opening tag and one right before
  ``</parameter>`` are removed, because models put values on their own lines; anything else is
  kept as written.
- A call ends at its ``</invoke>``; ``</tool_use>`` or a next ``<invoke>`` also end it when the
  model forgot ``</invoke>``. A block whose calls are all complete but whose ``</tool_use>``
  never came is forgiven: clients often stop generation on that very tag.
- A call with no name, a nameless or repeated parameter, a block that holds no call, or a call
  still open when the reply ends is a ``MalformedInvoke``: reported, never run.
- Past ``max_chars`` characters (1,000,000 by default) the parser stops reading and reports
  ``ReplyTooLong`` once; a call still open then is dropped.

Every character is looked at a bounded number of times: searches start where the last one
stopped, the reply is kept in one growing buffer, and values, raw call text and the answer
without its reasoning (``answer_text``) are cut out of it by offset. Feeding a reply in chunks
of any size gives the same events as feeding it whole, except that visible text and reasoning
may come in more pieces.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

from honyaku.llm.reasoning import (
    REASONING_CLOSERS,
    REASONING_OPENERS,
    BeganInReasoning,
    ReasoningText,
    UnclosedReasoning,
    VisibleText,
    closer_of,
    partial_tag_start,
)

MAX_REPLY_CHARS = 1_000_000
"""A reply is read up to this many characters, so a runaway model cannot exhaust memory."""

TAG_MAX_CHARS = 256
"""A ``<…>`` inside a block longer than this is stray text, not a tag."""

_BLOCK_OPENERS = ("<tool_use>", "<tool_call>")
_TEXT_TAGS = (*_BLOCK_OPENERS, *REASONING_OPENERS, *REASONING_CLOSERS)
"""The tags that mean something in the text; all else there is visible."""
_TEXT_TAG_MAX_CHARS = max(map(len, _TEXT_TAGS))
_TEXT_TAG = re.compile(f"<(?:{'|'.join(re.escape(tag[1:]) for tag in _TEXT_TAGS)})")
_VALUE_END = "</parameter>"
_TAG_DELIMITER = re.compile(r"[<>]")
_TAG = re.compile(r"<(/?)\s*([A-Za-z_][\w.:-]*)(.*?)(/?)>\Z", re.DOTALL)
_NAME_ATTRIBUTE = re.compile(r"""\bname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'/>]+))""")


@dataclass(frozen=True, slots=True)
class ParsedInvoke:
    """A complete call: the tool's name and each parameter's raw text."""

    name: str
    params: dict[str, str]
    raw: str
    """The call exactly as written, from ``<invoke`` to ``</invoke>``."""


@dataclass(frozen=True, slots=True)
class MalformedInvoke:
    """A call that cannot be read as written; it must be reported and never run."""

    reason: str
    raw: str
    name: str = ""
    """The tool's name when the model got that far, else empty."""


@dataclass(frozen=True, slots=True)
class ReplyTooLong:
    """The reply passed ``limit_chars``; nothing after that point was read."""

    limit_chars: int


ParserEvent = (
    VisibleText
    | ReasoningText
    | BeganInReasoning
    | UnclosedReasoning
    | ParsedInvoke
    | MalformedInvoke
    | ReplyTooLong
)


class _State(IntEnum):  # an int enum hashes in C: the scanner is looked up on every step
    TEXT = 1
    BLOCK = 2
    INVOKE = 3
    VALUE = 4
    REASONING = 5
    OVERFLOW = 6
    CLOSED = 7


@dataclass(slots=True)
class _Block:
    element: str
    """``tool_use`` or ``tool_call``: the closing tag must name the same."""
    start: int
    calls: int = 0


@dataclass(slots=True)
class _Invoke:
    element: str
    """``invoke`` or ``function``: the closing tag must name the same."""
    name: str
    start: int
    params: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Parameter:
    name: str
    value_start: int


@dataclass(frozen=True, slots=True)
class _Tag:
    closing: bool
    element: str
    name: str | None
    self_closing: bool


class _Transcript:
    """The reply so far in one growing buffer, so spans are cut out by offset, never rejoined."""

    def __init__(self) -> None:
        self._buffer = io.StringIO(newline="")
        self._length = 0

    def append(self, chunk: str) -> None:
        self._buffer.write(chunk)
        self._length += len(chunk)

    def cut(self, start: int, end: int) -> str:
        self._buffer.seek(start)
        text = self._buffer.read(end - start)
        self._buffer.seek(self._length)
        return text

    def text(self) -> str:
        return self._buffer.getvalue()


class XmlToolParser:
    """Split a streamed reply into visible text and tool calls; see the module docstring."""

    def __init__(
        self, max_chars: int = MAX_REPLY_CHARS, *, inside_reasoning: str | None = None
    ) -> None:
        """``inside_reasoning``: the reply begins inside this element's block (``think``)."""
        self.max_chars = max_chars
        self.opened: list[str] = []
        """The name of every call begun so far, as soon as its opening tag is read."""
        self._transcript = _Transcript()
        self._state = _State.REASONING if inside_reasoning else _State.TEXT
        self._reasoning = inside_reasoning or ""
        """The element of the reasoning block the reply is in."""
        self._answer_spans: list[tuple[int, int]] = []
        """Where the answer is in the reply: everything but reasoning blocks and their tags."""
        self._answer_from: int | None = None if inside_reasoning else 0
        """Where the answer span being read began; ``None`` inside reasoning."""
        self._fed = 0
        self._pending = ""
        """The unread tail of the last chunk: the start of a tag that may finish next chunk."""
        self._pending_clean = 0
        """In a block, how much of ``_pending`` is known to hold no ``<`` or ``>`` after its
        first character, so a long tag split in many chunks is not searched again."""
        self._block: _Block | None = None
        self._invoke: _Invoke | None = None
        self._parameter: _Parameter | None = None
        self._scanners: dict[_State, Callable[[str, int, int, list[ParserEvent]], int]] = {
            _State.TEXT: self._scan_text,
            _State.BLOCK: self._scan_tags,
            _State.INVOKE: self._scan_tags,
            _State.VALUE: self._scan_value,
            _State.REASONING: self._scan_reasoning,
        }

    @property
    def text(self) -> str:
        """The whole reply read so far, tool blocks included (at most ``max_chars``)."""
        return self._transcript.text()

    @property
    def answer_text(self) -> str:
        """The reply read so far as written, less its reasoning blocks and their tags."""
        spans = self._answer_spans
        if self._answer_from is not None:
            spans = [*spans, (self._answer_from, self._fed)]
        return "".join(self._transcript.cut(start, end) for start, end in spans)

    def feed(self, chunk: str) -> list[ParserEvent]:
        """Read the next piece of the reply; answer the events it completes."""
        if self._state is _State.CLOSED:
            raise ValueError("feed() after close()")
        if self._state is _State.OVERFLOW or not chunk:
            return []
        room = self.max_chars - self._fed
        too_long = len(chunk) > room
        if too_long:
            chunk = chunk[:room]
        self._transcript.append(chunk)
        self._fed += len(chunk)
        events: list[ParserEvent] = []
        self._scan(self._pending + chunk, events)
        if too_long:
            self._stop_reading(events)
        return events

    def close(self) -> list[ParserEvent]:
        """End of the reply: let go of held-back text and report any call left open."""
        events: list[ParserEvent] = []
        if self._state is _State.TEXT:
            _add_text(events, self._pending)
        elif self._state is _State.REASONING:
            _add_reasoning(events, self._pending)
            events.append(UnclosedReasoning(self._reasoning))
        elif self._state in (_State.INVOKE, _State.VALUE):
            events.append(self._unfinished_call())
        elif self._state is _State.BLOCK and self._block is not None and not self._block.calls:
            element = self._block.element
            events.append(
                MalformedInvoke(
                    f"the <{element}> block was not closed before the reply ended; nothing was run",
                    self._transcript.cut(self._block.start, self._fed),
                )
            )
        self._pending = ""
        self._state = _State.CLOSED
        return events

    # The scanners: each reads ``text`` from ``pos`` and answers where it stopped. One that needs
    # more input keeps the unread tail in ``_pending`` and answers ``len(text)``. ``base`` is
    # the offset of ``text[0]`` in the whole reply.

    def _scan(self, text: str, events: list[ParserEvent]) -> None:
        base = self._fed - len(text)
        self._pending = ""
        pos = 0
        while pos < len(text):
            pos = self._scanners[self._state](text, pos, base, events)

    def _scan_text(self, text: str, pos: int, base: int, events: list[ParserEvent]) -> int:
        match = _TEXT_TAG.search(text, pos)
        if match is None:
            hold = partial_tag_start(text, pos, _TEXT_TAGS, _TEXT_TAG_MAX_CHARS)
            _add_text(events, text[pos:hold])
            self._pending = text[hold:]
            return len(text)
        start, end, tag = match.start(), match.end(), match.group()
        _add_text(events, text[pos:start])
        if tag in REASONING_OPENERS:
            self._open_reasoning(REASONING_OPENERS[tag], base + start)
        elif tag in REASONING_CLOSERS:
            self._began_in_reasoning(REASONING_CLOSERS[tag], base + start, base + end, events)
        else:
            self._block = _Block(tag[1:-1], base + start)
            self._state = _State.BLOCK
        return end

    def _scan_reasoning(self, text: str, pos: int, base: int, events: list[ParserEvent]) -> int:
        closer = closer_of(self._reasoning)
        end = text.find(closer, pos)
        if end == -1:
            hold = partial_tag_start(text, pos, (closer,), len(closer))
            _add_reasoning(events, text[pos:hold])
            self._pending = text[hold:]
            return len(text)
        _add_reasoning(events, text[pos:end])
        self._answer_from = base + end + len(closer)
        self._state = _State.TEXT
        return end + len(closer)

    def _scan_tags(self, text: str, pos: int, base: int, events: list[ParserEvent]) -> int:
        start = text.find("<", pos)
        if start == -1:
            return len(text)  # text between tags in a block: ignored
        delimiter = _TAG_DELIMITER.search(text, max(start + 1, self._pending_clean))
        self._pending_clean = 0
        if delimiter is None:
            if len(text) - start >= TAG_MAX_CHARS:
                return start + 1  # cannot end within the limit: a stray "<"
            self._pending = text[start:]
            self._pending_clean = len(self._pending)
            return len(text)
        if delimiter.group() == "<":
            return delimiter.start()  # the first "<" was stray; a tag may start here
        end = delimiter.end()
        tag = _read_tag(text[start:end]) if end - start <= TAG_MAX_CHARS else None
        if tag is not None:
            self._on_tag(tag, base + start, base + end, events)
        return end

    def _scan_value(self, text: str, pos: int, base: int, events: list[ParserEvent]) -> int:
        end = text.find(_VALUE_END, pos)
        if end == -1:
            self._pending = text[partial_tag_start(text, pos, (_VALUE_END,), len(_VALUE_END)) :]
            return len(text)
        self._finish_parameter(base + end)
        return end + len(_VALUE_END)

    # Reasoning.

    def _open_reasoning(self, element: str, start: int) -> None:
        assert self._answer_from is not None
        self._answer_spans.append((self._answer_from, start))
        self._answer_from = None
        self._reasoning = element
        self._state = _State.REASONING

    def _began_in_reasoning(
        self, element: str, start: int, end: int, events: list[ParserEvent]
    ) -> None:
        assert self._answer_from is not None
        spans = [*self._answer_spans, (self._answer_from, start)]
        drafted = "".join(self._transcript.cut(first, last) for first, last in spans)
        events.append(BeganInReasoning(element, drafted))
        self._answer_spans = []
        self._answer_from = end

    # Transitions inside a block.

    def _on_tag(self, tag: _Tag, start: int, end: int, events: list[ParserEvent]) -> None:
        block = self._block
        assert block is not None
        invoke = self._invoke
        opens_call = not tag.closing and tag.element in ("invoke", "function")
        closes_block = tag.closing and tag.element == block.element
        if invoke is not None and (opens_call or closes_block):
            self._finish_call(start, events)  # a missing </invoke> is forgiven
        elif invoke is not None and tag.closing and tag.element == invoke.element:
            self._finish_call(end, events)
        elif invoke is not None and not tag.closing and tag.element == "parameter":
            self._open_parameter(tag, end)
        if opens_call:
            self._open_call(tag, start, end, events)
        elif closes_block:
            self._close_block(end, events)

    def _open_call(self, tag: _Tag, start: int, end: int, events: list[ParserEvent]) -> None:
        name = (tag.name or "").strip()
        self._invoke = _Invoke(tag.element, name, start)
        self.opened.append(name)
        if not name:
            self._invoke.problems.append(f"the <{tag.element}> tag names no tool")
        self._state = _State.INVOKE
        if tag.self_closing:
            self._finish_call(end, events)

    def _open_parameter(self, tag: _Tag, end: int) -> None:
        self._parameter = _Parameter((tag.name or "").strip(), end)
        if tag.self_closing:
            self._finish_parameter(end)
        else:
            self._state = _State.VALUE

    def _finish_parameter(self, value_end: int) -> None:
        invoke, parameter = self._invoke, self._parameter
        assert invoke is not None
        assert parameter is not None
        value = _strip_one_newline(self._transcript.cut(parameter.value_start, value_end))
        if not parameter.name:
            invoke.problems.append("a <parameter> tag has no name")
        elif parameter.name in invoke.params:
            invoke.problems.append(f'parameter "{parameter.name}" is given twice')
        else:
            invoke.params[parameter.name] = value
        self._parameter = None
        self._state = _State.INVOKE

    def _finish_call(self, end: int, events: list[ParserEvent]) -> None:
        invoke, block = self._invoke, self._block
        assert invoke is not None
        assert block is not None
        raw = self._transcript.cut(invoke.start, end)
        if invoke.problems:
            reason = "; ".join(invoke.problems) + "; nothing was run"
            events.append(MalformedInvoke(reason, raw, invoke.name))
        else:
            events.append(ParsedInvoke(invoke.name, invoke.params, raw))
        block.calls += 1
        self._invoke = None
        self._state = _State.BLOCK

    def _close_block(self, end: int, events: list[ParserEvent]) -> None:
        block = self._block
        assert block is not None
        if not block.calls:
            call_tag = '<invoke name="TOOL">' if block.element == "tool_use" else "<function=TOOL>"
            events.append(
                MalformedInvoke(
                    f"the <{block.element}> block holds no {call_tag} call; nothing was run",
                    self._transcript.cut(block.start, end),
                )
            )
        self._block = None
        self._state = _State.TEXT

    # Endings.

    def _unfinished_call(self) -> MalformedInvoke:
        invoke, block = self._invoke, self._block
        assert invoke is not None
        assert block is not None
        where = f"</{invoke.element}>"
        if self._parameter is not None:
            where = f'</parameter> of parameter "{self._parameter.name}"'
        reason = (
            f'the reply ended before {where} in the call to "{invoke.name}": the '
            f"<{block.element}> block was not closed; nothing was run"
        )
        return MalformedInvoke(reason, self._transcript.cut(invoke.start, self._fed), invoke.name)

    def _stop_reading(self, events: list[ParserEvent]) -> None:
        if self._state is _State.TEXT:
            _add_text(events, self._pending)
        elif self._state is _State.REASONING:
            _add_reasoning(events, self._pending)
        self._pending = ""
        self._state = _State.OVERFLOW
        events.append(ReplyTooLong(self.max_chars))


def _add_text(events: list[ParserEvent], text: str) -> None:
    if text:
        events.append(VisibleText(text))


def _add_reasoning(events: list[ParserEvent], text: str) -> None:
    if text:
        events.append(ReasoningText(text))


def _read_tag(text: str) -> _Tag | None:
    match = _TAG.match(text)
    if match is None:
        return None
    slash, element, rest, self_closing = match.groups()
    rest = rest.strip()
    name: str | None
    if rest.startswith("="):  # Qwen's <function=NAME> and <parameter=NAME>
        name = rest[1:].strip().strip("\"'")
    elif attribute := _NAME_ATTRIBUTE.search(rest):
        name = next(group for group in attribute.groups() if group is not None)
    else:
        name = None
    return _Tag(bool(slash), element.lower(), name, bool(self_closing))


def _strip_one_newline(value: str) -> str:
    if value.startswith("\r\n"):
        value = value[2:]
    elif value.startswith("\n"):
        value = value[1:]
    if value.endswith("\r\n"):
        value = value[:-2]
    elif value.endswith("\n"):
        value = value[:-1]
    return value
