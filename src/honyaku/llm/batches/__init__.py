"""The Batch APIs of OpenAI, Anthropic and Gemini, below the job engine: half price, answered
within a day, one small interface for the three (``BatchClient``).

batch.py       what every client takes and gives: ``BatchRequest`` (a ``ChatRequest`` and the
               caller's custom id), ``BatchHandle`` and ``BatchStatus`` (plain data, kept as
               JSON), ``BatchResult`` (each line as the ``Response`` a stream folds into)
openai.py      ``/v1/files`` and ``/v1/batches``: JSONL in, output and error files out
anthropic.py   Message Batches: the streamed request's body per line, results as JSONL
gemini.py      batch mode: inline requests keyed by custom id, inline responses

``batch_client`` is the one door: it opens the chosen model's provider's client, or refuses
in one line a provider that has no Batch API (the demo model); an OpenAI-compatible server
without one (vLLM, Ollama, llama.cpp, most gateways) is refused in one line when its
``/files`` answers 404, as the batch is submitted.
"""

from __future__ import annotations

from honyaku.errors import ConfigError
from honyaku.llm.batches.batch import (
    BatchClient,
    BatchCounts,
    BatchHandle,
    BatchLine,
    BatchRequest,
    BatchResult,
    BatchState,
    BatchStatus,
    LineState,
)
from honyaku.llm.models import ModelChoice


def batch_provider(choice: ModelChoice) -> str:
    """The provider whose Batch API ``choice`` goes through (``openai``, ``anthropic``,
    ``gemini``); ``ConfigError`` in one line where it has none."""
    kind = choice.check()
    if kind.name in ("anthropic", "gemini", "openai"):
        return kind.name
    where = f" at {choice.printable_endpoint}" if choice.printable_endpoint else ""
    raise ConfigError(
        f"{choice.model or kind.name}{where} has no Batch API: batch mode needs OpenAI's, "
        "Anthropic's or Gemini's own API; run without it"
    )


def batch_client(choice: ModelChoice) -> BatchClient:
    """The Batch API client of ``choice``'s provider; ``ConfigError`` where it has none."""
    provider = batch_provider(choice)
    model = choice.model or ""
    if provider == "anthropic":
        from honyaku.llm.batches.anthropic import AnthropicBatchClient

        return AnthropicBatchClient(
            model=model,
            api_key=choice.api_key,
            base_url=choice.endpoint,
            headers=choice.header_map,
            thinking_tokens=choice.thinking_tokens,
        )
    if provider == "gemini":
        from honyaku.llm.batches.gemini import GeminiBatchClient

        return GeminiBatchClient(
            model=model, api_key=choice.api_key, base_url=choice.endpoint, headers=choice.header_map
        )
    from honyaku.llm.batches.openai import OpenAIBatchClient

    return OpenAIBatchClient(
        model=model, api_key=choice.api_key, base_url=choice.endpoint, headers=choice.header_map
    )


__all__ = [
    "BatchClient",
    "BatchCounts",
    "BatchHandle",
    "BatchLine",
    "BatchRequest",
    "BatchResult",
    "BatchState",
    "BatchStatus",
    "LineState",
    "batch_client",
    "batch_provider",
]
