"""The ``honyaku`` command: ``app``, its commands and command groups, and ``main``.

options.py      options several commands share, and the one way a command reaches the library
console.py      the consoles for output and for errors, and honyaku's errors as one red line
library.py      the library's commands: import, books, show, export, delete, settings
editions.py     a new edition's figures: what ``import --update`` changed or would change
jobs.py         the commands that run a model over a book: translate, polish, proofread, rate,
                demo
job_control.py  ``honyaku jobs``: every book's jobs, wherever they run; stop and resume
progress.py     a job's events as a progress bar, and its summary when it ends
actions.py      a book's job log, one line per thing worth a translator's look
dialog.py       the terminal as the broker's front end: questions and approvals
questions.py    ``honyaku questions``: questions of queued jobs waiting for an answer
glossary.py     ``honyaku glossary …``: a book's glossary and the shared ones
cast.py         ``honyaku cast …``: a book's characters and how they address each other
memory.py       ``honyaku memory …``: the translation memory of a book's series
trial.py        ``honyaku trial``: saved models tried on the same sample, compared
check.py        ``honyaku check``: what a book still needs: what is left, what is flagged
models.py       the model a command talks to: its options, models saved under a name, checks
chat.py         ``honyaku chat``: the assistant in the terminal
database.py     ``honyaku db``: the database's schema, its revision shown, brought up to date
serve.py        ``honyaku serve``: the web workbench
worker.py       ``honyaku worker``: queued jobs run on this machine
"""

from __future__ import annotations

from typing import Annotated

import typer

from honyaku import __version__
from honyaku.cli import chat, check, glossary, jobs, library, models, serve, trial, worker
from honyaku.cli.cast import cast_app
from honyaku.cli.console import error_boundary
from honyaku.cli.database import db_app
from honyaku.cli.job_control import jobs_app
from honyaku.cli.keys import keys_app
from honyaku.cli.memory import memory_app
from honyaku.cli.questions import questions_app

app = typer.Typer(
    help="Translate books with large language models, through checked tool calls.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.command("import")(library.import_)
app.command()(library.books)
app.command()(library.show)
app.command()(library.export)
app.command()(library.delete)
app.command()(library.settings)
app.command("translate")(jobs.translate)
app.command("polish")(jobs.polish)
app.command("proofread")(jobs.proofread)
app.command("rate")(jobs.rate)
app.command()(trial.trial)
app.command()(jobs.demo)
app.command("serve")(serve.serve)
app.command()(chat.chat)
app.command()(check.check)
app.add_typer(glossary.glossary_app, name="glossary")
app.add_typer(cast_app, name="cast")
app.add_typer(memory_app, name="memory")
app.add_typer(models.models_app, name="models")
app.add_typer(keys_app, name="keys")
app.add_typer(db_app, name="db")
app.add_typer(jobs_app, name="jobs")
app.add_typer(questions_app, name="questions")
app.command()(worker.worker)


def _print_version(value: bool) -> None:
    if value:
        print(f"honyaku {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    pass


def main(argv: list[str] | None = None) -> None:
    with error_boundary():
        app(args=argv, prog_name="honyaku")
