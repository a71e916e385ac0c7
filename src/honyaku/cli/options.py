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


def open_library(home: Path | None) -> Library:
    return Library(Database.open(home))


def parse_chapter_numbers(spec: str | None, count: int) -> list[int] | None:
    """``"1-3,7"`` → ``[1, 2, 3, 7]``; ``None`` means every chapter."""
    if spec is None:
        return None
    numbers: set[int] = set()
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            raise typer.BadParameter(
                f"{part!r} is not a chapter number or range like 1-3"
            ) from None
        if low > high:
            raise typer.BadParameter(f"chapters {part!r} are reversed; write {high}-{low}")
        if not 1 <= low <= high <= count:
            raise typer.BadParameter(f"chapters {part!r} are outside 1-{count}")
        numbers.update(range(low, high + 1))
    return sorted(numbers)
