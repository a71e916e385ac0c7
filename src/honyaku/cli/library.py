"""Commands for the library: import, books, show, export, settings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from honyaku.cli.console import out
from honyaku.cli.options import Home, open_library
from honyaku.domain.languages import guess_language, normalize_language
from honyaku.formats import ExportFormat, read_book, write_book


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
    home: Home = None,
) -> None:
    """Import a book. Prints the new book id alone on the last line."""
    draft = read_book(path, chapter_pattern=chapter_pattern)
    library = open_library(home)
    source = normalize_language(source_lang or draft.language or guess_language(draft))
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
    book: Annotated[str, typer.Argument(help="Book id (or a unique prefix).")], home: Home = None
) -> None:
    """Show a book's chapters with paragraph counts and translation progress."""
    library = open_library(home)
    book_id = library.resolve(book)
    meta = library.get_book(book_id, chapter_numbers=[])
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


def settings(
    book: Annotated[str, typer.Argument(help="Book id (or a unique prefix).")],
    chunk_chars: Annotated[
        int | None, typer.Option(help="Source characters per chunk sent to the model.")
    ] = None,
    home: Home = None,
) -> None:
    """Print a book's settings, changing those given first."""
    library = open_library(home)
    book_id = library.resolve(book)
    changes = {"chunk_chars": chunk_chars} if chunk_chars is not None else {}
    current = library.update_settings(book_id, **changes) if changes else library.settings(book_id)
    for name, value in current.model_dump().items():
        out.print(f"{name} = {value}")


def _ratio(done: int, total: int) -> str:
    percent = 100 * done // total if total else 100
    return f"{done}/{total} ({percent}%)"
