"""``honyaku memory …``: the translation memory of a book's series: what it holds, what it
recalls for a book's paragraphs, exact matches written from it, references imported."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from honyaku.cli.console import out
from honyaku.cli.default_command import runs_by_default
from honyaku.cli.jobs import Chapters, chosen_chapters
from honyaku.cli.options import BookRef, Home, open_honyaku, run
from honyaku.errors import UserError

memory_app = typer.Typer(
    help="The translation memory of a book's series: the translations of the volumes before "
    "it (books attached to the same shared glossary, in the order they were imported) and of "
    "its own earlier chapters, and references imported from other translators. A chunk of a "
    "book in a series is shown, beside its paragraphs, earlier translations of the same or "
    "nearly the same source (a few at most); with `honyaku settings BOOK --write-from-memory "
    "on`, a translation job first writes the paragraphs whose very source the memory holds.",
    no_args_is_help=True,
    rich_markup_mode=None,
    cls=runs_by_default("show"),
)


@memory_app.command()
def show(book: BookRef, chapters: Chapters = None, home: Home = None) -> None:
    """What the book's memory holds, volume by volume; with --chapters, each paragraph of
    those chapters it recalls a translation for, and how alike their sources are."""
    honyaku = open_honyaku(home)
    book_id, numbers = chosen_chapters(honyaku, book, chapters)
    report = run(honyaku.memory.report(book_id))
    summary = report.summary
    for number, volume in enumerate(summary.books, start=1):
        mark = ", this book" if volume == book_id else ""
        out.print(
            f"{number}. {escape(summary.titles.get(volume, ''))} ({volume}{mark}): "
            f"{summary.remembered.get(volume, 0)} paragraph(s) remembered, "
            f"{summary.references.get(volume, 0)} reference(s) imported"
        )
    state = "on" if report.write_from_memory else "off"
    out.print(f"written from memory: {report.written} paragraph(s); write-from-memory is {state}")
    if chapters is None:
        return
    matches = run(honyaku.memory.matches(book_id, numbers))
    if not matches:
        out.print("The memory recalls nothing for these chapters.")
        return
    for match in matches:
        recall = match.recall
        item = recall.remembered
        where = "this book" if item.book_id == book_id else f"《{match.title}》"
        imported = f", {item.reference}" if item.reference else ""
        alike = "the same as" if recall.exact else f"{recall.similarity:.0%} like"
        out.print(
            f"chapter {match.chapter} [{match.paragraph.index + 1}] {match.paragraph.id}: "
            f"{alike} {escape(where)} chapter {item.chapter}{escape(imported)} → "
            f"{escape(item.translation)}"
        )


@memory_app.command()
def write(book: BookRef, chapters: Chapters = None, home: Home = None) -> None:
    """Write, into each paragraph without a translation, what the memory holds of its very
    source (a version by 'memory'); a translation is never overwritten."""
    honyaku = open_honyaku(home)
    book_id, numbers = chosen_chapters(honyaku, book, chapters)
    written = run(honyaku.memory.write_exact(book_id, numbers))
    out.print(f"Wrote {written} paragraph(s) from memory")


@memory_app.command("import")
def import_(
    book: BookRef,
    path: Annotated[
        Path,
        typer.Argument(
            help="Another translator's translation of the book: UTF-8 text, one paragraph a "
            "line in order, one for each paragraph of the chapters (blank lines skipped), as "
            "`honyaku trial --reference` takes it."
        ),
    ],
    chapters: Chapters = None,
    home: Home = None,
) -> None:
    """Import another translator's translation of a book (an earlier volume) into the
    memory: shown to models as references for the later volumes, never made the book's own
    versions. Importing again replaces what was imported for the same paragraphs."""
    honyaku = open_honyaku(home)
    book_id, numbers = chosen_chapters(honyaku, book, chapters)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise UserError("{path}: not UTF-8 text", path=str(path)) from exc
    except OSError as exc:
        raise UserError(
            "cannot read {path}: {reason}", path=str(path), reason=exc.strerror
        ) from exc
    imported = run(
        honyaku.memory.import_reference(book_id, lines, origin=path.name, chapters=numbers)
    )
    out.print(f"Imported {imported} reference(s) from {escape(path.name)}")
