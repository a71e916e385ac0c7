"""``honyaku trial``: saved models tried on the same sample of a book, side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from honyaku.application import Honyaku
from honyaku.application.trials import Comparison
from honyaku.cli.console import out
from honyaku.cli.jobs import chosen_chapters
from honyaku.cli.models import Fallback, fallback_names
from honyaku.cli.options import BookRef, Home, open_honyaku, run
from honyaku.domain.trial import ModelResult
from honyaku.errors import UserError

Models = Annotated[
    str,
    typer.Option("--models", help="The saved models to try, by name, e.g. deepseek,gpt-4o-mini."),
]


def trial(
    book: BookRef,
    models: Models = "",
    chapters: Annotated[
        str | None,
        typer.Option(
            "--chapters",
            help="The sample, e.g. 1-2. Default: the first chapters, a few thousand characters.",
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(help="A saved model that then rates every model's versions, blind."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Shuffles what the judge reads; random by default.")
    ] = None,
    reference: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="Your own translation of the sample (UTF-8 text, a paragraph a line, in "
            "order): chrF++ against it for each model.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the comparison as JSON, one object a model.")
    ] = False,
    use: Annotated[
        str | None,
        typer.Option(
            help="Take this model's versions from the book's latest trial into the book, and "
            "make it the book's model (with --fallback's as its fallbacks); nothing is tried.",
        ),
    ] = None,
    fallback: Fallback = None,
    home: Home = None,
) -> None:
    """Try saved models on the same sample of the book, each through the same tools, glossary
    and checks, and compare what each did, refused, retried, spent and (with --judge) how
    well it read. The book's translations do not change until you take one model's versions
    (--use MODEL, or "Use this model" on the workbench's comparison page)."""
    # A trial is watched to its end here: its jobs run here too, whatever HONYAKU_QUEUE says.
    honyaku = open_honyaku(home, queued=False)
    book_id, numbers = chosen_chapters(honyaku, book, chapters)
    if use is not None:
        _use(honyaku, book_id, use, fallback_names(fallback))
        return
    names = [name.strip() for name in models.split(",") if name.strip()]
    lines = _reference_lines(reference) if reference else None
    comparison = run(_tried(honyaku, book_id, names, numbers, judge, seed, lines, quiet=as_json))
    if as_json:
        print(json.dumps([r.figures() for r in comparison.results], ensure_ascii=False, indent=2))
        return
    out.print(_table(comparison))
    out.print(
        f"Trial [bold]{comparison.trial.id}[/] on chapters "
        f"{', '.join(map(str, comparison.trial.chapters))}; read the versions side by side "
        f"in the workbench: /trials/{comparison.trial.id}"
    )


def _reference_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise UserError("--reference {path}: not UTF-8 text", path=str(path)) from exc


def _use(honyaku: Honyaku, book_id: str, model: str, fallbacks: tuple[str, ...]) -> None:
    trials = run(honyaku.trials.of_book(book_id))
    if not trials:
        raise UserError("the book has no trial yet: try models with --models first")
    used = run(honyaku.trials.use(trials[0].id, model, fallbacks=fallbacks))
    out.print(
        f"Took {used} paragraph(s) of {escape(model)}'s from trial {trials[0].id} into the "
        "book; its jobs now run with it."
    )


async def _tried(
    honyaku: Honyaku,
    book_id: str,
    names: list[str],
    chapters: list[int] | None,
    judge: str | None,
    seed: int | None,
    reference: list[str] | None,
    *,
    quiet: bool,
) -> Comparison:
    trial = await honyaku.trials.start(
        book_id, names, chapters=chapters, seed=seed, reference=reference
    )
    for entry in trial.entries:
        if entry.job_id is not None:
            await _wait(honyaku, entry.job_id)
        if not quiet:
            out.print(f"{escape(entry.model)}: done")
    if judge is not None:
        judged = await honyaku.trials.judge(trial.id, judge)
        if judged.judge_job_id is not None:
            await _wait(honyaku, judged.judge_job_id)
    return await honyaku.trials.compare(trial.id)


async def _wait(honyaku: Honyaku, job_id: str) -> None:
    async for _ in honyaku.jobs.watch(job_id):
        pass


FIGURES = (
    "paragraphs done",
    "parts failed",
    "refused calls",
    "retries",
    "requests (a part)",
    "tokens in / cached / out",
    "billed",
    "time",
    "judge: mean, share ≤ 2",
    "chrF++",
)


def _table(comparison: Comparison) -> Table:
    """A column a model, a row a figure: a few models side by side fit any terminal."""
    table = Table("", *(escape(result.model) for result in comparison.results))
    columns = [_column(result) for result in comparison.results]
    for name, *values in zip(FIGURES, *columns, strict=True):
        table.add_row(name, *values)
    return table


def _column(result: ModelResult) -> list[str]:
    tokens = result.tokens
    per_part = result.requests_per_part
    judged = result.judged
    return [
        f"{result.paragraphs_done}/{result.paragraphs} ({result.status})",
        _counts(result.parts_failed) or f"0 of {result.parts}",
        _counts(result.rejected_calls) or "0",
        str(result.retries),
        f"{result.requests} ({per_part:.1f})" if per_part is not None else str(result.requests),
        f"{tokens.uncached:,} / {tokens.cached:,} / {tokens.output:,}",
        "-" if result.billed is None else f"{result.billed:.4f}",
        "-" if result.wall_s is None else f"{result.wall_s:.0f} s",
        "-"
        if judged.mean is None or judged.low_share is None
        else f"{judged.mean:.2f}, {judged.low_share:.0%}",
        "-" if result.chrf is None else f"{result.chrf:.1f}",
    ]


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items())
