"""``honyaku glossary …``: a book's terms and characters, shared series glossaries, and
extraction by a model; and ``honyaku check``: the paragraphs the quality checks flagged."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from honyaku.application import ModelOptions
from honyaku.cli.console import EXIT_FAILURE, out
from honyaku.cli.jobs import Chapters, Concurrency, Queue, chosen_chapters, queue_job, run_job
from honyaku.cli.models import chosen_model, with_model_options
from honyaku.cli.options import BookRef, Home, open_honyaku, run
from honyaku.domain.glossary import CHARACTER, DEFAULT_KIND, EntryStatus, GlossaryEntry
from honyaku.domain.workflow import JobKind
from honyaku.jobs import CONCURRENCY, JobRequest

glossary_app = typer.Typer(
    help="A book's glossary: terms and characters injected into the chunks they occur in. "
    "--series NAME works on a shared glossary that several books attach to.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

Series = Annotated[
    str | None,
    typer.Option(
        "--series",
        help="A shared glossary's name instead of the book's own; adding to one attaches it.",
        show_default=False,
    ),
]
Source = Annotated[str, typer.Argument(help="The name or term as the book writes it.")]


@glossary_app.command("list")
def list_(
    book: BookRef,
    series: Series = None,
    proposed: Annotated[
        bool, typer.Option("--proposed", help="Only entries a model proposed, not yet accepted.")
    ] = False,
    home: Home = None,
) -> None:
    """List the entries the book sees: its own, then those of the series it is attached to."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    status = EntryStatus.PROPOSED if proposed else None
    entries = run(honyaku.glossary.entries(book_id, series=series, status=status))
    if not entries:
        out.print("The glossary is empty." if not proposed else "No proposed entries.")
        return
    table = Table("source", "target", "kind", "note", "status", "glossary")
    for stored in entries:
        entry = stored.entry
        table.add_row(
            escape(_source(entry)),
            escape(entry.target),
            escape(" ".join(p for p in (entry.kind, entry.gender) if p)),
            escape(entry.note),
            entry.status.value,
            escape(stored.glossary.label),
        )
    out.print(table)


@glossary_app.command()
def add(
    book: BookRef,
    source: Source,
    target: Annotated[str, typer.Argument(help="Its rendering in the target language.")],
    note: Annotated[str, typer.Option(help="What or who it is.")] = "",
    kind: Annotated[
        str,
        typer.Option(help=f"{CHARACTER} for a person; place, organization, {DEFAULT_KIND}…"),
    ] = DEFAULT_KIND,
    alias: Annotated[
        list[str] | None,
        typer.Option("--alias", help="Another spelling or nickname; repeatable."),
    ] = None,
    gender: Annotated[str, typer.Option(help="A character's gender.")] = "",
    reading: Annotated[str, typer.Option(help="How the source is read.")] = "",
    pronoun: Annotated[
        str, typer.Option(help="A character's pronoun in the target language: 他, 她, TA, il…")
    ] = "",
    speech: Annotated[
        str, typer.Option(help="How a character speaks: register, verbal tics.")
    ] = "",
    series: Series = None,
    home: Home = None,
) -> None:
    """Add an entry, or change the one for the same source (the old one stays a version)."""
    honyaku = open_honyaku(home)
    entry = GlossaryEntry(
        source,
        target,
        note,
        kind,
        tuple(alias or ()),
        gender,
        reading,
        pronoun=pronoun,
        speech=speech,
    )
    book_id = run(honyaku.books.resolve(book))
    change = run(honyaku.glossary.add(book_id, entry, series=series))
    if change.previous is None:
        out.print(f"Added {escape(change.entry.source)} → {escape(change.entry.target)}")
    elif change.changed:
        out.print(
            f"Changed {escape(change.entry.source)}: {escape(change.previous.target)} → "
            f"{escape(change.entry.target)}"
        )
    else:
        out.print(f"{escape(change.entry.source)} is already in the glossary as it is")


@glossary_app.command()
def remove(book: BookRef, source: Source, series: Series = None, home: Home = None) -> None:
    """Remove an entry; it stays in the entry's history."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    removed = run(honyaku.glossary.remove(book_id, source, series=series))
    out.print(f"Removed {escape(removed.source)} → {escape(removed.target)}")


@glossary_app.command()
def accept(
    book: BookRef,
    sources: Annotated[
        list[str] | None,
        typer.Argument(help="Sources of proposed entries to accept. Default: every one."),
    ] = None,
    series: Series = None,
    home: Home = None,
) -> None:
    """Accept entries a model proposed; accepted entries are injected into later chunks."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    accepted = run(honyaku.glossary.accept(book_id, sources or (), series=series))
    out.print(f"Accepted {len(accepted)} entr{'y' if len(accepted) == 1 else 'ies'}")


@glossary_app.command()
def history(book: BookRef, source: Source, series: Series = None, home: Home = None) -> None:
    """Every version of an entry, oldest first."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    versions = run(honyaku.glossary.history(book_id, source, series=series))
    if not versions:
        out.print(f"No entry for {escape(source)}.")
        return
    table = Table("when", "source", "target", "note", "status", "by", "glossary")
    for stored in versions:
        status = "removed" if stored.removed else stored.entry.status.value
        table.add_row(
            f"{stored.created_at:%Y-%m-%d %H:%M}",
            escape(_source(stored.entry)),
            escape(stored.entry.target),
            escape(stored.entry.note),
            status,
            escape(stored.origin),
            escape(stored.glossary.label),
        )
    out.print(table)


@glossary_app.command("import")
def import_(
    book: BookRef,
    path: Annotated[
        Path,
        typer.Argument(help="A .csv or .tsv with a header, or GalTransl's .txt dictionary."),
    ],
    series: Series = None,
    home: Home = None,
) -> None:
    """Import entries from a file, accepted; a source already there gets a new version."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    summary = run(honyaku.glossary.import_file(book_id, path, series=series))
    out.print(
        f"Imported {path.name}: {summary.added} added, {summary.changed} changed, "
        f"{summary.unchanged} unchanged"
    )


@glossary_app.command()
def export(
    book: BookRef,
    path: Annotated[
        Path, typer.Argument(help="The file to write: .csv, .tsv, or .txt for GalTransl.")
    ],
    series: Series = None,
    home: Home = None,
) -> None:
    """Export the entries the book sees (or a shared glossary's) to a file."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    count = run(honyaku.glossary.export_file(book_id, path, series=series))
    out.print(f"Wrote {count} entries to {path}")


@glossary_app.command()
def attach(
    book: BookRef,
    series: Annotated[str, typer.Argument(help="The shared glossary's name; made if new.")],
    home: Home = None,
) -> None:
    """Attach a shared glossary to a book: its accepted entries are the book's too."""
    honyaku = open_honyaku(home)
    attached = run(honyaku.glossary.attach(run(honyaku.books.resolve(book)), series))
    out.print(f"Attached {escape(series)}" if attached else f"{escape(series)} was attached")


@glossary_app.command()
def detach(
    book: BookRef,
    series: Annotated[str, typer.Argument(help="The shared glossary's name.")],
    home: Home = None,
) -> None:
    """Detach a shared glossary from a book; the glossary itself is kept."""
    honyaku = open_honyaku(home)
    detached = run(honyaku.glossary.detach(run(honyaku.books.resolve(book)), series))
    out.print(f"Detached {escape(series)}" if detached else f"{escape(series)} was not attached")


@glossary_app.command()
@with_model_options
def extract(
    book: BookRef,
    options: ModelOptions,
    chapters: Chapters = None,
    concurrency: Concurrency = CONCURRENCY,
    queue: Queue = False,
    home: Home = None,
) -> None:
    """Have a model read chapters and propose names and terms with readings and renderings;
    it may ask you how to render names. Proposals wait for `honyaku glossary accept`.
    Running it again continues where it stopped."""
    honyaku = open_honyaku(home, queued=queue or None)
    book_id, numbers = chosen_chapters(honyaku, book, chapters)
    request = JobRequest(
        book_id=book_id, kind=JobKind.EXTRACTION, chapters=numbers, concurrency=concurrency
    )
    choice = chosen_model(honyaku, options, book=book_id)
    if queue:
        queue_job(honyaku, choice, request)
        return
    outcome = run_job(honyaku, choice, request)
    proposed = run(honyaku.glossary.entries(book_id, status=EntryStatus.PROPOSED))
    out.print(
        f"{len(proposed)} proposed entries wait for you: `honyaku glossary list {book_id} "
        f"--proposed`, then `honyaku glossary accept {book_id}`"
    )
    if not outcome.ok:
        raise typer.Exit(EXIT_FAILURE)


def _source(entry: GlossaryEntry) -> str:
    return f"{entry.source} ({', '.join(entry.aliases)})" if entry.aliases else entry.source
