"""A command group that runs one of its commands when given a book instead of a command:
``honyaku cast BOOK`` is ``honyaku cast list BOOK``, as a translator first types it."""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any

from typer.core import TyperGroup


def runs_by_default(command: str) -> type[TyperGroup]:
    """A group class whose ``command`` runs where the first word names no command."""

    class DefaultCommandGroup(TyperGroup):
        # Typed loosely: Typer carries its own copy of Click's Context and Command.
        def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
            if args and not _names_a_command(args[0], list(self.commands)):
                args = [command, *args]
            return super().resolve_command(ctx, args)

    return DefaultCommandGroup


def _names_a_command(word: str, commands: list[str]) -> bool:
    """An option, a command, or a command mistyped (left for the group to say so)."""
    return word.startswith("-") or word in commands or bool(get_close_matches(word, commands))
