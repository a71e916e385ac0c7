"""Replies capped at what the server's window holds beyond the prompt.

A local server left to itself lets a reply run until its context is full: a small model under
a tool-call grammar may write for many minutes, and llama-cpp-python then fails mid-stream
("llama_decode returned 1"), so the whole reply is lost. Sent as ``max_tokens``, the room left
ends such a reply cleanly, cut at the limit, and the chunk goes on with what it said.
Only for servers that said their window and end a reply at ``max_tokens`` whatever the prompt
(llama.cpp, Ollama): vLLM refuses a request whose prompt and ``max_tokens`` overrun the window,
which honyaku's count may, and a hosted API's reasoning models refuse ``max_tokens`` itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING

from honyaku.domain.tokens import TokenCounter
from honyaku.llm.events import ChatProvider, StreamEvent
from honyaku.llm.messages import ChatRequest, request_tokens
from honyaku.llm.server_info import LLAMA_CPP, OLLAMA

if TYPE_CHECKING:
    from honyaku.llm.models import ContextWindow

CAPPED_SERVERS = frozenset({LLAMA_CPP, OLLAMA})
"""Servers whose replies are capped, once they said their window."""
TEMPLATE_SHARE = 0.05
"""Of the window, kept for what the chat template adds and for honyaku's count falling short
of the server's."""
LEAST_ROOM = 64
"""Below this the request is sent uncapped: the server's refusal teaches the window better."""


def reply_room(window: int, prompt_tokens: float) -> int | None:
    """The tokens a reply may take in ``window`` after a prompt of ``prompt_tokens``."""
    room = int(window * (1 - TEMPLATE_SHARE) - prompt_tokens)
    return room if room >= LEAST_ROOM else None


class ReplyCap:
    """A ``ChatProvider`` whose requests carry the room ``window`` leaves for the reply."""

    def __init__(self, inner: ChatProvider, window: ContextWindow, tokens: TokenCounter) -> None:
        self.inner = inner
        self.model = inner.model
        self.window = window
        self.tokens = tokens

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        if self.window.tokens is not None:
            prompt = request_tokens(request, self.tokens) * self.window.count_factor
            request = replace(request, max_reply_tokens=reply_room(self.window.tokens, prompt))
        async for event in self.inner.stream(request):
            yield event

    async def aclose(self) -> None:
        await self.inner.aclose()
