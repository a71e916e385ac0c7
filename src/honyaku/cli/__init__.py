"""The ``honyaku`` command."""

from __future__ import annotations

from typing import Annotated

import typer

from honyaku import __version__
from honyaku.cli import chat, glossary, jobs, library, models, serve, worker
from honyaku.cli.console import error_boundary
from honyaku.cli.database import db_app
from honyaku.cli.job_control import jobs_app
from honyaku.cli.keys import keys_app
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
app.command()(jobs.demo)
app.command("serve")(serve.serve)
app.command()(chat.chat)
app.command()(glossary.check)
app.add_typer(glossary.glossary_app, name="glossary")
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
