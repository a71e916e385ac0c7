"""``honyaku check``: what a book still needs from its translator."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from honyaku.application import Honyaku
from honyaku.cli.console import out
from honyaku.cli.jobs import Chapters, chosen_chapters
from honyaku.cli.options import BookRef, Home, open_honyaku, run
from honyaku.cli.progress import left_line
from honyaku.domain.rating import HIGHEST, LOWEST

PREVIEW_CHARS = 60


def check(
    book: BookRef,
    chapters: Chapters = None,
    below: Annotated[
        int | None,
        typer.Option(
            min=LOWEST + 1,
            max=HIGHEST + 1,
            help="Only list the paragraphs a rating job scored under this (1–5), one a line.",
        ),
    ] = None,
    home: Home = None,
) -> None:
    """List what the book still needs: how much of it is translated, each paragraph and
    chapter title a job left, with why (refused by the provider's filter, a model that could
    not finish…), and how many no job has tried yet;
    then the paragraphs whose translation the quality checks flagged: kana left in a Chinese
    translation, the wrong script, a translation equal to its source, an unusual length,
    brackets or quotation marks lost, a glossary rendering missing; and those whose
    translation is stale, made before a new edition changed the source."""
    honyaku = open_honyaku(home)
    book_id, numbers = chosen_chapters(honyaku, book, chapters)
    if below is not None:
        _list_rated_below(honyaku, book_id, below, numbers)
        return
    leftover = run(honyaku.books.left(book_id, chapters=numbers))
    out.print(f"Translated: {leftover.coverage}.")
    for item in leftover.left:
        if item.why is not None:
            out.print(left_line(item))
    if untried := sum(1 for item in leftover.left if item.why is None):
        out.print(f"{untried} more not tried by any job yet.")
    flagged = run(honyaku.books.flagged(book_id, chapters=numbers))
    if not flagged:
        out.print("No flagged paragraphs.")
        return
    for paragraph in flagged:
        out.print(
            f"[bold]chapter {paragraph.chapter_number} [{paragraph.index + 1}] "
            f"{paragraph.paragraph_id}[/]"
        )
        for warning in paragraph.warnings:
            out.print(f"  [yellow]{warning.code}[/]: {escape(warning.message)}")
        out.print(f"  [dim]source:[/]      {escape(_preview(paragraph.text))}")
        out.print(f"  [dim]translation:[/] {escape(_preview(paragraph.translation))}")
    out.print(f"{len(flagged)} flagged paragraph(s)")


def _list_rated_below(
    honyaku: Honyaku, book_id: str, below: int, chapters: list[int] | None
) -> None:
    rated = run(honyaku.books.rated(book_id, below=below, chapters=chapters))
    for paragraph in rated:
        issues = ",".join(paragraph.issues) or "-"
        out.print(
            f"{paragraph.paragraph_id} chapter {paragraph.chapter_number} "
            f"[{paragraph.position}] score {paragraph.score} {issues}"
            + (f"  {escape(paragraph.comment)}" if paragraph.comment else "")
        )
    out.print(f"{len(rated)} paragraph(s) rated below {below}")


def _preview(text: str) -> str:
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"
