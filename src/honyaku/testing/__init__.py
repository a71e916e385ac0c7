"""Stand-ins for real model servers, for tests, the demo and the benchmarks."""

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
from honyaku.testing.fake_translator import (
    DRAFT_MARK,
    FakeCall,
    FakeTranslator,
    Mistake,
    proofreading_changes,
    pseudo_revision,
    pseudo_translation,
)

__all__ = [
    "DRAFT_MARK",
    "MODEL_NAME",
    "FakeCall",
    "FakeGeminiServer",
    "FakeLLMServer",
    "FakeTranslator",
    "Fault",
    "FaultKind",
    "Mistake",
    "Thinking",
    "ThoughtPlace",
    "ToolSupport",
    "proofreading_changes",
    "pseudo_revision",
    "pseudo_translation",
]
