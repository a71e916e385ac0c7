"""Stand-ins for real model servers, for tests, the demo and the benchmarks."""

from honyaku.testing.fake_gemini import FakeGeminiServer
from honyaku.testing.fake_llm import MODEL_NAME, FakeLLMServer, Fault, FaultKind, ToolSupport
from honyaku.testing.fake_translator import (
    FakeCall,
    FakeTranslator,
    Mistake,
    proofreading_changes,
    pseudo_revision,
    pseudo_translation,
)
from honyaku.testing.silent_server import Silence, SilentServer

__all__ = [
    "MODEL_NAME",
    "FakeCall",
    "FakeGeminiServer",
    "FakeLLMServer",
    "FakeTranslator",
    "Fault",
    "FaultKind",
    "Mistake",
    "Silence",
    "SilentServer",
    "ToolSupport",
    "proofreading_changes",
    "pseudo_revision",
    "pseudo_translation",
]
