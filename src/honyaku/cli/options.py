"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from honyaku.store import Database, Library

Home = Annotated[
    Path | None,
    typer.Option(
        "--home",
        help="Folder holding honyaku's database. Default: $HONYAKU_HOME, else the user data dir.",
        show_default=False,
    ),
]
BookRef = Annotated[str, typer.Argument(help="Book id (or a unique prefix).")]


def open_library(home: Path | None) -> Library:
    return Library(Database.open(home))
