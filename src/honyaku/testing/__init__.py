"""Stand-ins for real model servers, for the tests, the benchmarks and your own tests.

Each is a real server on 127.0.0.1 that honyaku talks to as it talks to a provider. They need
nothing beyond honyaku's own dependencies (``python -m honyaku.testing`` runs one alone).

fake_llm.py         FakeLLMServer: an OpenAI-compatible server, faults, thinking, rate limits
fake_gemini.py      FakeGeminiServer: the Gemini API, as strict as Gemini 3
fake_anthropic.py   FakeAnthropicServer: Anthropic's Messages API, its prompt cache checked as
                    Anthropic checks it, thinking, refusals and overloads
fake_batches.py     the Batch API endpoints of the three, driven by the same scripted models
content_filter.py   ContentFilter: the requests a provider's filter refuses, and where
silent_server.py    SilentServer: a server that goes quiet at the TCP level
context_limit.py    a context window, refused and cut as local servers do, and said or not
billing.py          what a request is billed, with a provider's prompt cache
scripted_models.py  ScriptedTranslator, ScriptedAssistant: the demo model with a script,
                    Mistake, and the calls a thinking model drafts
sloppy_drafts.py    the careless draft the quality checks catch, and its fix
spoiled_markup.py   what models do to the placeholders of inline markup
series.py           a synthetic two-volume series with its cast, for the cast's tests and bench
server.py           BackgroundServer: an ASGI app served from a background thread
"""

from honyaku.llm.demo import (
    FakeCall,
    Reply,
    last_result,
    proofreading_changes,
    pseudo_revision,
    pseudo_translation,
)
from honyaku.testing.content_filter import Blocked, ContentFilter
from honyaku.testing.context_limit import ContextLimit, Introspection, Refusal
from honyaku.testing.fake_anthropic import FakeAnthropicServer
from honyaku.testing.fake_batches import BatchScript
from honyaku.testing.fake_gemini import FakeGeminiServer
from honyaku.testing.fake_llm import (
    MODEL_NAME,
    FakeLLMServer,
    Fault,
    FaultKind,
    Thinking,
    ThoughtPlace,
    ToolSupport,
)
from honyaku.testing.scripted_models import (
    DRAFT_MARK,
    Mistake,
    ScriptedAssistant,
    ScriptedTranslator,
    Step,
    hanzi_translation,
)
from honyaku.testing.silent_server import Silence, SilentServer

__all__ = [
    "DRAFT_MARK",
    "MODEL_NAME",
    "BatchScript",
    "Blocked",
    "ContentFilter",
    "ContextLimit",
    "FakeAnthropicServer",
    "FakeCall",
    "FakeGeminiServer",
    "FakeLLMServer",
    "Fault",
    "FaultKind",
    "Introspection",
    "Mistake",
    "Refusal",
    "Reply",
    "ScriptedAssistant",
    "ScriptedTranslator",
    "Silence",
    "SilentServer",
    "Step",
    "Thinking",
    "ThoughtPlace",
    "ToolSupport",
    "hanzi_translation",
    "last_result",
    "proofreading_changes",
    "pseudo_revision",
    "pseudo_translation",
]
