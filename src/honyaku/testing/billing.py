"""What a provider bills for a Chat Completions request, as the fake servers report it.

A request is billed as the text the model reads: the tool schemas, then each message's role,
content and calls, in order. Providers cache prompts by prefix: the part of a request that
starts exactly like an earlier one is served from the cache at a discount. ``PromptCache``
finds the longest prefix a request shares with any earlier one, as providers do (without
their minimum lengths and block rounding, which only make small requests dearer).

Tokens are counted by a ``TokenCounter``: the per-script ratio by default, or a real
tokenizer (``llm.tokenizers``). The exchanges a server answered can be billed again with
another counter (``bill_exchanges``), so one run is priced in several tokenizers.

The longest prefix shared with any of a set of strings is the one shared with a neighbour
in their sorted order, so each request costs a binary search, not a scan of all earlier ones.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Any

from honyaku.domain.tokens import SCRIPT_RATIO, TokenCounter

PREFIX, MESSAGE, HISTORY = "prefix", "message", "history"
"""The parts of a request: the tool schemas and system prompt, the first user message (a
job's chunk), and the conversation after it."""


def request_parts(body: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The request as the model reads it, part by part: tool schemas (compact, as providers
    render them into the prompt), then every message, each labelled with its part."""
    tools = body.get("tools")
    parts = (
        [(PREFIX, json.dumps(tools, ensure_ascii=False, separators=(",", ":")))] if tools else []
    )
    part = PREFIX
    for message in body.get("messages", []):
        content = message.get("content") or ""
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        calls = "".join(
            f"{call['function']['name']}{call['function'].get('arguments') or ''}"
            for call in message.get("tool_calls") or ()
        )
        if part == MESSAGE or (part == PREFIX and message.get("role") != "system"):
            part = HISTORY if part == MESSAGE else MESSAGE
        parts.append((part, f"{message.get('role', '')}\n{content}{calls}"))
    return tuple(parts)


def request_text(body: dict[str, Any]) -> str:
    return "\n".join(text for _, text in request_parts(body))


@dataclass(frozen=True, slots=True)
class PromptBill:
    chars: int
    cached_chars: int
    tokens: int
    cached_tokens: int


@dataclass(frozen=True, slots=True)
class Bill:
    """One request's bill: its prompt, and what the model wrote (reasoning included)."""

    prompt: PromptBill
    output_chars: int
    output_tokens: int
    reasoning_tokens: int = 0

    def usage(self) -> dict[str, Any]:
        """The bill as Chat Completions reports it."""
        usage: dict[str, Any] = {
            "prompt_tokens": self.prompt.tokens,
            "completion_tokens": self.output_tokens,
            "total_tokens": self.prompt.tokens + self.output_tokens,
            "prompt_tokens_details": {"cached_tokens": self.prompt.cached_tokens},
        }
        if self.reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens}
        return usage


@dataclass(frozen=True, slots=True)
class Exchange:
    """One answered request: its prompt part by part (``request_parts``), and what the reply
    wrote (all of it, reasoning included), of which ``reasoning`` was thought."""

    parts: tuple[tuple[str, str], ...]
    output: str
    reasoning: str = ""

    @property
    def prompt(self) -> str:
        return "\n".join(text for _, text in self.parts)


def bill_for(cache: PromptCache, exchange: Exchange) -> Bill:
    count = cache.tokens.count
    return Bill(
        cache.bill(exchange.prompt),
        len(exchange.output),
        round(count(exchange.output)),
        round(count(exchange.reasoning)),
    )


def bill_exchanges(exchanges: list[Exchange], tokens: TokenCounter) -> list[Bill]:
    """The bills of ``exchanges``, in order, counted by ``tokens`` with a cache of their own."""
    cache = PromptCache(tokens)
    return [bill_for(cache, exchange) for exchange in exchanges]


@dataclass
class PromptCache:
    tokens: TokenCounter = SCRIPT_RATIO
    _seen: list[str] = field(default_factory=list)

    def bill(self, text: str) -> PromptBill:
        """What ``text`` costs, given every request billed before it; then remember it."""
        shared = self._shared_prefix(text)
        bisect.insort(self._seen, text)
        # Counted in two parts: a slow tokenizer reads each character once.
        cached = round(self.tokens.count(text[:shared]))
        return PromptBill(
            len(text), shared, cached + round(self.tokens.count(text[shared:])), cached
        )

    def _shared_prefix(self, text: str) -> int:
        at = bisect.bisect_left(self._seen, text)
        neighbours = self._seen[max(0, at - 1) : at + 1]
        return max((common_prefix(text, other) for other in neighbours), default=0)


def common_prefix(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share from their start."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
