"""A job's events drawn as a rich progress bar, and its summary when it ends.

The bar and the summary go to standard output; retries, failures and paragraphs left to
another job are told on standard error, one line each.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from honyaku.application import JobCost
from honyaku.domain.failures import Failure, Left
from honyaku.domain.workflow import JobKind
from honyaku.jobs import (
    ChunkEvent,
    ChunkFinished,
    ChunkTakenOver,
    JobEvent,
    JobOutcome,
    JobProgress,
    JobStarted,
    ParagraphsBusy,
    Retry,
    RoundStarted,
)


class JobProgressView:
    """Called with every event of a job, it draws the job's progress."""

    def __init__(self, console: Console, errors: Console, title: str) -> None:
        self.console = console
        self.errors = errors
        self.figures: JobProgress | None = None
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "paragraphs · {task.fields[requests]} requests · "
                "{task.fields[tokens]} tokens · {task.fields[retries]} retries"
            ),
            TimeElapsedColumn(),
            _WaitingColumn(self),
            console=console,
        )
        self._task = self._progress.add_task(title, total=None, requests=0, tokens=0, retries=0)
        self._held: list[str] | None = None
        self._told_busy = False

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing is drawn while a dialog has the screen; messages wait for it to close."""
        self._progress.stop()
        self._held = []
        try:
            yield
        finally:
            held, self._held = self._held, None
            self._progress.start()
            for message in held:
                self.errors.print(message)

    def _say(self, message: str) -> None:
        if self._held is not None:
            self._held.append(message)
        else:
            self.errors.print(message)

    def __enter__(self) -> JobProgressView:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def __call__(self, event: JobEvent) -> None:
        if isinstance(event, JobStarted):
            self.figures = JobProgress.starting(event)
            self._started(event)
        elif self.figures is not None:
            self.figures.follow(event)
            self._show(self.figures)
        match event:
            case ParagraphsBusy():
                self._busy(event)
            case ChunkEvent(where=where, event=Retry(delay_s=delay, reason=reason)):
                self._say(
                    f"[yellow]retry[/] chapter {where.chapter} chunk {where.chunk} in "
                    f"{delay:.1f}s: {escape(reason)}"
                )
            case ChunkFinished(where=where, failure=Failure() as failure):
                self._say(
                    f"[red]failed[/] chapter {where.chapter} part {where.chunk}: "
                    f"{escape(str(failure))}"
                )
            case RoundStarted(chapter=chapter, round=round_, model=model, parts=parts):
                self._say(
                    f"[yellow]round {round_}[/] of chapter {chapter}: what failed is tried "
                    f"again as {parts} part(s) with {escape(model)}"
                )
            case ChunkTakenOver(where=where, reason=reason):
                self._say(
                    f"[yellow]taken over[/] chapter {where.chapter} chunk {where.chunk}: "
                    f"{escape(reason)}"
                )

    def _started(self, event: JobStarted) -> None:
        verb = "Resuming" if event.resumed else "Starting"
        self.console.print(
            f"{verb} {event.job.kind} job [bold]{event.job.id}[/] with {escape(event.job.model)}: "
            f"{event.paragraphs_total - event.paragraphs_done} paragraphs to do in "
            f"{event.chunks} parts"
        )
        self._progress.update(
            self._task, total=event.paragraphs_total, completed=event.paragraphs_done
        )

    def _busy(self, event: ParagraphsBusy) -> None:
        if not self._told_busy:
            self._told_busy = True
            self._say(
                f"[yellow]skipped[/] paragraphs another running job is working on (first in "
                f"chapter {event.where.chapter}); they are left to it"
            )

    def _show(self, figures: JobProgress) -> None:
        self._progress.update(
            self._task,
            completed=figures.paragraphs_done,
            requests=figures.cost.requests,
            tokens=figures.tokens,
            retries=figures.cost.retries,
        )


class _WaitingColumn(ProgressColumn):
    """How long the model has worked on a request, redrawn as the seconds pass."""

    def __init__(self, view: JobProgressView) -> None:
        super().__init__()
        self._view = view

    def render(self, task: Task) -> Text:
        figures = self._view.figures
        waiting = figures.waiting if figures is not None else None
        return Text(waiting_line(*waiting) if waiting else "", style="dim")


def waiting_line(waited_s: float, expected_s: float | None) -> str:
    """``waiting for the model: 2 m 10 s, about 4 m expected``"""
    line = f"waiting for the model: {_duration(waited_s)}"
    return f"{line}, about {_duration(expected_s, rough=True)} expected" if expected_s else line


def _duration(seconds: float, *, rough: bool = False) -> str:
    minutes, rest = divmod(round(seconds), 60)
    if rough and minutes:
        return f"{minutes + (rest >= 30)} m"
    return f"{minutes} m {rest} s" if minutes else f"{rest} s"


SHOWN_LEFT = 50
"""Paragraphs left the end of a job lists; ``honyaku check`` lists them all."""


def print_summary(console: Console, outcome: JobOutcome) -> None:
    cost = outcome.job.cost
    estimated = " (estimated: the server reported none)" if cost.tokens_estimated else ""
    table = Table.grid(padding=(0, 2))
    table.add_row("paragraphs", f"{outcome.paragraphs_done}/{outcome.paragraphs_total}")
    if outcome.busy:
        table.add_row("left to another job", str(outcome.busy))
    table.add_row("requests", f"{cost.requests} ({cost.retries} retries)")
    table.add_row(
        "input",
        f"{cost.billed_input_tokens} tokens ({cost.cached_tokens} cached), "
        f"{cost.input_chars} chars{estimated}",
    )
    thinking = f" ({cost.reasoning_tokens} reasoning)" if cost.reasoning_tokens else ""
    table.add_row(
        "output", f"{cost.billed_output_tokens} tokens{thinking}, {cost.output_chars} chars"
    )
    if (spent := outcome.spent) is not None:
        table.add_row("spent", f"{spent:.4g}")
    if len(outcome.job.costs) > 1:
        for model, by_model in outcome.job.costs.items():
            table.add_row(f"  {escape(model)}", _model_line(by_model, outcome.spent_by(model)))
    console.print(table)
    if outcome.running_elsewhere:
        console.print(
            f"{outcome.running_elsewhere} part(s) of this job are still running in another process."
        )
    if outcome.coverage is not None:
        console.print(f"{DONE_WORD[outcome.job.kind]:<11} {outcome.coverage}")
    print_left(console, outcome.left)


def _model_line(cost: JobCost, spent: float | None) -> str:
    """What one model of the chain spent, on a line."""
    line = (
        f"{cost.requests} requests, {cost.billed_input_tokens} input tokens "
        f"({cost.cached_tokens} cached), {cost.billed_output_tokens} output tokens"
    )
    return line if spent is None else f"{line}, {spent:.4g}"


DONE_WORD = {
    JobKind.TRANSLATION: "translated",
    JobKind.POLISH: "polished",
    JobKind.PROOFREADING: "proofread",
    JobKind.EXTRACTION: "read",
    JobKind.RATING: "rated",
}
"""What a job of each kind did to the paragraphs it counts as done."""


def print_left(console: Console, left: Sequence[Left]) -> None:
    """Every paragraph and chapter title left, with its reason: the first ``SHOWN_LEFT``, and
    how many more there are."""
    if not left:
        return
    console.print(f"[red]{len(left)} left[/], each with why:")
    for item in left[:SHOWN_LEFT]:
        console.print(f"  {left_line(item)}")
    if len(left) > SHOWN_LEFT:
        console.print(f"  … and {len(left) - SHOWN_LEFT} more (all of them: honyaku check BOOK)")
    console.print(
        "To try them again, run the same command again; add --fallback PROFILE to hand them "
        "to another model."
    )


def left_line(item: Left) -> str:
    """``chapter 3, paragraph 12 (1a2b3c4d): refused by the provider's filter: …``"""
    where = f"paragraph {item.position}" if item.position else "title"
    return f"chapter {item.chapter}, {where} ({item.id}): {escape(item.reason)}"
