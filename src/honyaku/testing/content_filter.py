"""A provider's content filter, for the fake servers: which requests it refuses, and where.

Real providers refuse a request at one of two points: the prompt, before the model writes
anything (Azure's 400 ``content_filter``, Gemini's ``promptFeedback.blockReason``), or the
reply, cut midway once the model has begun (``finish_reason: "content_filter"``, Gemini's
``finishReason: SAFETY``). ``ContentFilter`` says which requests meet it and at which point;
each fake server answers in its provider's shape.

A request is judged on the text of its messages (system prompt, turns, calls and their
results), not on its tool schemas: the whole conversation of a chunk that holds a filtered
word is refused, turn after turn, as a real filter refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import StrEnum


class Blocked(StrEnum):
    PROMPT = "prompt"
    """The request is refused before any reply: Azure's 400, Gemini's blocked prompt."""
    REPLY = "reply"
    """The reply begins, then stops short with the filter's finish reason; what came of it
    (some text, maybe a call) is the provider's to discard."""


@dataclass(frozen=True)
class ContentFilter:
    """Refuses any request whose text holds one of ``words``, or that ``refuses`` says no to.

    ``FakeLLMServer(filter=ContentFilter(words={"血"}))`` refuses every request whose
    messages mention 血; ``ContentFilter(refuses=lambda text: len(text) > 9000)`` every
    long one.
    """

    words: Collection[str] = ()
    """Words any of which gets a request refused, matched case-insensitively."""
    refuses: Callable[[str], bool] | None = None
    """A rule on the request's text, for what words cannot say."""
    blocked: Blocked = Blocked.REPLY
    """Where the request is refused: its prompt, or its reply midway."""

    def blocks(self, text: str) -> bool:
        folded = text.casefold()
        if any(word.casefold() in folded for word in self.words):
            return True
        return self.refuses is not None and self.refuses(text)
