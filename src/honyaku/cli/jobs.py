"""Commands that run a model over a book: translate, polish, proofread, and the demo."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Annotated

import typer
from rich.markup import escape

from honyaku.application import (
    DEMO_MODEL,
    LISTED_CURRENCY,
    Honyaku,
    ModelChoice,
    ModelOptions,
    resolve_home,
)
from honyaku.cli.console import EXIT_FAILURE, EXIT_INTERRUPTED, err, out
from honyaku.cli.dialog import TerminalFrontEnd
from honyaku.cli.models import chosen_model, with_model_options
from honyaku.cli.options import BookRef, Home, open_honyaku, run
from honyaku.cli.progress import JobProgressView, print_summary
from honyaku.domain.workflow import JobKind
from honyaku.errors import HonyakuError, SpendingCapReached
from honyaku.formats import ExportFormat
from honyaku.jobs import CONCURRENCY, JobFinished, JobOutcome, JobRequest
from honyaku.jobs.estimate import Estimate

Chapters = Annotated[
    str | None,
    typer.Option("--chapters", help="Chapters to work on, e.g. 1-3,7. Default: all."),
]
Concurrency = Annotated[
    int, typer.Option("--concurrency", min=1, max=64, help="Chapters worked on at once.")
]
DryRun = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Print what the job would send (chunks, requests, input and output tokens) and "
        "cost at the model profile's prices, and send nothing.",
    ),
]
Queue = Annotated[
    bool,
    typer.Option(
        "--queue",
        help="Queue the job for workers (honyaku worker, on any machine) and return at once "
        "with its id, instead of running it here. Needs HONYAKU_DATABASE_URL on PostgreSQL. "
        "Follow it with honyaku jobs.",
    ),
]
ChunkChars = Annotated[
    int | None,
    typer.Option(
        "--chunk-chars",
        min=200,
        help="Plan this run's chunks at N characters. Default: the size that bills the model "
        "least as it works (at most the book's chunk_chars), within its context window.",
        metavar="N",
    ),
]
MaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        min=0,
        help="Stop before the request that could take this run's spending past AMOUNT, at "
        "the model profile's prices (default: the book's max_cost setting). Work done is "
        "kept; run the command again to go on.",
        metavar="AMOUNT",
    ),
]


def _job_command(kind: JobKind, summary: str) -> Callable[..., None]:
    @with_model_options
    def command(
        book: BookRef,
        options: ModelOptions,
        chapters: Chapters = None,
        concurrency: Concurrency = CONCURRENCY,
        retranslate: Annotated[
            bool, typer.Option(help="Redo paragraphs that already have a translation.")
        ] = False,
        dry_run: DryRun = False,
        max_cost: MaxCost = None,
        queue: Queue = False,
        chunk_chars: ChunkChars = None,
        home: Home = None,
    ) -> None:
        honyaku = open_honyaku(home, queued=queue or None)
        book_id, numbers = chosen_chapters(honyaku, book, chapters)
        request = JobRequest(
            book_id=book_id,
            kind=kind,
            chapters=numbers,
            concurrency=concurrency,
            retranslate=retranslate,
            max_cost=max_cost,
            chunk_chars=chunk_chars,
        )
        choice = chosen_model(honyaku, options, book=book_id)
        if dry_run:
            print_estimate(honyaku, choice, request)
            return
        if queue:
            queue_job(honyaku, choice, request)
            return
        outcome = run_job(honyaku, choice, request)
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
rate = _job_command(
    JobKind.RATING,
    "Rate the translation: a judge model scores each paragraph 1–5 with the problems it "
    "finds; `honyaku check BOOK --below 3` lists the low ones.",
)


def chosen_chapters(
    honyaku: Honyaku, book: str, chapters: str | None
) -> tuple[str, list[int] | None]:
    """The book a command names, and the chapters of it ``--chapters`` names (``None``: all)."""

    async def chosen() -> tuple[str, list[int] | None]:
        book_id = await honyaku.books.resolve(book)
        return book_id, await honyaku.books.chapter_numbers(book_id, chapters)

    return run(chosen())


def run_job(honyaku: Honyaku, choice: ModelChoice, request: JobRequest) -> JobOutcome:
    choice.check()
    out.print(f"Model: {escape(choice.describe())}")

    async def job() -> JobOutcome | None:
        outcome = None
        with JobProgressView(out, err, request.kind.value) as view, _front_end(honyaku, view):
            async for event in honyaku.jobs.run(request, choice):
                view(event)
                if isinstance(event, JobFinished):
                    outcome = event.outcome
        return outcome

    try:
        outcome = run(job())
    except SpendingCapReached as exc:
        err.print(f"[yellow]{escape(str(exc))}[/]: accepted work is saved; run again to go on")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except (KeyboardInterrupt, asyncio.CancelledError) as exc:
        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else "stopped on request"
        err.print(f"[yellow]{why}[/]: accepted work is saved; run the command again to go on")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if outcome is None:
        raise HonyakuError("the job ended without finishing")
    print_summary(out, outcome)
    return outcome


def queue_job(honyaku: Honyaku, choice: ModelChoice, request: JobRequest) -> None:
    """Queue the job for the workers; its id alone on the last line."""
    job_id = run(honyaku.jobs.start(request, choice))
    out.print(f"Queued {request.kind.value} with {escape(choice.describe())}.")
    out.print(
        f"Follow it with [bold]honyaku jobs[/]; stop it with [bold]honyaku jobs stop {job_id}[/]."
    )
    print(job_id)


def print_estimate(honyaku: Honyaku, choice: ModelChoice, request: JobRequest) -> None:
    """The job's estimate, for a dry run: nothing is sent."""
    estimate = run(honyaku.jobs.estimate(request, choice))
    out.print(f"Dry run of {request.kind.value} with {escape(choice.describe())}: nothing sent.")
    for label, value in estimate_lines(estimate, choice.prices_source):
        out.print(f"  {label:<14} {value}")


def estimate_lines(estimate: Estimate, prices_source: str | None = None) -> list[tuple[str, str]]:
    """The estimate's lines; its cost at the prices of ``prices_source`` where they were looked
    up, else at those typed in the profile."""
    learned = (
        f"learned from {estimate.learned_from} earlier job(s) with this model"
        if estimate.learned_from
        else "a model never seen"
    )
    if estimate.cost is None:
        cost = "give the model profile prices (honyaku models add --input-price --output-price)"
    elif prices_source is None:
        cost = f"{estimate.cost:.4g} at the profile's prices"
    else:
        cost = f"{estimate.cost:.4g} {LISTED_CURRENCY} at the prices of {prices_source}"
    if estimate.spread > 1.01:
        cost += (
            f"; a model never seen may cost up to {estimate.spread:.1f} times less (if it does "
            "a chunk in one reply) or more (if it sends a few paragraphs a reply)"
        )
    return [
        (
            "chunks",
            f"{estimate.chunks} ({estimate.paragraphs} paragraphs, at most "
            f"{estimate.chunk_chars:,} characters each)",
        ),
        (
            "requests",
            f"{estimate.requests:.0f} ({estimate.replies_per_chunk:.1f} a chunk: {learned})",
        ),
        ("input tokens", f"{estimate.input_tokens:,} ({estimate.cached_tokens:,} of them cached)"),
        ("output tokens", f"{estimate.output_tokens:,}"),
        ("counted with", f"{estimate.counted_with} tokens"),
        ("cost", cost),
    ]


@contextmanager
def _front_end(honyaku: Honyaku, view: JobProgressView) -> Iterator[None]:
    """Questions and approvals asked on this terminal, if there is one: without a terminal
    (CI, a pipe) nothing waits for a person."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        yield
        return
    with honyaku.broker.attached(TerminalFrontEnd(out, view.paused)):
        yield


@with_model_options
def demo(options: ModelOptions, home: Home = None) -> None:
    """Import a sample book (Akutagawa's Rashōmon), translate it into Chinese with the
    built-in demo model (or the model you name), and export the result."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.import_sample())
    choice = chosen_model(honyaku, replace(options, model=options.model or DEMO_MODEL))
    outcome = run_job(honyaku, choice, JobRequest(book_id=book_id, kind=JobKind.TRANSLATION))
    folder = resolve_home(home) / "exports"
    folder.mkdir(parents=True, exist_ok=True)
    epub, markdown = folder / "rashomon.zh-CN.epub", folder / "rashomon.zh-CN.md"
    run(honyaku.books.export(book_id, epub, ExportFormat.EPUB))
    run(honyaku.books.export(book_id, markdown, ExportFormat.MD, bilingual=True))
    out.print(f"\nThe translation is in [bold]{epub}[/] and, side by side, [bold]{markdown}[/].")
    out.print(f"See the book with [bold]honyaku show {book_id}[/].")
    if not outcome.ok:
        raise typer.Exit(EXIT_FAILURE)
