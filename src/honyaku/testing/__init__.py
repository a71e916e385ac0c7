"""Stand-ins for real model servers, for the tests and the benchmarks."""

from honyaku.llm.demo import (
    DRAFT_MARK,
    FakeAssistant,
    FakeCall,
    FakeTranslator,
    Mistake,
    Reply,
    hanzi_translation,
    last_result,
    proofreading_changes,
    pseudo_revision,
    pseudo_translation,
)
from honyaku.testing.context_limit import ContextLimit, Introspection, Refusal
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
from honyaku.testing.silent_server import Silence, SilentServer

__all__ = [
    "DRAFT_MARK",
    "MODEL_NAME",
    "ContextLimit",
    "FakeAssistant",
    "FakeCall",
    "FakeGeminiServer",
    "FakeLLMServer",
    "FakeTranslator",
    "Fault",
    "FaultKind",
    "Introspection",
    "Mistake",
    "Refusal",
    "Reply",
    "Silence",
    "SilentServer",
    "Thinking",
    "ThoughtPlace",
    "ToolSupport",
    "hanzi_translation",
    "last_result",
    "proofreading_changes",
    "pseudo_revision",
    "pseudo_translation",
]
