"""The model servers a translator most often starts from, as a model profile's first draft:
where each is served, how honyaku talks to it, what its key is called, and a model to try.

One list for every front end: the workbench's models page offers it, the person picks one,
and the form is filled in, to be changed before it is saved. A preset is only a draft: nothing
here is checked again, and a saved profile never refers back to its preset.

Hosted services take a key, named as their own documentation names its variable (so a key
already exported in the shell is found under the same name). Servers on this machine (Ollama,
LM Studio, vLLM, llama.cpp) take none, at their usual port; their model is whichever the
person loaded, so the one suggested is only an example.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Protocol = Literal["native", "xml", "auto"]


@dataclass(frozen=True, slots=True)
class ModelPreset:
    id: str
    """Short and stable, e.g. ``deepseek``: also the profile name suggested."""
    label: str
    """The service's own name, e.g. ``DeepSeek`` (a name, never translated)."""
    provider: Literal["openai", "gemini", "anthropic"]
    """How honyaku speaks to it: Chat Completions, Google's own Gemini API, or Anthropic's
    Messages API."""
    base_url: str | None
    """``None``: the provider's own server."""
    key_name: str | None
    """The name its key is kept under; ``None``: the server takes no key."""
    models: tuple[str, ...]
    """Models to try, the first suggested."""
    protocol: Protocol = "auto"
    local: bool = False
    """Served on this machine: no key, and nothing to pay."""


MODEL_PRESETS: tuple[ModelPreset, ...] = (
    ModelPreset(
        "openai",
        "OpenAI",
        "openai",
        "https://api.openai.com/v1",
        "OPENAI_API_KEY",
        ("gpt-4.1-mini", "gpt-4.1", "gpt-4o-mini"),
        "native",
    ),
    ModelPreset(
        "deepseek",
        "DeepSeek",
        "openai",
        "https://api.deepseek.com",
        "DEEPSEEK_API_KEY",
        ("deepseek-chat", "deepseek-reasoner"),
        "native",
    ),
    ModelPreset(
        "gemini",
        "Gemini",
        "gemini",
        None,
        "GEMINI_API_KEY",
        ("gemini-2.5-flash", "gemini-2.5-pro"),
        "native",
    ),
    ModelPreset(
        "anthropic",
        "Claude",
        "anthropic",
        None,
        "ANTHROPIC_API_KEY",
        ("claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1"),
        "native",
    ),
    ModelPreset(
        "openrouter",
        "OpenRouter",
        "openai",
        "https://openrouter.ai/api/v1",
        "OPENROUTER_API_KEY",
        ("deepseek/deepseek-chat", "google/gemini-2.5-flash"),
    ),
    ModelPreset(
        "siliconflow",
        "SiliconFlow",
        "openai",
        "https://api.siliconflow.cn/v1",
        "SILICONFLOW_API_KEY",
        ("deepseek-ai/DeepSeek-V3", "Qwen/Qwen2.5-72B-Instruct"),
    ),
    ModelPreset(
        "dashscope",
        "Qwen (DashScope)",
        "openai",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "DASHSCOPE_API_KEY",
        ("qwen-plus", "qwen-max", "qwen-turbo"),
        "native",
    ),
    ModelPreset(
        "ollama",
        "Ollama",
        "openai",
        "http://localhost:11434/v1",
        None,
        ("qwen2.5:7b",),
        local=True,
    ),
    ModelPreset(
        "lm-studio",
        "LM Studio",
        "openai",
        "http://localhost:1234/v1",
        None,
        ("qwen2.5-7b-instruct",),
        local=True,
    ),
    ModelPreset(
        "vllm",
        "vLLM",
        "openai",
        "http://localhost:8000/v1",
        None,
        ("Qwen/Qwen2.5-7B-Instruct",),
        local=True,
    ),
    ModelPreset(
        "llama-cpp",
        "llama.cpp",
        "openai",
        "http://localhost:8080/v1",
        None,
        ("local",),
        local=True,
    ),
)
