"""Gemini's own API with native function calling, on the official ``google-genai`` SDK.

provider.py   ``GeminiProvider``: a request sent, its streamed reply, its errors
request.py    what Gemini is sent: function declarations in its schema, the history, the
              loosest safety settings the model takes
reply.py      a streamed reply read: text, thoughts, calls, usage, what its filters refused
"""

from honyaku.llm.gemini.provider import GeminiProvider
from honyaku.llm.gemini.reply import (
    REPLAY_KEY,
    GeminiReplyAssembler,
    json_path_steps,
    stopped_by_filter,
)
from honyaku.llm.gemini.request import (
    ADJUSTABLE_HARMS,
    FOREIGN_SIGNATURE,
    function_declaration,
    gemini_contents,
    gemini_schema,
    safety_settings,
)

__all__ = [
    "ADJUSTABLE_HARMS",
    "FOREIGN_SIGNATURE",
    "REPLAY_KEY",
    "GeminiProvider",
    "GeminiReplyAssembler",
    "function_declaration",
    "gemini_contents",
    "gemini_schema",
    "json_path_steps",
    "safety_settings",
    "stopped_by_filter",
]
