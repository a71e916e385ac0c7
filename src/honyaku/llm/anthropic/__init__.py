"""Anthropic's own Messages API (Claude), on the official ``anthropic`` SDK: native tool use,
thinking blocks and explicit prompt caching.

provider.py   ``AnthropicProvider``: a request sent, its streamed reply, its errors
request.py    what Anthropic is sent: system blocks, tools, the history as content blocks,
              the prompt cache's breakpoints
reply.py      a reply read (streamed, or whole as a batch returns it): text, thinking, calls,
              usage with cache reads and writes, what stopped it
"""

from honyaku.llm.anthropic.provider import ANTHROPIC_URL, AnthropicProvider, status_error
from honyaku.llm.anthropic.reply import (
    AnthropicReplyAssembler,
    anthropic_usage,
    message_events,
)
from honyaku.llm.anthropic.request import (
    CACHE_CONTROL,
    REPLAY_KEY,
    max_reply_tokens,
    request_body,
    wire_messages,
    with_breakpoints,
)

__all__ = [
    "ANTHROPIC_URL",
    "CACHE_CONTROL",
    "REPLAY_KEY",
    "AnthropicProvider",
    "AnthropicReplyAssembler",
    "anthropic_usage",
    "max_reply_tokens",
    "message_events",
    "request_body",
    "status_error",
    "wire_messages",
    "with_breakpoints",
]
