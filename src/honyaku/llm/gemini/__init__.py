"""Gemini's own API with native function calling, on the official ``google-genai`` SDK.

provider.py   ``GeminiProvider``: a request sent, its streamed reply, its errors
request.py    what Gemini is sent: function declarations in its schema, the history
reply.py      a streamed reply read: text, thoughts, calls, usage
"""

from honyaku.llm.gemini.provider import GeminiProvider
from honyaku.llm.gemini.reply import REPLAY_KEY, GeminiReplyAssembler, json_path_steps
from honyaku.llm.gemini.request import (
    FOREIGN_SIGNATURE,
    function_declaration,
    gemini_contents,
    gemini_schema,
)

__all__ = [
    "FOREIGN_SIGNATURE",
    "REPLAY_KEY",
    "GeminiProvider",
    "GeminiReplyAssembler",
    "function_declaration",
    "gemini_contents",
    "gemini_schema",
    "json_path_steps",
]
