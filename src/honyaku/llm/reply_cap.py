"""Replies capped at what the server's window holds beyond the prompt.

A local server left to itself lets a reply run until its context is full: a small model under
a tool-call grammar may write for many minutes, and llama-cpp-python then fails mid-stream
("llama_decode returned 1"), so the whole reply is lost. Sent as ``max_tokens``, the room left
ends such a reply cleanly, cut at the limit, and the chunk goes on with what it said.
Only for servers that said their window and end a reply at ``max_tokens`` whatever the prompt
(llama.cpp, Ollama): vLLM refuses a request whose prompt and ``max_tokens`` overrun the window,
which honyaku's count may, and a hosted API's reasoning models refuse ``max_tokens`` itself.

The room is only as right as honyaku's count of the prompt in the server's tokens, so each
reply's reported prompt tokens correct that count; and a reply that filled the context all
the same (the server failed it) leaves the next try of the request less room.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING

from honyaku.domain.tokens import TokenCounter
from honyaku.errors import ContextOverflowError, TransientProviderError
from honyaku.llm.events import ChatProvider, Response, StreamEvent
from honyaku.llm.messages import ChatRequest, request_tokens
from honyaku.llm.server_info import LLAMA_CPP, OLLAMA
from honyaku.llm.wrapper import ProviderWrapper

if TYPE_CHECKING:
    from honyaku.llm.models import ContextWindow

CAPPED_SERVERS = frozenset({LLAMA_CPP, OLLAMA})
"""Servers whose replies are capped, once they said their window."""
TEMPLATE_SHARE = 0.05
"""Of the window, kept for what the chat template adds and for honyaku's count falling short
of the server's."""
LEAST_ROOM = 64
"""Below this the conversation does not fit: the server would take the request and fail the
reply once it filled the window (llama-cpp-python), so it is not sent."""
FILLED_RECOUNT = 1.25
"""After a reply filled the context, the server's tokens are counted this much higher."""
_FILLED = re.compile(r"llama_decode returned 1|failed to find (a memory slot|free space in the KV)")
"""How llama.cpp and llama-cpp-python fail a reply that filled the context as it was written."""


def reply_room(window: int, prompt_tokens: float) -> int:
    """The tokens a reply may take in ``window`` after a prompt of ``prompt_tokens``."""
    room = int(window * (1 - TEMPLATE_SHARE) - prompt_tokens)
    if room < LEAST_ROOM:
        raise ContextOverflowError(
            "the conversation leaves the reply no room in the model's context window "
            f"({window:,} tokens)",
            window=window,
            prompt_tokens=round(prompt_tokens),
        )
    return room


class ReplyCap(ProviderWrapper):
    """A ``ChatProvider`` whose requests carry the room ``window`` leaves for the reply."""

    def __init__(self, inner: ChatProvider, window: ContextWindow, tokens: TokenCounter) -> None:
        super().__init__(inner)
        self.window = window
        self.tokens = tokens

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        counted = request_tokens(request, self.tokens)
        if self.window.tokens is not None:
            prompt = counted * self.window.count_factor
            request = replace(request, max_reply_tokens=reply_room(self.window.tokens, prompt))
        try:
            async for event in self.inner.stream(request):
                if isinstance(event, Response) and event.usage.input_tokens and counted:
                    self.window.observe_count(event.usage.input_tokens / counted)
                yield event
        except TransientProviderError as exc:
            if _FILLED.search(str(exc)):
                self.window.observe_count(self.window.count_factor * FILLED_RECOUNT)
            raise
