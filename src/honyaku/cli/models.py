"""Options that choose the model a command talks to."""

from __future__ import annotations

from typing import Annotated

import typer

from honyaku.jobs.connection import DEMO_MODEL, ToolProtocol

Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        envvar="HONYAKU_MODEL",
        help=f"Model name as the server knows it; {DEMO_MODEL!r} runs the built-in fake model.",
        show_default=False,
    ),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        envvar="OPENAI_BASE_URL",
        help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama.",
        show_default=False,
    ),
]
ApiKeyEnv = Annotated[
    str,
    typer.Option("--api-key-env", help="Environment variable that holds the API key."),
]
Protocol = Annotated[
    ToolProtocol,
    typer.Option(
        "--protocol",
        help="How the model calls tools: native function calling, the XML protocol for models "
        "without it, or auto (ask the model once and remember).",
    ),
]
