"""What a provider's stream yields. Progress bars, logs, SSE and tests all consume these."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol, TypeVar

from honyaku.domain.pace import ReplyTiming
from honyaku.llm.messages import AssistantMessage, ChatRequest

CUT_REPLY = "length"
"""The finish reason of a reply the model's limit stopped."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ArgumentsDelta:
    """A piece of a native tool call's arguments as it streams: nothing to show and never run,
    but watched (a reply that loops inside a call's arguments is cut like one that loops in
    its text)."""

    text: str


@dataclass(frozen=True, slots=True)
class Retry:
    """The attempt so far is discarded; another starts after ``delay_s``."""

    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True, slots=True)
class Waiting:
    """A request went to the model, which works on it until its reply is whole."""

    expected_s: float | None
    """How long the reply should take at the model's pace; ``None`` before any was timed."""


@dataclass(frozen=True, slots=True)
class Usage:
    input_chars: int
    output_chars: int
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    """Of ``input_tokens``, those read from the provider's prompt cache."""
    reasoning_tokens: int | None = None
    """Of ``output_tokens``, those spent reasoning, where the provider reports them."""
    estimated_input_tokens: int = 0
    """honyaku's own estimate of the request's tokens (``domain.tokens``)."""
    estimated_output_tokens: int = 0
    cache_write_tokens: int | None = None
    """Of ``input_tokens``, those written to an explicit prompt cache (Anthropic's), billed at
    a price of their own."""


@dataclass(frozen=True, slots=True)
class Response:
    """The finished reply: the only event whose tool calls may be run."""

    message: AssistantMessage
    finish_reason: str
    usage: Usage
    timing: ReplyTiming | None = None
    """How long the reply took, where the provider timed it."""

    @property
    def cut(self) -> bool:
        """The reply ran into the model's limit (``max_tokens`` or its window) and stopped."""
        return self.finish_reason == CUT_REPLY

    @property
    def rambled(self) -> bool:
        """Cut while writing text, no tool call begun: a smaller chunk would not help."""
        return self.cut and not self.message.tool_calls


@dataclass(frozen=True, slots=True)
class CallStreaming:
    """A tool call has begun to arrive: it can be shown at once, and runs only if the reply
    ends whole with it (a call drafted in reasoning, or in a cut reply, never does)."""

    index: int
    """Its place among the reply's calls."""
    name: str


StreamEvent = (
    TextDelta | ReasoningDelta | ArgumentsDelta | CallStreaming | Retry | Waiting | Response
)


class ChatProvider(Protocol):
    """One plug-in point per model API: stream a reply to a request as neutral events.

    A stream ends with exactly one ``Response``, or raises a ``ProviderError``. A reply cut
    off before its finish reason raises ``CutStreamError``; none of its tool calls escape.
    """

    model: str

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None:
        """Release connections; called once, inside the event loop that used them."""
        ...


T = TypeVar("T")


@asynccontextmanager
async def closed_after(stream: AsyncIterator[T]) -> AsyncIterator[AsyncIterator[T]]:
    """``stream``, closed as the block ends, even midway: closing a reply's stream closes
    its request, so the model stops writing (and billing) at once."""
    try:
        yield stream
    finally:
        if close := getattr(stream, "aclose", None):
            await close()
