"""Commands for the library: import, books, show, export, delete, settings."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from honyaku.application import DEFAULT_TARGET, ActionKind, JobProgress
from honyaku.cli.actions import print_actions
from honyaku.cli.console import out
from honyaku.cli.editions import print_edition, print_history
from honyaku.cli.options import BookRef, Home, open_honyaku, run
from honyaku.domain.placeholders import LostMarkup, RubyChoice
from honyaku.formats import ExportFormat, RubyMode, WritingMode
from honyaku.jobs.log_lines import NOTABLE_ACTIONS


def import_(
    path: Annotated[Path, typer.Argument(help="A TXT, Aozora Bunko text or XHTML, or EPUB file.")],
    title: Annotated[str | None, typer.Option(help="Title to use instead of the file's.")] = None,
    source_lang: Annotated[
        str | None, typer.Option(help="Language of the book. Default: guessed from the text.")
    ] = None,
    target_lang: Annotated[str, typer.Option(help="Language to translate into.")] = DEFAULT_TARGET,
    chapter_pattern: Annotated[
        str | None,
        typer.Option(
            help="Regular expression for chapter heading lines in TXT files, as Python writes "
            "one; run on RE2, in time proportional to the line (no backreferences, no "
            "lookaround)."
        ),
    ] = None,
    encoding: Annotated[
        str | None,
        typer.Option(
            help="Encoding of a TXT or HTML file (cp1252, shift_jis, gb18030 ...). "
            "Default: told from the bytes, or refused when it cannot be told."
        ),
    ] = None,
    update: Annotated[
        str | None,
        typer.Option(
            metavar="BOOK",
            help="Take the file as a new edition of BOOK: unchanged paragraphs keep their "
            "translations, changed ones keep them marked stale, new ones wait to be translated, "
            "and those left out are kept in the book's history.",
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="With --update: print what would change, write nothing."),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="With --update: take a file that holds almost nothing of the book."
        ),
    ] = False,
    home: Home = None,
) -> None:
    """Import a book, or with --update a new edition of one. Prints the book id alone on the
    last line."""
    honyaku = open_honyaku(home)
    if update is not None:
        book_id = run(honyaku.books.resolve(update))
        updated = run(
            honyaku.editions.update(
                book_id,
                path,
                dry_run=dry_run,
                force=force,
                chapter_pattern=chapter_pattern,
                encoding=encoding,
            )
        )
        print_edition(out, updated)
        print(updated.id)
        return
    book = run(
        honyaku.books.import_file(
            path,
            title=title,
            source_lang=source_lang,
            target_lang=target_lang,
            chapter_pattern=chapter_pattern,
            encoding=encoding,
        )
    )
    out.print(
        f"Imported [bold]{escape(book.title)}[/]: {book.chapters} chapters, "
        f"{book.paragraphs} paragraphs ({book.source_lang} → {book.target_lang})"
    )
    print(book.id)


def books(home: Home = None) -> None:
    """List the books in the library."""
    summaries = run(open_honyaku(home).books.all())
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
    book: BookRef,
    actions: Annotated[
        bool,
        typer.Option(
            "--actions",
            help="List what happened in the book's jobs instead: questions and answers, "
            "refused calls, nudges, retries, failures, and the model's reasoning (dimmed).",
        ),
    ] = False,
    hide_reasoning: Annotated[
        bool, typer.Option("--hide-reasoning", help="With --actions: leave the reasoning out.")
    ] = False,
    home: Home = None,
) -> None:
    """Show a book's chapters with paragraph counts and translation progress."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    if actions:
        kinds = [k for k in NOTABLE_ACTIONS if not (hide_reasoning and k is ActionKind.REASONING)]
        print_actions(out, run(honyaku.books.actions(book_id, kinds)))
        return
    detail = run(honyaku.books.detail(book_id))
    meta = detail.book
    out.print(f"[bold]{escape(meta.title)}[/] {escape(meta.author or '')}  [dim]{meta.id}[/]")
    out.print(f"{meta.source_lang} → {meta.target_lang}")
    print_history(out, run(honyaku.editions.history(book_id)))
    table = Table("#", "chapter", "id", "paragraphs", "translated")
    for chapter in detail.chapters:
        title = escape(chapter.title)
        if chapter.translated_title:
            stale = " [yellow](stale)[/]" if chapter.title_stale else ""
            title += f" [dim]/ {escape(chapter.translated_title)}[/]{stale}"
        stale = f", [yellow]{chapter.stale} stale[/]" if chapter.stale else ""
        table.add_row(
            str(chapter.number),
            title,
            chapter.id,
            str(chapter.paragraphs),
            _ratio(chapter.translated, chapter.work_paragraphs) + stale,
        )
    out.print(table)
    _print_jobs(list(reversed(run(honyaku.jobs.all(book_id)))))


def _print_jobs(jobs: list[JobProgress]) -> None:
    if not jobs:
        return
    table = Table("job", "kind", "model", "status", "requests", "in / out tokens")
    for job in jobs:
        cost = job.cost
        retries = f" +{cost.retries} retries" if cost.retries else ""
        estimated = " (estimated)" if cost.tokens_estimated else ""
        table.add_row(
            job.job_id,
            job.kind.value,
            escape(job.model),
            job.status.value,
            f"{cost.requests}{retries}",
            f"{cost.billed_input_tokens} / {cost.billed_output_tokens}{estimated}",
        )
    out.print(table)


def export(
    book: BookRef,
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="Output format.")] = (
        ExportFormat.EPUB
    ),
    bilingual: Annotated[bool, typer.Option(help="Show source and translation together.")] = False,
    rebuild: Annotated[
        bool,
        typer.Option(
            help="EPUB of a book imported from EPUB: build a plain EPUB from the paragraphs "
            "instead of translating the original in place (cover, images and styles kept)."
        ),
    ] = False,
    writing_mode: Annotated[
        WritingMode | None,
        typer.Option(
            help="EPUB in place: the direction to read in; writing-mode CSS and page "
            "progression change together. Default: horizontal, or keep for a Japanese target."
        ),
    ] = None,
    ruby: Annotated[
        RubyMode, typer.Option(help="EPUB in place, bilingual: keep or drop the source's ruby.")
    ] = RubyMode.KEEP,
    home: Home = None,
) -> None:
    """Export a book with its selected translations (source text where none exists).

    A book imported from an EPUB exports as that EPUB translated in place.
    """
    books = open_honyaku(home).books

    async def export() -> int:
        book_id = await books.resolve(book)
        await books.export(
            book_id,
            output,
            fmt,
            bilingual=bilingual,
            rebuild=rebuild,
            writing_mode=writing_mode,
            ruby=ruby,
        )
        return len((await books.left(book_id)).left)

    left = run(export())
    out.print(f"Wrote {output}")
    if left:
        out.print(
            f"{left} paragraph(s) or chapter title(s) left untranslated keep their source text; "
            f"honyaku check {escape(book)} lists them with why."
        )


def delete(
    book: BookRef,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask first.")] = False,
    home: Home = None,
) -> None:
    """Delete a book with its translations, glossary, jobs and chats; refused while a job
    works on it."""
    books = open_honyaku(home).books
    book_id = run(books.resolve(book))
    summary = run(books.info(book_id))
    if not yes:
        typer.confirm(f"Delete {summary.title} ({book_id}) and all its translations?", abort=True)
    run(books.delete(book_id))
    out.print(f"Deleted [bold]{escape(summary.title)}[/] ({book_id})")


class Switch(StrEnum):
    ON = "on"
    OFF = "off"


def settings(
    book: BookRef,
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
    auto_accept_terms: Annotated[
        Switch | None,
        typer.Option(
            help="on: glossary terms a model proposes are accepted at once, not left for "
            "`honyaku glossary accept`."
        ),
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(
            min=0,
            help="What one run of a job on this book may spend at the model profile's prices "
            "(translate --max-cost overrides it); 0 clears.",
        ),
    ] = None,
    question_wait_hours: Annotated[
        float | None,
        typer.Option(
            min=0,
            help="How long a question of a queued job waits for a person (honyaku questions, "
            "the workbench) before the model is told nobody answered.",
        ),
    ] = None,
    ruby: Annotated[
        RubyChoice | None,
        typer.Option(
            help="What becomes of the source's ruby: hints (the model reads the readings, "
            "the translation has no ruby), keep (ruby on the translated words), drop."
        ),
    ] = None,
    lost_markup: Annotated[
        LostMarkup | None,
        typer.Option(
            help="A paragraph whose inline markup its models could not keep, once its rounds "
            "are spent: keep_text (its translation without the markup, flagged 'markup "
            "lost' in honyaku check) or leave (left to you)."
        ),
    ] = None,
    write_from_memory: Annotated[
        Switch | None,
        typer.Option(
            help="on: before a translation job, paragraphs whose very source the series' "
            "translation memory holds are written from it (versions by 'memory', never over a "
            "translation); see `honyaku memory`."
        ),
    ] = None,
    home: Home = None,
) -> None:
    """Print a book's settings, changing those given first."""
    honyaku = open_honyaku(home)
    changes: dict[str, object] = {}
    if chunk_chars is not None:
        changes["chunk_chars"] = chunk_chars
    if skip_ask_user is not None:
        changes["skip_ask_user"] = skip_ask_user is Switch.ON
    if approve_tools is not None:
        changes["approve_tools"] = _tool_names(approve_tools)
    if always_allow is not None:
        changes["always_allow"] = _tool_names(always_allow)
    if auto_accept_terms is not None:
        changes["auto_accept_terms"] = auto_accept_terms is Switch.ON
    if max_cost is not None:
        changes["max_cost"] = max_cost or None
    if question_wait_hours is not None:
        changes["question_wait_hours"] = question_wait_hours
    if ruby is not None:
        changes["ruby"] = ruby
    if lost_markup is not None:
        changes["lost_markup"] = lost_markup
    if write_from_memory is not None:
        changes["write_from_memory"] = write_from_memory is Switch.ON
    book_id = run(honyaku.books.resolve(book))
    current = run(honyaku.settings.change(book_id, **changes))
    for name, value in current.model_dump().items():
        out.print(f"{name} = {value}")


def _tool_names(listed: str) -> list[str]:
    return [name.strip() for name in listed.split(",") if name.strip()]


def _ratio(done: int, total: int) -> str:
    percent = 100 * done // total if total else 100
    return f"{done}/{total} ({percent}%)"
