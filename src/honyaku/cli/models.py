"""Options that choose the model a command talks to."""

from __future__ import annotations

from typing import Annotated

import typer

from honyaku.llm.models import DEMO_MODEL, PROVIDER_KINDS, ToolProtocol

Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        envvar="HONYAKU_MODEL",
        help=f"Model name as the server knows it; {DEMO_MODEL!r} runs the built-in demo model.",
        show_default=False,
    ),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="The server's endpoint, e.g. http://localhost:11434/v1 for Ollama. Default: "
        "$OPENAI_BASE_URL for OpenAI-compatible servers, else the API's own.",
        show_default=False,
    ),
]
ApiKeyEnv = Annotated[
    str | None,
    typer.Option(
        "--api-key-env",
        help="Environment variable that holds the API key. Default: OPENAI_API_KEY, or "
        "GEMINI_API_KEY (else GOOGLE_API_KEY) for Gemini.",
        show_default=False,
    ),
]
Provider = Annotated[
    str | None,
    typer.Option(
        "--provider",
        help="The model's API: "
        + "; ".join(f"{kind.name} ({kind.summary})" for kind in PROVIDER_KINDS.values())
        + ". Default: gemini for a gemini-… model without --base-url, else openai.",
        show_default=False,
    ),
]
Protocol = Annotated[
    ToolProtocol,
    typer.Option(
        "--protocol",
        help="How the model calls tools: native function calling, the XML protocol for models "
        "without it, or auto (ask the model once and remember).",
    ),
]
Header = Annotated[
    list[str] | None,
    typer.Option(
        "--header",
        help="Extra HTTP header for an OpenAI-compatible server, 'Name: value'; repeatable.",
        show_default=False,
    ),
]
ReplayReasoning = Annotated[
    bool,
    typer.Option(
        "--replay-reasoning",
        help="Send the model's reasoning back with its replies, for servers that require it "
        "(DeepSeek's thinking mode with tools, Kimi thinking models). Off by default: other "
        "servers do not want it, and it costs tokens.",
    ),
]
