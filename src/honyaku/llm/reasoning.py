"""Reasoning that a model writes into its reply text: telling it from the answer.

Open reasoning models (DeepSeek-R1 and its distills, QwQ, Qwen3 thinking) served by llama.cpp,
Ollama or vLLM without a reasoning parser think out loud in the reply text, and often draft
there the very tool calls they are about to make. Reasoning is not answer: nothing in it is
run, nothing in it is shown as the answer, and it is not sent back as the answer next turn.
A reply comes in one of three shapes::

    <think>…</think> answer     a block the model opens and closes (also <thinking>, <reasoning>)
    …</think> answer            the server's template put "<think>" in the prompt: the reply
                                begins inside the block and only the closer appears; calls
                                drafted before it are drafts
    <think>…                    the reply ended while thinking: it has no answer, and is
                                treated as a cut reply (``CutStreamError``), so it is retried

Two readers find the tags, incrementally and in linear time, holding back only a tail that
could still grow into a tag: ``XmlToolParser`` in the XML protocol (which must leave a
``<think>`` inside a tool value alone, so it reads the tags in its own text state), and
``ReasoningSplitter`` here, for text that holds no tool blocks (a native reply's ``content``).
Both report the same events; ``ReplySplit`` turns them into the answer, the reasoning and the
display deltas, and does so the same way for both protocols.

How the stream shows text that turns out to have been reasoning: a reader learns it only at
the bare closer, when that text has streamed already. So each provider keeps a
``ReplyOpening``, learned from its last finished reply:

- Not known yet (a provider's first replies): the answer text is held back until the reply
  shows how it began: an explicit opener lets it go as answer, a bare closer turns it into
  one ``ReasoningDelta``, the end of the reply lets it go as answer.
- Known to begin inside reasoning: the reader starts inside the block, so the reasoning
  streams as ``ReasoningDelta`` from the first byte and a reply that never closes it is cut.
- Known to begin in the answer: everything streams at once. Should a bare closer still come
  (the server changed), the final message is right, but text already shown as answer was
  reasoning; it is sent again as one ``ReasoningDelta``.

Holding back costs little: replies whose opening is unknown are a provider's first ones, and
their calls only run once the reply has finished anyway. The final ``AssistantMessage`` is
always right whatever was shown: its ``text`` never holds reasoning, its ``reasoning`` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from honyaku.errors import CutStreamError
from honyaku.llm.events import ReasoningDelta, TextDelta

REASONING_ELEMENTS = ("think", "thinking", "reasoning")
"""The elements models write their reasoning in; each is closed by its own closer."""
REASONING_OPENERS = {f"<{element}>": element for element in REASONING_ELEMENTS}
REASONING_CLOSERS = {f"</{element}>": element for element in REASONING_ELEMENTS}
REASONING_TAG_MAX_CHARS = max(map(len, REASONING_CLOSERS))

_REASONING_TAG = re.compile(f"</?(?:{'|'.join(REASONING_ELEMENTS)})>")


def closer_of(element: str) -> str:
    return f"</{element}>"


@dataclass(frozen=True, slots=True)
class VisibleText:
    """Text the reader sees: the answer, never reasoning, never a tool block, never half a tag."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningText:
    """Text inside a reasoning block: never answer, never a call."""

    text: str


@dataclass(frozen=True, slots=True)
class BeganInReasoning:
    """A closer with no opener: the reply began inside a block whose opener was in the prompt.

    Everything reported before this event as answer (text, and in the XML protocol calls) is
    withdrawn: it was reasoning, and ``reasoning`` is that text as written, drafts included.
    """

    element: str
    reasoning: str


@dataclass(frozen=True, slots=True)
class UnclosedReasoning:
    """The reply ended inside a reasoning block: it has no answer."""

    element: str


SplitEvent = VisibleText | ReasoningText | BeganInReasoning | UnclosedReasoning


def partial_tag_start(text: str, pos: int, tags: tuple[str, ...], longest: int) -> int:
    """Where the tail of ``text`` that could still grow into one of ``tags`` begins, or
    ``len(text)``. Every tag has a single ``<``, its first character."""
    last = text.rfind("<", max(pos, len(text) - longest + 1))
    if last != -1 and any(tag.startswith(text[last:]) for tag in tags):
        return last
    return len(text)


_SPLITTER_TAGS = (*REASONING_OPENERS, *REASONING_CLOSERS)


class ReasoningSplitter:
    """Split streamed text that holds no tool blocks into answer and reasoning.

    ``feed(chunk)`` then ``close()``, like ``XmlToolParser``, with the same events and rules:
    inside a block only its own closer ends it (other tags are reasoning text); in the answer,
    an opener starts a block and a closer with no opener means the reply began inside one.
    ``inside`` starts the reply inside that element's block, as ``ReplyOpening`` presumes.
    """

    def __init__(self, *, inside: str | None = None) -> None:
        self._inside = inside
        self._pending = ""
        self._answer: list[str] = []
        """The answer so far, withdrawn as reasoning if a bare closer comes."""

    @property
    def in_reasoning(self) -> bool:
        return self._inside is not None

    def feed(self, chunk: str) -> list[SplitEvent]:
        events: list[SplitEvent] = []
        text, pos = self._pending + chunk, 0
        self._pending = ""
        while pos < len(text):
            scan = self._scan_answer if self._inside is None else self._scan_reasoning
            pos = scan(text, pos, events)
        return events

    def close(self) -> list[SplitEvent]:
        events: list[SplitEvent] = []
        if self._inside is not None:
            _add(events, ReasoningText, self._pending)
            events.append(UnclosedReasoning(self._inside))
        else:
            self._add_answer(events, self._pending)
        self._pending = ""
        return events

    def _scan_answer(self, text: str, pos: int, events: list[SplitEvent]) -> int:
        match = _REASONING_TAG.search(text, pos)
        if match is None:
            hold = partial_tag_start(text, pos, _SPLITTER_TAGS, REASONING_TAG_MAX_CHARS)
            self._add_answer(events, text[pos:hold])
            self._pending = text[hold:]
            return len(text)
        self._add_answer(events, text[pos : match.start()])
        tag = match.group()
        if tag in REASONING_OPENERS:
            self._inside = REASONING_OPENERS[tag]
        else:
            events.append(BeganInReasoning(REASONING_CLOSERS[tag], "".join(self._answer)))
            self._answer = []
        return match.end()

    def _scan_reasoning(self, text: str, pos: int, events: list[SplitEvent]) -> int:
        assert self._inside is not None
        closer = closer_of(self._inside)
        end = text.find(closer, pos)
        if end == -1:
            hold = partial_tag_start(text, pos, (closer,), len(closer))
            _add(events, ReasoningText, text[pos:hold])
            self._pending = text[hold:]
            return len(text)
        _add(events, ReasoningText, text[pos:end])
        self._inside = None
        return end + len(closer)

    def _add_answer(self, events: list[SplitEvent], text: str) -> None:
        if text:
            self._answer.append(text)
            events.append(VisibleText(text))


def _add(
    events: list[SplitEvent], kind: type[VisibleText] | type[ReasoningText], text: str
) -> None:
    if text:
        events.append(kind(text))


class ReplyOpening:
    """Where a provider's replies begin, learned from its last finished reply (see above)."""

    def __init__(self) -> None:
        self.known = False
        self.inside: str | None = None
        """The element replies begin inside (its opener is in the prompt), or ``None``."""

    def learn(self, inside: str | None) -> None:
        self.known = True
        self.inside = inside


class ReplySplit:
    """One reply's answer and reasoning as the reader's events come, and the deltas to show.

    ``take`` answers the deltas to yield now; ``finish`` those held back to the end, and
    teaches ``opening`` how this reply began. A reply that ended inside its reasoning raises
    ``CutStreamError``: it has no answer, and none of its calls may run. The line breaks that
    set the answer apart from the reasoning before it are not part of the answer.
    """

    def __init__(self, opening: ReplyOpening) -> None:
        self._opening = opening
        self.inside = opening.inside if opening.known else None
        """Where the reader must start: inside this element's block, or in the answer."""
        self._began_inside = self.inside
        self._holding = not opening.known
        self._held: list[TextDelta | ReasoningDelta] = []
        self._answer: list[str] = []
        self._reasoning: list[str] = []
        self._after_reasoning = False

    @property
    def answer(self) -> str:
        return "".join(self._answer)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning)

    @property
    def holding(self) -> bool:
        """Whether what streams is held back until the reply shows how it began."""
        return self._holding

    def take(self, event: SplitEvent) -> list[TextDelta | ReasoningDelta]:
        match event:
            case VisibleText(text):
                if self._after_reasoning:
                    text = text.lstrip("\r\n")
                    self._after_reasoning = not text
                if not text:
                    return []
                self._answer.append(text)
                return self._show(TextDelta(text))
            case ReasoningText(text):
                self._reasoning.append(text)
                self._after_reasoning = True
                return self._let_go(ReasoningDelta(text))  # an explicit opener: not inside
            case BeganInReasoning(element, reasoning):
                self._answer = []
                self._held = []
                self._began_inside = element
                self._reasoning.append(reasoning)
                self._after_reasoning = True
                return self._let_go(ReasoningDelta(reasoning)) if reasoning else self._let_go()
            case UnclosedReasoning(element):
                raise CutStreamError(
                    f"the reply ended inside its <{element}> block, so it has no answer"
                )
        raise AssertionError(event)

    def finish(self) -> list[TextDelta | ReasoningDelta]:
        self._opening.learn(self._began_inside)
        return self._let_go()

    def _show(self, delta: TextDelta) -> list[TextDelta | ReasoningDelta]:
        if self._holding:
            self._held.append(delta)
            return []
        return [delta]

    def _let_go(self, *deltas: TextDelta | ReasoningDelta) -> list[TextDelta | ReasoningDelta]:
        held, self._held, self._holding = self._held, [], False
        return [*held, *deltas]
