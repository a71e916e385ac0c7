"""A new edition's figures in the terminal: what ``import --update`` changed or would change."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from honyaku.application import BookHistory, UpdatedBook
from honyaku.domain.edition import Tally


def print_edition(console: Console, updated: UpdatedBook) -> None:
    summary = updated.summary
    title = escape(updated.title)
    if updated.edition is None:
        console.print(f"Dry run: nothing written. A new edition of [bold]{title}[/] would have")
    else:
        console.print(f"Edition {updated.edition} of [bold]{title}[/]:")
    moved = f" ({summary.moved_chapters} moved)" if summary.moved_chapters else ""
    console.print(f"  chapters:   {tally_text(summary.chapters)}{moved}")
    console.print(f"  paragraphs: {tally_text(summary.paragraphs)}")
    to_do = summary.paragraphs.new + summary.paragraphs.changed
    if updated.edition is not None and to_do:
        console.print(
            f"`honyaku translate {updated.id}` translates the {to_do} new or changed "
            "paragraph(s) and no others."
        )


def tally_text(tally: Tally) -> str:
    return (
        f"{tally.unchanged} unchanged, {tally.changed} changed, {tally.new} new, {tally.gone} gone"
    )


def print_history(console: Console, history: BookHistory) -> None:
    """The latest edition, for a book that has had more than one."""
    if len(history.editions) < 2:
        return
    latest = history.editions[-1]
    name = f" from {escape(latest.name)}" if latest.name else ""
    when = latest.imported_at.strftime("%Y-%m-%d %H:%M")
    kept = history.gone_paragraphs
    console.print(
        f"edition {latest.number}{name}, {when}; "
        f"{kept} paragraph(s) of earlier editions kept in the history"
    )
