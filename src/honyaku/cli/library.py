"""Commands for the library: import, books, show, export, settings."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from honyaku.agent.questions import QUESTION_TOOLS
from honyaku.cli.actions import NOTABLE_ACTIONS, print_actions
from honyaku.cli.console import out
from honyaku.cli.options import Home, open_library
from honyaku.domain.languages import guess_language, normalize_language
from honyaku.errors import ConfigError
from honyaku.formats import ExportFormat, read_book, write_book
from honyaku.jobs.tools import TASK_TOOLS
from honyaku.store import Job, JobStore


def import_(
    path: Annotated[Path, typer.Argument(help="A TXT, Aozora Bunko text or XHTML, or EPUB file.")],
    title: Annotated[str | None, typer.Option(help="Title to use instead of the file's.")] = None,
    source_lang: Annotated[
        str | None, typer.Option(help="Language of the book. Default: guessed from the text.")
    ] = None,
    target_lang: Annotated[str, typer.Option(help="Language to translate into.")] = "zh-CN",
    chapter_pattern: Annotated[
        str | None,
        typer.Option(help="Regular expression for chapter heading lines in TXT files."),
    ] = None,
    encoding: Annotated[
        str | None,
        typer.Option(
            help="Encoding of a TXT or HTML file (cp1252, shift_jis, gb18030 ...). "
            "Default: told from the bytes, or refused when it cannot be told."
        ),
    ] = None,
    home: Home = None,
) -> None:
    """Import a book. Prints the new book id alone on the last line."""
    draft = read_book(path, chapter_pattern=chapter_pattern, encoding=encoding)
    library = open_library(home)
    text = "".join(p for c in draft.chapters for p in c.paragraphs)
    source = normalize_language(source_lang or draft.language or guess_language(text) or "en")
    target = normalize_language(target_lang)
    book_id = library.add_book(draft, source_lang=source, target_lang=target, title=title)
    paragraphs = sum(len(c.paragraphs) for c in draft.chapters)
    out.print(
        f"Imported [bold]{escape(title or draft.title)}[/]: {len(draft.chapters)} chapters, "
        f"{paragraphs} paragraphs ({source} → {target})"
    )
    print(book_id)


def books(home: Home = None) -> None:
    """List the books in the library."""
    summaries = open_library(home).list_books()
    if not summaries:
        out.print("No books yet. Import one with [bold]honyaku import PATH[/].")
        return
    table = Table("id", "title", "languages", "chapters", "translated")
    for book in summaries:
        table.add_row(
            book.id,
            escape(book.title),
            f"{book.source_lang} → {book.target_lang}",
            str(book.chapters),
            _ratio(book.translated, book.work_paragraphs),
        )
    out.print(table)


def show(
    book: Annotated[str, typer.Argument(help="Book id (or a unique prefix).")],
    actions: Annotated[
        bool,
        typer.Option(
            "--actions",
            help="List what happened in the book's jobs instead: questions and answers, "
            "refused calls, nudges, retries, failures.",
        ),
    ] = False,
    home: Home = None,
) -> None:
    """Show a book's chapters with paragraph counts and translation progress."""
    library = open_library(home)
    book_id = library.resolve(book)
    if actions:
        print_actions(out, JobStore(library.database).actions(book_id, kinds=NOTABLE_ACTIONS))
        return
    meta = library.book(book_id)
    out.print(f"[bold]{escape(meta.title)}[/] {escape(meta.author or '')}  [dim]{meta.id}[/]")
    out.print(f"{meta.source_lang} → {meta.target_lang}")
    table = Table("#", "chapter", "id", "paragraphs", "translated")
    for chapter in library.progress(book_id):
        title = escape(chapter.title)
        if chapter.translated_title:
            title += f" [dim]/ {escape(chapter.translated_title)}[/]"
        table.add_row(
            str(chapter.number),
            title,
            chapter.id,
            str(chapter.paragraphs),
            _ratio(chapter.translated, chapter.work_paragraphs),
        )
    out.print(table)
    _print_jobs(JobStore(library.database).list(book_id))


def _print_jobs(jobs: list[Job]) -> None:
    if not jobs:
        return
    table = Table("job", "kind", "model", "status", "requests", "in / out")
    for job in jobs:
        cost = job.cost
        retries = f" +{cost.retries} retries" if cost.retries else ""
        table.add_row(
            job.id,
            job.kind.value,
            f"{escape(job.model)} ({job.protocol})",
            job.status,
            f"{cost.requests}{retries}",
            f"{_amount(cost.input_tokens, cost.input_chars)} / "
            f"{_amount(cost.output_tokens, cost.output_chars)}",
        )
    out.print(table)


def _amount(tokens: int, chars: int) -> str:
    """Tokens where the server reported them, characters otherwise."""
    return f"{tokens} tok" if tokens else f"{chars} chars"


def export(
    book: Annotated[str, typer.Argument(help="Book id (or a unique prefix).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="Output format.")] = (
        ExportFormat.EPUB
    ),
    bilingual: Annotated[bool, typer.Option(help="Show source and translation together.")] = False,
    home: Home = None,
) -> None:
    """Export a book with its selected translations (source text where none exists)."""
    library = open_library(home)
    write_book(library.get_book(library.resolve(book)), output, fmt, bilingual=bilingual)
    out.print(f"Wrote {output}")


class Switch(StrEnum):
    ON = "on"
    OFF = "off"


def settings(
    book: Annotated[str, typer.Argument(help="Book id (or a unique prefix).")],
    chunk_chars: Annotated[
        int | None, typer.Option(help="Source characters per chunk sent to the model.")
    ] = None,
    skip_ask_user: Annotated[
        Switch | None,
        typer.Option(help="on: the model may not ask you questions (ask_user) about this book."),
    ] = None,
    approve_tools: Annotated[
        str | None,
        typer.Option(help="Comma-separated tools whose every call you approve first; '' clears."),
    ] = None,
    always_allow: Annotated[
        str | None,
        typer.Option(help="Comma-separated tools never to ask approval for; '' clears."),
    ] = None,
    home: Home = None,
) -> None:
    """Print a book's settings, changing those given first."""
    library = open_library(home)
    book_id = library.resolve(book)
    changes: dict[str, object] = {}
    if chunk_chars is not None:
        changes["chunk_chars"] = chunk_chars
    if skip_ask_user is not None:
        changes["skip_ask_user"] = skip_ask_user is Switch.ON
    if approve_tools is not None:
        changes["approve_tools"] = _tool_names(approve_tools)
    if always_allow is not None:
        changes["always_allow"] = _tool_names(always_allow)
    current = library.update_settings(book_id, **changes) if changes else library.settings(book_id)
    for name, value in current.model_dump().items():
        out.print(f"{name} = {value}")


def _tool_names(listed: str) -> list[str]:
    names = [name.strip() for name in listed.split(",") if name.strip()]
    known = [t.name for t in TASK_TOOLS + QUESTION_TOOLS]
    if unknown := [name for name in names if name not in known]:
        raise ConfigError(f"unknown tool {', '.join(unknown)}; tools are: {', '.join(known)}")
    return names


def _ratio(done: int, total: int) -> str:
    percent = 100 * done // total if total else 100
    return f"{done}/{total} ({percent}%)"
