"""Options shared by several commands, and the one way a command reaches the library."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from honyaku.application import Honyaku

T = TypeVar("T")

Home = Annotated[
    Path | None,
    typer.Option(
        "--home",
        help="Folder holding honyaku's database. Default: $HONYAKU_HOME, else the user data dir.",
        show_default=False,
    ),
]
BookRef = Annotated[str, typer.Argument(help="Book id (or a unique prefix).")]


def open_honyaku(home: Path | None) -> Honyaku:
    return Honyaku.open(home)


def run(work: Coroutine[Any, Any, T]) -> T:
    """Run one use case (a coroutine of the application) to its end."""
    return asyncio.run(work)
