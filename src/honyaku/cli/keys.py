"""``honyaku keys set|list|remove``: API keys kept in this user's key store."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape

from honyaku.application import Keys
from honyaku.cli.console import out
from honyaku.cli.options import run

keys_app = typer.Typer(
    help="API keys for model servers, kept by name in your operating system's keyring (macOS "
    "Keychain, Windows Credential Locker, Secret Service) or, where none is usable (a "
    "headless server, CI), in keys.json in your config folder ($HONYAKU_CONFIG_DIR), which "
    "only you can read. Never in the database, never printed: only their last 4 characters. "
    "A model profile names its key (honyaku models add NAME --model M --key KEY_NAME), and the "
    "key goes only to the servers of the profiles saved with it: one no profile holds goes "
    "nowhere. An environment variable of the same name wins over the store where a terminal "
    "named it. Each machine keeps its own: set the keys a worker needs on the worker's machine.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

KeyName = Annotated[
    str,
    typer.Argument(help="The key's name: letters, digits and _, e.g. DEEPSEEK_API_KEY."),
]


@keys_app.command("set")
def set_key(name: KeyName) -> None:
    """Keep a key under NAME, replacing a key of that name. On a terminal it is asked for
    without being shown; otherwise it is read from standard input (one line, stripped), e.g.
    `pass show deepseek | honyaku keys set DEEPSEEK_API_KEY`. A key is one word of printable
    ASCII; NAME is its name, never the key itself."""
    if sys.stdin.isatty():
        key = typer.prompt(f"Key {name}", hide_input=True, prompt_suffix=" (not shown): ")
    else:
        key = sys.stdin.readline()
    stored = run(Keys().set(name, key))
    out.print(
        f"Kept {escape(stored.name)} ({escape(stored.tail)}) in {escape(stored.where)}: "
        f"use it with honyaku models add … --key {escape(stored.name)}"
    )


@keys_app.command("list")
def list_keys() -> None:
    """List the keys kept: each one's name, where it is kept, and its last 4 characters at
    most."""
    keys = Keys()
    stored = run(keys.all())
    if not stored:
        out.print(
            "No keys kept yet; new ones go to "
            f"{escape(run(keys.where()))}. Keep one with [bold]honyaku keys set NAME[/]."
        )
        return
    width = max(len(key.name) for key in stored)
    for key in stored:
        out.print(f"{escape(key.name):<{width}}  {escape(key.tail):<5}  in {escape(key.where)}")


@keys_app.command("remove")
def remove_key(name: KeyName) -> None:
    """Forget the key called NAME, wherever it is kept."""
    places = run(Keys().remove(name))
    out.print(f"Removed key {escape(name)} from {escape(' and '.join(places))}")
