"""A context window for the fake model server, as local servers keep one.

A request whose prompt is longer than the window is refused, as llama.cpp refuses it
(``exceed_context_size_error`` with ``n_ctx`` and ``n_prompt_tokens``) or as OpenAI does
(``context_length_exceeded``, the window and the count in the message). A reply that would
run past the window is cut where the window ends, with the finish reason ``length``, as
llama.cpp cuts it. The server may say its window before anything is sent, as llama.cpp
does at ``/props``, Ollama at ``/api/ps`` and ``/api/show``, vLLM in ``/v1/models``; or say
nothing, as hosted APIs and an old llama.cpp do.

Its tokens are the server's own count times ``count_factor``: a small local model's
tokenizer and chat template count more than honyaku's estimate does.

With ``fails_past_window``, it is llama-cpp-python's server: ``max_tokens`` ends a reply, but a
reply that runs past the window first fails with a 500 (``llama_decode returned 1``), the
reply lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from starlette.responses import JSONResponse, Response

from honyaku.domain.tokens import TokenCounter

LLAMA_CPP_REFUSAL = (
    "the request exceeds the available context size, try increasing it"  # llama.cpp b6400+
)
LLAMA_CPP_PYTHON_FULL = "llama_decode returned 1"
"""What llama-cpp-python's server answers when a reply fills the context as it is written."""


class Refusal(StrEnum):
    LLAMA_CPP = "llama.cpp"
    OPENAI = "openai"


class Introspection(StrEnum):
    """Where the server says its window."""

    LLAMA_CPP = "llama.cpp"
    OLLAMA = "ollama"
    VLLM = "vllm"


@dataclass(frozen=True, slots=True)
class ContextLimit:
    tokens: int = 8192
    refusal: Refusal = Refusal.LLAMA_CPP
    says: Introspection | None = None
    count_factor: float = 1.0
    fails_past_window: bool = False

    def prompt_tokens(self, counter: TokenCounter, prompt: str) -> int:
        return round(counter.count(prompt) * self.count_factor)

    def refuse(self, prompt_tokens: int) -> Response:
        """The server's answer to a prompt of ``prompt_tokens`` that does not fit."""
        if self.refusal is Refusal.LLAMA_CPP:
            error: dict[str, Any] = {
                "code": 400,
                "message": LLAMA_CPP_REFUSAL,
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt_tokens,
                "n_ctx": self.tokens,
            }
        else:
            error = {
                "message": f"This model's maximum context length is {self.tokens} tokens. "
                f"However, your messages resulted in {prompt_tokens} tokens. Please reduce "
                "the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        return JSONResponse({"error": error}, 400)

    def room(self, prompt_tokens: int, max_tokens: int | None) -> tuple[int, bool]:
        """The tokens a reply may take, and whether one that runs past them fails (the window
        of llama-cpp-python, where ``max_tokens`` did not end it first) rather than being cut."""
        room = self.tokens - prompt_tokens
        if self.fails_past_window and max_tokens is not None and max_tokens <= room:
            return max_tokens, False
        return room, self.fails_past_window

    def fail_full(self) -> Response:
        """llama-cpp-python's answer to a reply that filled the context."""
        error = {"message": LLAMA_CPP_PYTHON_FULL, "type": "internal_server_error"}
        return JSONResponse({"error": {**error, "param": None, "code": None}}, 500)

    def cut(
        self, chunks: list[dict[str, Any]], counter: TokenCounter, room: int
    ) -> tuple[list[dict[str, Any]], str] | None:
        """The stream chunks of a reply cut where ``room`` tokens end, its finish reason
        ``length``, and the text it wrote up to there; ``None`` if the reply fits."""
        written, used, kept = "", 0.0, list[dict[str, Any]]()
        for chunk in chunks[:-2]:
            piece = "".join(_texts(chunk))
            used += counter.count(piece) * self.count_factor
            if used > room:
                finish = {**chunks[-2]}
                finish["choices"] = [{"index": 0, "delta": {}, "finish_reason": "length"}]
                return [*kept, finish, chunks[-1]], written
            written += piece
            kept.append(chunk)
        return None

    def props(self, model: str) -> dict[str, Any]:
        """llama.cpp's ``/props``."""
        return {
            "default_generation_settings": {"n_ctx": self.tokens, "params": {}},
            "total_slots": 1,
            "model_path": f"/models/{model}.gguf",
        }

    def ollama_running(self, model: str) -> dict[str, Any]:
        """Ollama's ``/api/ps``."""
        return {"models": [{"name": model, "model": model, "context_length": self.tokens}]}


def _texts(chunk: dict[str, Any]) -> list[str]:
    texts = []
    for choice in chunk.get("choices", ()):
        delta = choice.get("delta", {})
        texts += [delta.get("content") or "", delta.get("reasoning_content") or ""]
        for call in delta.get("tool_calls") or ():
            texts.append(call.get("function", {}).get("arguments") or "")
    return texts
