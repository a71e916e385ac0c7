"""Choosing the model a command talks to: the options, the models saved under a name
(``honyaku models add|list|show|remove``), and what a model's server says of it (``check``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.markup import escape
from rich.table import Table

from honyaku.application import (
    DEMO_MODEL,
    PROVIDER_KINDS,
    Honyaku,
    ModelChoice,
    ModelOptions,
    ModelStatus,
    ProfilePrices,
    ToolProtocol,
)
from honyaku.cli.console import out
from honyaku.cli.options import Home, open_honyaku, run
from honyaku.domain.model_profile import Endpoint, ModelProfile
from honyaku.errors import ConfigError

Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        envvar="HONYAKU_MODEL",
        help="A saved model profile (see `honyaku models`), or a model's name as its server "
        f"knows it; {DEMO_MODEL!r} runs the built-in demo model.",
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
        help="Environment variable that holds the API key, sent to the server this command "
        "names. Default: the provider's usual variable (OPENAI_API_KEY; GEMINI_API_KEY, else "
        "GOOGLE_API_KEY, for Gemini; ANTHROPIC_API_KEY for Anthropic), sent only to the "
        "provider's own server (or $OPENAI_BASE_URL).",
        show_default=False,
    ),
]
Provider = Annotated[
    str | None,
    typer.Option(
        "--provider",
        help="The model's API: "
        + "; ".join(f"{kind.name} ({kind.summary})" for kind in PROVIDER_KINDS.values())
        + ". Default: gemini for a gemini-… model and anthropic for a claude-… model without "
        "--base-url, else openai.",
        show_default=False,
    ),
]
Protocol = Annotated[
    ToolProtocol | None,
    typer.Option(
        "--protocol",
        help="How the model calls tools: native function calling, the XML protocol for models "
        "without it, or auto (ask the model once and remember). Default: the profile's, else "
        "auto.",
        show_default=False,
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


Fallback = Annotated[
    str | None,
    typer.Option(
        "--fallback",
        help="Saved model profiles, OTHER[,MORE], that take over in turn the parts the model "
        "could not do (refused by its provider's filter, never finished), once splitting them "
        "smaller no longer helps.",
        metavar="OTHER[,MORE]",
        show_default=False,
    ),
]


def fallback_names(fallback: str | None) -> tuple[str, ...]:
    """``--fallback a,b`` as the names it gives."""
    return tuple(name.strip() for name in (fallback or "").split(",") if name.strip())


MODEL_OPTIONS = {
    "model": (Model, None),
    "base_url": (BaseUrl, None),
    "api_key_env": (ApiKeyEnv, None),
    "provider": (Provider, None),
    "protocol": (Protocol, None),
    "header": (Header, None),
    "replay_reasoning": (ReplayReasoning, False),
    "fallback": (Fallback, None),
}
"""The options every command that runs a model takes, declared here once."""


def with_model_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command``, which takes an ``options: ModelOptions``, with the model options as its
    own: typer reads them from its signature, and the command gets them as one value."""
    own = inspect.signature(command, eval_str=True)
    parameters = [p for p in own.parameters.values() if p.name != "options"]
    keyword = inspect.Parameter.KEYWORD_ONLY
    added = [
        inspect.Parameter(name, keyword, default=default, annotation=annotation)
        for name, (annotation, default) in MODEL_OPTIONS.items()
    ]

    def with_options(*args: Any, **values: Any) -> None:
        picked = {name: values.pop(name) for name in MODEL_OPTIONS}
        command(*args, options=model_options(**picked), **values)

    with_options.__name__, with_options.__doc__ = command.__name__, command.__doc__
    signature = own.replace(parameters=[*parameters, *added])
    with_options.__signature__ = signature  # type: ignore[attr-defined]
    with_options.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    return with_options


def model_options(
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    provider: str | None = None,
    protocol: ToolProtocol | None = None,
    header: list[str] | None = None,
    replay_reasoning: bool = False,
    fallback: str | None = None,
) -> ModelOptions:
    """The options as the terminal gives them."""
    return ModelOptions(
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        protocol=protocol,
        provider=provider,
        headers=tuple(header or ()),
        replay_reasoning=replay_reasoning,
        fallbacks=fallback_names(fallback) if fallback is not None else None,
    )


def chosen_model(
    honyaku: Honyaku, options: ModelOptions, *, book: str | None = None
) -> ModelChoice:
    """The model the options name (``Models.choose``): with no model named, ``book``'s."""
    return run(honyaku.models.choose(options, book=book))


models_app = typer.Typer(
    help="Models saved under a name: their server, protocol, the name of their key (kept "
    "by honyaku keys set, or an environment variable), never the key; and what they cost, "
    "as you typed it or, for a model genai-prices knows, as its list says.",
    no_args_is_help=True,
)


@models_app.command("add")
def add_model(
    name: Annotated[str, typer.Argument(help="The profile's name, e.g. deepseek.")],
    model: Annotated[str, typer.Option("--model", help="The model's name on its server.")],
    base_url: BaseUrl = None,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help="The name of the model's key, e.g. DEEPSEEK_API_KEY: the environment "
            "variable of that name if it is set, else the key kept under that name by "
            "honyaku keys set (on each machine that runs the model's jobs). Only the name "
            "is saved, and the key is bound to this profile's servers: it goes to no other.",
            metavar="KEY_NAME",
            show_default=False,
        ),
    ] = None,
    api_key_env: ApiKeyEnv = None,
    endpoint: Annotated[
        list[str] | None,
        typer.Option(
            "--endpoint",
            help="Another place the model is served, URL or URL,KEY_VAR (,KEY_VAR: another "
            "key at --base-url); repeatable. Requests spread over --base-url and these; one "
            "that fails rests a while.",
            show_default=False,
        ),
    ] = None,
    provider: Provider = None,
    protocol: Protocol = None,
    replay_reasoning: ReplayReasoning = False,
    input_price: Annotated[
        float | None,
        typer.Option(
            help="What a million input tokens cost you, in any currency. With "
            "--output-price, jobs show their cost and take --max-cost. Default: for a model "
            "genai-prices knows at its server, the prices in its list (US dollars), which "
            "typed prices override.",
            show_default=False,
        ),
    ] = None,
    cached_input_price: Annotated[
        float | None,
        typer.Option(
            help="What a million input tokens served from the provider's prompt cache cost. "
            "Default: the input price.",
            show_default=False,
        ),
    ] = None,
    output_price: Annotated[
        float | None,
        typer.Option(help="What a million output tokens cost you.", show_default=False),
    ] = None,
    service_tier: Annotated[
        str | None,
        typer.Option(
            help="OpenAI's service_tier, sent with every request: flex is slower and billed "
            "at half the saved prices; priority, auto or default at the saved prices.",
            show_default=False,
        ),
    ] = None,
    rpm: Annotated[
        int | None,
        typer.Option(
            "--rpm",
            min=1,
            help="Requests per minute the provider allows; shared by every "
            "chapter and job of a process.",
            show_default=False,
        ),
    ] = None,
    tpm: Annotated[
        int | None,
        typer.Option(
            "--tpm", min=1, help="Tokens per minute the provider allows.", show_default=False
        ),
    ] = None,
    context_window: Annotated[
        int | None,
        typer.Option(
            min=512,
            help="Tokens the model's context holds, for a server that does not say it "
            "(llama.cpp, Ollama and vLLM do, and a refusal does): chunks are sized to fit.",
            show_default=False,
        ),
    ] = None,
    thinking_tokens: Annotated[
        int | None,
        typer.Option(
            min=1024,
            help="Claude through Anthropic's API: let it think first, in at most this many "
            "tokens (billed as output); its thinking is kept apart and never taken for the answer.",
            show_default=False,
        ),
    ] = None,
    fallback: Fallback = None,
    home: Home = None,
) -> None:
    """Save a model under a name (replacing a profile of the same name), with the name of its
    key, what it costs and how fast it may be asked, if you say. An --api-key-env given wins
    over --key; with neither, the provider's usual variable (OPENAI_API_KEY, GEMINI_API_KEY,
    ANTHROPIC_API_KEY), which goes only to the provider's own server. The key is bound to the
    profile's servers, and the variable named here may be read for them by the workbench and
    workers too."""
    try:
        profile = ModelProfile(
            name=name,
            model=model,
            provider=provider,
            base_url=base_url,
            protocol=(protocol or ToolProtocol.AUTO).value,
            api_key_env=api_key_env,
            key_name=key,
            replay_reasoning=replay_reasoning,
            input_price=input_price,
            cached_input_price=cached_input_price,
            output_price=output_price,
            service_tier=service_tier,
            requests_per_minute=rpm,
            tokens_per_minute=tpm,
            context_window=context_window,
            thinking_tokens=thinking_tokens,
            more_endpoints=tuple(Endpoint.parse(text) for text in endpoint or ()),
            fallbacks=fallback_names(fallback),
        )
    except ValidationError as exc:
        raise ConfigError(_problem(exc)) from None
    honyaku = open_honyaku(home)
    run(honyaku.models.save(profile, declared=True))
    out.print(f"Saved model profile [bold]{escape(name)}[/]: use it with --model {escape(name)}")
    if (prices := run(honyaku.models.prices(profile))) and not prices.typed:
        out.print(f"Prices per million tokens: {_prices(prices)}, {escape(_source(prices))}")


@models_app.command("list")
def list_models(home: Home = None) -> None:
    """List the saved model profiles, with their prices per million tokens: as typed, or
    (marked *) from genai-prices' list for a model it knows."""
    honyaku = open_honyaku(home)
    profiles = run(honyaku.models.all())
    if not profiles:
        out.print("No saved models yet. Save one with [bold]honyaku models add NAME --model M[/].")
        return
    table = Table("name", "model", "server", "protocol", "key", "prices /M", "limits")
    sources = set()
    for profile in profiles:
        endpoints = ModelChoice.from_profile(profile).each_endpoint()
        prices = run(honyaku.models.prices(profile))
        if prices and not prices.typed:
            sources.add(f"{_source(prices)}, in {prices.currency}")
        table.add_row(
            escape(profile.name),
            escape(profile.model),
            escape("\n".join(each.printable_endpoint for each in endpoints)),
            profile.protocol,
            escape("\n".join(_key(each) for each in endpoints)),
            _prices(prices) + ("" if prices is None or prices.typed else " *"),
            _limits(profile),
        )
    out.print(table)
    for source in sorted(sources):
        out.print(f"* prices {escape(source)}; typed prices (--input-price…) override them")


@models_app.command("show")
def show_model(
    name: Annotated[str, typer.Argument(help="The profile's name.")], home: Home = None
) -> None:
    """Show a saved model profile: its server, its key's name (never the key), what it costs
    and where its prices come from, its limits, and the profiles that take over what it could
    not do."""
    honyaku = open_honyaku(home)
    profile = run(honyaku.models.get(name))
    choice = ModelChoice.from_profile(profile)
    prices = run(honyaku.models.prices(profile))
    rows = [
        ("model", profile.model),
        ("API", choice.kind.name),
        ("server", ", ".join(each.printable_endpoint for each in choice.each_endpoint())),
        ("protocol", profile.protocol),
        ("key", ", ".join(_key(each) for each in choice.each_endpoint())),
        ("prices /M", _prices(prices) + (f", {_source(prices)}" if prices else "")),
        ("limits", _limits(profile)),
        ("fallbacks", ", ".join(profile.fallbacks) or "none"),
    ]
    out.print(f"[bold]{escape(profile.name)}[/]")
    for label, value in rows:
        out.print(f"  {label:<10} {escape(value)}")


@models_app.command("check")
def check_model(
    model: Model = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = None,
    provider: Provider = None,
    header: Header = None,
    home: Home = None,
) -> None:
    """Ask a model's server about it, sending it nothing to answer: a local server says its
    context window, the model it has loaded, whether it is busy or the model is missing; and
    the pace honyaku learned of it there."""
    honyaku = open_honyaku(home)
    given = model_options(model, base_url, api_key_env, provider, header=header)
    choice = chosen_model(honyaku, given)
    status = run(honyaku.models.status(choice))
    out.print(escape(choice.describe()))
    for name, value in _status_rows(status):
        out.print(f"  {name:<15} {escape(value)}")
    if status.absence:
        raise ConfigError(status.absence)


def _status_rows(status: ModelStatus) -> list[tuple[str, str]]:
    info, pace = status.info, status.pace
    rows = [("server", info.server or "says nothing of itself (a hosted API, or an old one)")]
    if info.loaded_model or info.served:
        rows.append(("loaded", info.loaded_model or ", ".join(info.served)))
    if info.context_window:
        rows.append(("context window", f"{info.context_window} tokens"))
    if info.busy is not None:
        rows.append(("busy", "yes: every slot is working" if info.busy else "no"))
    if pace is None:
        rows.append(("pace", "not known yet: learned from its first reply"))
    else:
        rows.append(
            (
                "pace",
                f"reads {pace.prompt_tokens_per_s:.0f} prompt tokens/s, writes "
                f"{pace.output_tokens_per_s:.1f} tokens/s ({pace.replies} replies timed)",
            )
        )
    return rows


@models_app.command("remove")
def remove_model(
    name: Annotated[str, typer.Argument(help="The profile's name.")], home: Home = None
) -> None:
    """Forget a saved model profile."""
    run(open_honyaku(home).models.remove(name))
    out.print(f"Removed model profile {escape(name)}")


def _problem(error: ValidationError) -> str:
    """The first problem, after the setting it is about, if it is about one."""
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"])
    return f"{where}: {problem['msg']}" if where else problem["msg"]


def _key(choice: ModelChoice) -> str:
    """The name a choice's key goes by, never the key."""
    if choice.api_key_env:
        return f"${choice.api_key_env}"
    return choice.key_name or "(default)"


def _prices(quoted: ProfilePrices | None) -> str:
    if quoted is None:
        return "-"
    prices = quoted.prices
    cached = "" if prices.cached_input is None else f" (cached {prices.cached_input:g})"
    tier = f", {prices.service_tier}" if prices.service_tier else ""
    currency = f" {quoted.currency}" if quoted.currency else ""
    return f"in {prices.input:g}{cached}, out {prices.output:g}{currency}{tier}"


def _source(quoted: ProfilePrices) -> str:
    return "as typed" if quoted.typed else f"from {quoted.source}"


def _limits(profile: ModelProfile) -> str:
    parts = []
    if profile.requests_per_minute:
        parts.append(f"{profile.requests_per_minute} rpm")
    if profile.tokens_per_minute:
        parts.append(f"{profile.tokens_per_minute} tpm")
    if profile.context_window:
        parts.append(f"{profile.context_window:,}-token context")
    if profile.thinking_tokens:
        parts.append(f"thinks in {profile.thinking_tokens:,} tokens at most")
    return ", ".join(parts) or "-"
