"""Which model a job talks to and how it calls tools, as a person chooses them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit, urlunsplit

from honyaku.errors import ConfigError

DEMO_MODEL = "demo"


class ModelApi(StrEnum):
    OPENAI = "openai"
    """Chat Completions: OpenAI, DeepSeek, Ollama, vLLM, llama.cpp, LM Studio…"""
    GEMINI = "gemini"
    """Google's own Gemini API."""


class ToolProtocol(StrEnum):
    NATIVE = "native"
    XML = "xml"
    AUTO = "auto"


DEFAULT_URLS = {
    ModelApi.OPENAI: "https://api.openai.com/v1",
    ModelApi.GEMINI: "https://generativelanguage.googleapis.com",
}
DEFAULT_KEY_VARIABLES = {
    ModelApi.OPENAI: ("OPENAI_API_KEY",),
    ModelApi.GEMINI: ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}


@dataclass(frozen=True, slots=True)
class ModelChoice:
    model: str | None
    base_url: str | None = None
    api_key_env: str | None = None
    """The variable holding the key; by default the API's usual one."""
    protocol: ToolProtocol = ToolProtocol.AUTO
    api: ModelApi | None = None
    """By default Gemini for a ``gemini-…`` model without a base URL, else Chat Completions."""
    headers: tuple[str, ...] = ()
    """Extra HTTP headers as ``Name: value``, for gateways; never printed."""

    @property
    def header_map(self) -> dict[str, str]:
        headers = {}
        for n, header in enumerate(self.headers, start=1):
            name, colon, value = header.partition(":")
            if not colon or not name.strip():
                # Never echo it: a header is where secrets go.
                raise ConfigError(f"--header number {n} must look like 'Name: value'")
            headers[name.strip()] = value.strip()
        return headers

    @property
    def is_demo(self) -> bool:
        return self.model == DEMO_MODEL

    @property
    def resolved_api(self) -> ModelApi:
        if self.api is not None:
            return self.api
        gemini = (self.model or "").startswith("gemini") and self.base_url is None
        return ModelApi.GEMINI if gemini else ModelApi.OPENAI

    @property
    def endpoint(self) -> str | None:
        """The base URL requests go to; ``None`` is the API's own.

        ``$OPENAI_BASE_URL`` stands in for ``--base-url`` with Chat Completions only.
        """
        if self.base_url:
            return self.base_url
        if self.resolved_api is ModelApi.OPENAI:
            return os.environ.get("OPENAI_BASE_URL") or None
        return None

    @property
    def key_variable(self) -> str:
        if self.api_key_env:
            return self.api_key_env
        candidates = DEFAULT_KEY_VARIABLES[self.resolved_api]
        return next((name for name in candidates if os.environ.get(name)), candidates[0])

    @property
    def api_key(self) -> str | None:
        return os.environ.get(self.key_variable)

    def describe(self) -> str:
        """Where requests go; never the key itself."""
        if self.is_demo:
            return "the built-in demo model (it marks each paragraph 〈译〉 instead of translating)"
        key = f"key from ${self.key_variable}" if self.api_key else "no key"
        url = _without_secrets(self.endpoint or DEFAULT_URLS[self.resolved_api])
        return f"{self.model} at {url} ({key})"


def _without_secrets(url: str) -> str:
    """A URL fit to print: no ``user:password@`` and no query, where keys sometimes ride."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
