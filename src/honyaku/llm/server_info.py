"""What a model server says about itself: which server it is, the model it has loaded, and
how many tokens that model's context holds.

Local servers say it, each its own way, and a request longer than their window fails (or,
on Ollama, is cut without a word), so honyaku asks before it plans a job:

- llama.cpp: ``GET /props``, ``default_generation_settings.n_ctx`` (one slot's context) and
  ``model_path``;
- Ollama: ``GET /api/ps``, the loaded model's ``context_length``; a model not loaded yet
  gets the ``num_ctx`` of its parameters (``POST /api/show``), else Ollama's default context,
  within the context it was trained for;
- vLLM and others: the model's ``max_model_len`` (or ``context_length``) in ``GET /v1/models``.

Hosted APIs answer none of these: nothing is learned and nothing is lost, and a request that
does not fit says so in its error (``http_errors.context_overflow``). Each question is one
quick request; one that fails, times out or answers something else is passed over.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx2

ASK_TIMEOUT_S = 3.0
OLLAMA_DEFAULT_CONTEXT = 4096
"""What Ollama gives a model whose context no setting names (since 0.6; 2048 before, which
only a model loaded since would show in ``/api/ps``)."""
LLAMA_CPP, OLLAMA, OPENAI_COMPATIBLE = "llama.cpp", "Ollama", "OpenAI-compatible"


@dataclass(frozen=True, slots=True)
class ServerInfo:
    server: str | None = None
    """Which server answered: llama.cpp, Ollama, or another OpenAI-compatible one."""
    context_window: int | None = None
    """Tokens the model's context holds: prompt and reply together."""
    loaded_model: str | None = None
    """The model the server has loaded, as it names it."""


async def ask_server(
    base_url: str, model: str, *, headers: Mapping[str, str] | None = None
) -> ServerInfo:
    """What the server at ``base_url`` (an OpenAI-compatible ``…/v1``) says about ``model``."""
    root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
    async with httpx2.AsyncClient(timeout=ASK_TIMEOUT_S, headers=dict(headers or {})) as http:
        for ask in (_llama_cpp, _ollama, _models_list):
            with contextlib.suppress(httpx2.HTTPError, ValueError, TypeError, asyncio.TimeoutError):
                if (found := await ask(http, root, base_url.rstrip("/"), model)) is not None:
                    return found
    return ServerInfo()


async def _llama_cpp(http: Any, root: str, _base: str, _model: str) -> ServerInfo | None:
    props = await _json(http.get(f"{root}/props"))
    if not isinstance(props, dict) or "default_generation_settings" not in props:
        return None
    settings = props["default_generation_settings"] or {}
    window = _positive(settings.get("n_ctx")) or _positive(props.get("n_ctx"))
    path = props.get("model_path")
    return ServerInfo(LLAMA_CPP, window, path.rsplit("/", 1)[-1] if isinstance(path, str) else None)


async def _ollama(http: Any, root: str, _base: str, model: str) -> ServerInfo | None:
    running = await _json(http.get(f"{root}/api/ps"))
    if not isinstance(running, dict) or not isinstance(running.get("models"), list):
        return None
    for loaded in running["models"]:
        named = isinstance(loaded, dict) and model in (loaded.get("name"), loaded.get("model"))
        if named and (window := _positive(loaded.get("context_length"))):
            return ServerInfo(OLLAMA, window, model)
    shown = await _json(http.post(f"{root}/api/show", json={"model": model}))
    if not isinstance(shown, dict):
        return ServerInfo(OLLAMA)
    found = re.search(r"^num_ctx\s+(\d+)", str(shown.get("parameters") or ""), re.MULTILINE)
    trained = next(
        (
            _positive(value)
            for key, value in (shown.get("model_info") or {}).items()
            if key.endswith(".context_length")
        ),
        None,
    )
    window = (
        int(found[1]) if found else min(OLLAMA_DEFAULT_CONTEXT, trained or OLLAMA_DEFAULT_CONTEXT)
    )
    return ServerInfo(OLLAMA, window, None)


async def _models_list(http: Any, _root: str, base: str, model: str) -> ServerInfo | None:
    listed = await _json(http.get(f"{base}/models"))
    entries = listed.get("data") if isinstance(listed, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get("id") == model:
            window = next(
                (
                    found
                    for key in ("max_model_len", "context_length", "context_window")
                    if (found := _positive(entry.get(key)))
                ),
                None,
            )
            return ServerInfo(OPENAI_COMPATIBLE, window, model) if window else None
    return None


async def _json(response: Any) -> Any:
    answered = await response
    return answered.json() if answered.status_code == 200 else None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
