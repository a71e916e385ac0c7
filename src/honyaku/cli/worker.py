"""``honyaku worker``: run queued jobs on this machine."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from honyaku.application import serve_worker
from honyaku.cli.console import out
from honyaku.cli.options import Home


def worker(
    concurrency: Annotated[
        int,
        typer.Option("--concurrency", min=1, max=256, help="Chapters worked on at once here."),
    ] = 4,
    models: Annotated[
        str | None,
        typer.Option(
            "--models",
            help="Serve only the jobs of these saved model profiles, e.g. deepseek,local-qwen "
            "(a machine with those keys, or beside that GPU server). Default: every job.",
            metavar="PROFILE,…",
        ),
    ] = None,
    home: Home = None,
) -> None:
    """Take chapters of queued jobs and run them, until stopped (SIGTERM or Ctrl-C finish the
    replies in flight, give their chunks back and exit). Run workers on any machines that
    reach the database (HONYAKU_DATABASE_URL, PostgreSQL) and the model servers: API keys
    come from each worker's own environment or key store (honyaku keys set NAME on that
    machine), never from the queue or the database. Chapters
    run side by side across workers; a chapter's chunks run in order."""
    profiles = [name.strip() for name in (models or "").split(",") if name.strip()]

    def ready(name: str) -> None:
        served = ", ".join(profiles) if profiles else "every model"
        out.print(
            f"Worker {escape(name)} takes jobs for {escape(served)}: SIGTERM or Ctrl-C stops it."
        )

    serve_worker(home, concurrency=concurrency, profiles=profiles, ready=ready)
