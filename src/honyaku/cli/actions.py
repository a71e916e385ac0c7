"""A book's job log in the terminal, one line per thing worth a translator's look."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from honyaku.application import RecordedAction
from honyaku.jobs.log_lines import log_lines


def print_actions(console: Console, recorded: list[RecordedAction]) -> None:
    """The model's reasoning dimmed, cut to a line."""
    lines = log_lines(recorded)
    if not lines:
        console.print("Nothing notable yet: no questions, refused calls or failures.")
        return
    for line in lines:
        when = line.entry.created_at.strftime("%Y-%m-%d %H:%M:%S")
        style = "dim italic" if line.is_reasoning else "default"
        console.print(
            f"[dim]{when} {line.entry.job_id} {line.where}[/]  [{style}]{escape(line.text)}[/]"
        )
