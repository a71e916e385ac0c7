"""``honyaku jobs``: the jobs of every book, wherever they run; stopping and resuming them."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from honyaku.application import JobProgress
from honyaku.cli.console import out
from honyaku.cli.options import Home, open_honyaku, run

jobs_app = typer.Typer(
    help="Jobs queued, running, waiting for a person and finished, with the workers running "
    "them. Stop and resume them from here, whichever machine runs them.",
    invoke_without_command=True,
    rich_markup_mode=None,
)
JobRef = Annotated[str, typer.Argument(help="The job's id.")]


@jobs_app.callback()
def jobs(
    context: typer.Context,
    book: Annotated[str | None, typer.Option("--book", help="Only this book's jobs.")] = None,
    home: Home = None,
) -> None:
    """List the jobs, newest first."""
    if context.invoked_subcommand is not None:
        return
    honyaku = open_honyaku(home)

    async def listed() -> list[JobProgress]:
        return await honyaku.jobs.all(await honyaku.books.resolve(book) if book else None)

    found = run(listed())
    if not found:
        out.print("No jobs yet.")
        return
    table = Table("id", "book", "kind", "status", "paragraphs", "requests", "workers")
    for job in found:
        table.add_row(
            job.job_id,
            job.book_id,
            job.kind.value,
            job.status.value,
            f"{job.paragraphs_done}/{job.paragraphs_total}",
            str(job.cost.requests),
            escape(", ".join(job.workers)) or "-",
        )
        if len(job.costs) > 1:
            for spent in job.model_figures():
                tokens = spent["input_tokens"] + spent["output_tokens"]
                money = f", {spent['spent']:.4g}" if spent["spent"] is not None else ""
                model = f"  {escape(spent['model'])}: {tokens} tokens{money}"
                table.add_row("", "", model, "", "", str(spent["requests"]), "", style="dim")
    out.print(table)


@jobs_app.command()
def stop(job: JobRef, home: Home = None) -> None:
    """Stop a job wherever it runs: its workers give its chunks back at their next heartbeat,
    and what was queued of it is withdrawn. Accepted work is kept."""
    progress = run(open_honyaku(home).jobs.stop(job))
    out.print(f"Asked job {job} to stop; it is {progress.status.value}.")


@jobs_app.command()
def resume(
    job: JobRef,
    model: Annotated[
        str | None, typer.Option("--model", help="A saved model profile; default: the job's.")
    ] = None,
    home: Home = None,
) -> None:
    """Run a stopped or failed job again where its accepted work stopped: on the job queue
    when HONYAKU_QUEUE is on, else in the background of this command until it ends."""
    honyaku = open_honyaku(home)

    async def resumed() -> str:
        job_id = await honyaku.jobs.resume(job, model)
        async for update in honyaku.jobs.watch(job_id):
            if not update.progress.running_here:
                break
        await honyaku.aclose()
        return job_id

    out.print(f"Resumed job {run(resumed())}.")
