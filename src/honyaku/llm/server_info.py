"""What a model server says about itself: which server it is, the model it has loaded, how
many tokens that model's context holds, and whether the model is there to answer at all.

Local servers say it, each its own way, and a request longer than their window fails (or,
on Ollama, is cut without a word), so honyaku asks before it plans a job:

- llama.cpp: ``GET /props``, ``default_generation_settings.n_ctx`` (one slot's context) and
  ``model_path``; ``GET /health`` answers 503 while the model loads; ``GET /slots`` says which
  slots are working (all of them: the server is busy, and a request waits its turn);
- Ollama: ``GET /api/ps``, the loaded model's ``context_length``; a model not loaded yet
  gets the ``num_ctx`` of its parameters (``POST /api/show``), else Ollama's default context,
  within the context it was trained for; a model ``/api/show`` does not know is not there;
- vLLM and others: the model's ``max_model_len`` (or ``context_length``) in ``GET /v1/models``,
  where vLLM also lists every model it serves and refuses any other name.

``ServerInfo.absence`` turns a model that cannot answer into one line that says what to do, so
a job refuses to start rather than retrying a server that will never answer.

Anthropic's API says it too: ``GET /v1/models/{model}`` answers the model's
``max_input_tokens``, or 404 for a name it does not serve (``ask_anthropic``).

Other hosted APIs answer none of these: nothing is learned and nothing is lost, and a request that
does not fit says so in its error (``http_errors.context_overflow``). Each question is one
quick request; one that fails, times out or answers something else is passed over.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import httpx2

from honyaku.domain.addresses import printable_url

ASK_TIMEOUT_S = 3.0
OLLAMA_DEFAULT_CONTEXT = 4096
"""What Ollama gives a model whose context no setting names (since 0.6; 2048 before, which
only a model loaded since would show in ``/api/ps``)."""
LLAMA_CPP, OLLAMA, VLLM, OPENAI_COMPATIBLE = "llama.cpp", "Ollama", "vLLM", "OpenAI-compatible"
ANTHROPIC = "Anthropic"
ANTHROPIC_VERSION = "2023-06-01"
"""The ``anthropic-version`` header every request to Anthropic's API carries."""


@dataclass(frozen=True, slots=True)
class ServerInfo:
    server: str | None = None
    """Which server answered: llama.cpp, Ollama, or another OpenAI-compatible one."""
    context_window: int | None = None
    """Tokens the model's context holds: prompt and reply together."""
    loaded_model: str | None = None
    """The model the server has loaded, as it names it."""
    served: tuple[str, ...] = ()
    """Every model the server has loaded, where it lists them (Ollama, vLLM)."""
    known: bool = True
    """The server can load the model asked for: false for a name Ollama has never pulled."""
    loading: bool = False
    """The server is still loading its model (llama.cpp's ``/health``)."""
    busy: bool | None = None
    """Every slot is working on a request, so a new one waits; ``None`` where not said."""

    def absence(self, base_url: str, model: str) -> str | None:
        """Why ``model`` cannot answer at ``base_url``, in one line; ``None`` if it can."""
        where = f"{self.server} at {printable_url(base_url)}"
        others = ", ".join(self.served) or "none"
        if self.loading:
            return f"{where} is still loading its model: try again once it has"
        if not self.known and self.server == ANTHROPIC:
            return f"{where} has no model {model!r}: is the name right (e.g. claude-sonnet-4-5)?"
        if not self.known:
            return f"{where} has no model {model!r} (loaded: {others}): ollama pull {model}"
        if self.server == VLLM and model not in self.served:
            return f"{where} serves {others}, not {model!r}: pass --model with one of them"
        return None


async def ask_server(
    base_url: str, model: str, *, headers: Mapping[str, str] | None = None
) -> ServerInfo:
    """What the server at ``base_url`` (an OpenAI-compatible ``…/v1``) says about ``model``."""
    root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
    # A client loads its TLS certificates as it is made: off the event loop.
    client = partial(
        httpx2.AsyncClient,
        timeout=ASK_TIMEOUT_S,
        headers=dict(headers or {}),
        follow_redirects=False,  # a redirect could carry the key to another host
    )
    async with await asyncio.to_thread(client) as http:
        for ask in (_llama_cpp, _ollama, _models_list):
            with contextlib.suppress(httpx2.HTTPError, ValueError, TypeError, asyncio.TimeoutError):
                if (found := await ask(http, root, base_url.rstrip("/"), model)) is not None:
                    return found
    return ServerInfo()


async def ask_anthropic(base_url: str, model: str, *, api_key: str | None) -> ServerInfo:
    """What Anthropic's API at ``base_url`` says of ``model``: its context window, or that it
    has no such model; nothing where it does not answer (a refused key is for the request)."""
    headers = {"anthropic-version": ANTHROPIC_VERSION} | ({"x-api-key": api_key} if api_key else {})
    client = partial(
        httpx2.AsyncClient, timeout=ASK_TIMEOUT_S, headers=headers, follow_redirects=False
    )
    async with await asyncio.to_thread(client) as http:
        with contextlib.suppress(httpx2.HTTPError, ValueError, TypeError, asyncio.TimeoutError):
            answered = await http.get(f"{base_url.rstrip('/')}/v1/models/{model}")
            if answered.status_code == 404:
                return ServerInfo(ANTHROPIC, known=False)
            info = answered.json() if answered.status_code == 200 else None
            if isinstance(info, dict) and info.get("id"):
                name = str(info["id"])
                return ServerInfo(ANTHROPIC, _positive(info.get("max_input_tokens")), name, (name,))
    return ServerInfo()


async def _llama_cpp(http: Any, root: str, _base: str, _model: str) -> ServerInfo | None:
    health = await http.get(f"{root}/health")
    if health.status_code == 503 and "loading model" in health.text.lower():
        return ServerInfo(LLAMA_CPP, loading=True)
    props = await _json(http.get(f"{root}/props"))
    if not isinstance(props, dict) or "default_generation_settings" not in props:
        return None
    settings = props["default_generation_settings"] or {}
    window = _positive(settings.get("n_ctx")) or _positive(props.get("n_ctx"))
    path = props.get("model_path")
    name = path.rsplit("/", 1)[-1] if isinstance(path, str) else None
    return ServerInfo(LLAMA_CPP, window, name, busy=await _slots_busy(http, root))


async def _slots_busy(http: Any, root: str) -> bool | None:
    """Every slot processing a request; ``None`` where the server keeps ``/slots`` closed."""
    slots = await _json(http.get(f"{root}/slots"))
    if not isinstance(slots, list) or not slots:
        return None
    # ``is_processing`` since 2024; before, ``state`` 1 was processing.
    return all(
        isinstance(slot, dict) and bool(slot.get("is_processing") or slot.get("state") == 1)
        for slot in slots
    )


async def _ollama(http: Any, root: str, _base: str, model: str) -> ServerInfo | None:
    running = await _json(http.get(f"{root}/api/ps"))
    if not isinstance(running, dict) or not isinstance(running.get("models"), list):
        return None
    loaded = [entry for entry in running["models"] if isinstance(entry, dict)]
    served = tuple(str(entry.get("name") or entry.get("model")) for entry in loaded)
    for entry in loaded:
        named = model in (entry.get("name"), entry.get("model"))
        if named and (window := _positive(entry.get("context_length"))):
            return ServerInfo(OLLAMA, window, model, served)
    answered = await http.post(f"{root}/api/show", json={"model": model})
    if answered.status_code == 404:
        return ServerInfo(OLLAMA, served=served, known=False)
    shown = answered.json() if answered.status_code == 200 else None
    if not isinstance(shown, dict):
        return ServerInfo(OLLAMA, served=served)
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
    return ServerInfo(OLLAMA, window, None, served)


async def _models_list(http: Any, _root: str, base: str, model: str) -> ServerInfo | None:
    listed = await _json(http.get(f"{base}/models"))
    entries = listed.get("data") if isinstance(listed, dict) else None
    entries = (
        [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []
    )
    served = tuple(str(entry.get("id")) for entry in entries)
    # vLLM refuses a name it does not serve; other servers may answer any name.
    server = VLLM if any(entry.get("owned_by") == "vllm" for entry in entries) else None
    for entry in entries:
        if entry.get("id") == model:
            window = next(
                (
                    found
                    for key in ("max_model_len", "context_length", "context_window")
                    if (found := _positive(entry.get(key)))
                ),
                None,
            )
            if window or server:
                return ServerInfo(server or OPENAI_COMPATIBLE, window, model, served)
    return ServerInfo(VLLM, served=served) if server else None


async def _json(response: Any) -> Any:
    answered = await response
    return answered.json() if answered.status_code == 200 else None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
