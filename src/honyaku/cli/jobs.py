"""Commands that run a model over a book: translate, polish, proofread, and the demo."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from honyaku.agent.broker import Broker
from honyaku.cli.console import EXIT_FAILURE, EXIT_INTERRUPTED, err, out
from honyaku.cli.dialog import TerminalFrontEnd
from honyaku.cli.models import ApiKeyEnv, BaseUrl, Header, Model, Protocol, Provider
from honyaku.cli.options import Home, open_library, parse_chapter_numbers
from honyaku.cli.progress import JobProgressView, print_summary
from honyaku.domain.workflow import JobKind
from honyaku.formats import ExportFormat, read_book, write_book
from honyaku.jobs.model_choice import DEMO_MODEL, ModelChoice, ToolProtocol
from honyaku.jobs.runner import CONCURRENCY, JobOutcome, JobRequest, JobRunner
from honyaku.store import JobStore, Library, ModelProfiles, resolve_home

Book = Annotated[str, typer.Argument(help="Book id (or a unique prefix).")]
Chapters = Annotated[
    str | None,
    typer.Option("--chapters", help="Chapters to work on, e.g. 1-3,7. Default: all."),
]
Concurrency = Annotated[
    int, typer.Option("--concurrency", min=1, max=64, help="Chapters worked on at once.")
]

_SAMPLE = Path(__file__).parents[1] / "samples" / "rashomon.html"


def _job_command(kind: JobKind, summary: str) -> typer.models.CommandFunctionType:
    def command(
        book: Book,
        chapters: Chapters = None,
        model: Model = None,
        base_url: BaseUrl = None,
        api_key_env: ApiKeyEnv = None,
        provider: Provider = None,
        protocol: Protocol = ToolProtocol.AUTO,
        header: Header = None,
        concurrency: Concurrency = CONCURRENCY,
        retranslate: Annotated[
            bool, typer.Option(help="Redo paragraphs that already have a translation.")
        ] = False,
        home: Home = None,
    ) -> None:
        library = open_library(home)
        book_id = library.resolve(book)
        numbers = parse_chapter_numbers(chapters, library.chapter_count(book_id))
        request = JobRequest(book_id, kind, numbers, concurrency, retranslate)
        choice = ModelChoice(model, base_url, api_key_env, protocol, provider, tuple(header or ()))
        outcome = run_job(library, choice, request)
        if not outcome.ok:
            raise typer.Exit(EXIT_FAILURE)

    command.__doc__ = summary
    return command


translate = _job_command(
    JobKind.TRANSLATION,
    "Translate a book's paragraphs and chapter titles. Exits non-zero if any chunk failed; "
    "running it again continues where it stopped.",
)
polish = _job_command(
    JobKind.POLISH, "Polish the existing translation; each change is a new version."
)
proofread = _job_command(
    JobKind.PROOFREADING,
    "Proofread the existing translation against the source; fixes are new versions.",
)


def run_job(library: Library, choice: ModelChoice, request: JobRequest) -> JobOutcome:
    # The model SDKs take a second to import: only for commands that call a model.
    from honyaku.jobs.connection import open_model

    out.print(f"Model: {escape(choice.describe())}")
    target = library.book(request.book_id).target_lang
    profiles = ModelProfiles(library.database)

    async def job() -> JobOutcome:
        async with open_model(choice, profiles, language=target) as model:
            with JobProgressView(out, request.kind.value) as view, _front_end(view) as broker:
                runner = JobRunner(
                    library,
                    JobStore(library.database),
                    model.provider,
                    protocol=model.protocol.value,
                    broker=broker,
                    report=view,
                )
                return await runner.run(request)

    try:
        outcome = asyncio.run(job())
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]: accepted work is saved; run the command again to go on")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    print_summary(out, outcome)
    return outcome


@contextmanager
def _front_end(view: JobProgressView) -> Iterator[Broker]:
    """A broker that asks the person on this terminal, if there is one: without a terminal
    (CI, a pipe) nothing waits for a person."""
    broker = Broker()
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        yield broker
        return
    with broker.attached(TerminalFrontEnd(out, view.paused)):
        yield broker


def demo(
    model: Model = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = None,
    provider: Provider = None,
    protocol: Protocol = ToolProtocol.AUTO,
    home: Home = None,
) -> None:
    """Import a sample book (Akutagawa's Rashōmon), translate it into Chinese with the
    built-in demo model (or the model you name), and export the result."""
    library = open_library(home)
    book_id = _demo_book(library)
    choice = ModelChoice(
        model=model or DEMO_MODEL,
        base_url=base_url,
        api_key_env=api_key_env,
        protocol=protocol,
        api=provider,
    )
    outcome = run_job(library, choice, JobRequest(book_id, JobKind.TRANSLATION))
    folder = resolve_home(home) / "exports"
    folder.mkdir(parents=True, exist_ok=True)
    book = library.get_book(book_id)
    epub, markdown = folder / "rashomon.zh-CN.epub", folder / "rashomon.zh-CN.md"
    write_book(book, epub, ExportFormat.EPUB)
    write_book(book, markdown, ExportFormat.MD, bilingual=True)
    out.print(f"\nThe translation is in [bold]{epub}[/] and, side by side, [bold]{markdown}[/].")
    out.print(f"See the book with [bold]honyaku show {book_id}[/].")
    if not outcome.ok:
        raise typer.Exit(EXIT_FAILURE)


def _demo_book(library: Library) -> str:
    draft = read_book(_SAMPLE)
    for book in library.list_books():
        if book.title == draft.title and book.author == draft.author:
            return book.id
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")
