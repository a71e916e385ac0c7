"""``honyaku serve``: the web workbench."""

from __future__ import annotations

from typing import Annotated

import typer

from honyaku.cli.console import err, out
from honyaku.cli.options import Home, open_honyaku


def serve(
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface)."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port; 0 picks a free one.")] = 8000,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the workbench in the web browser.")
    ] = False,
    no_token: Annotated[
        bool,
        typer.Option(
            "--no-token",
            help="Answer requests without the token, on 127.0.0.1 only: then any program or "
            "person on this machine can read your books and start paid jobs.",
        ),
    ] = False,
    allow_key_entry: Annotated[
        bool,
        typer.Option(
            "--allow-key-entry",
            help="Take API keys typed into the workbench's pages although it is served beyond "
            "127.0.0.1 (they are kept in this machine's key store; plain HTTP carries them "
            "over the network unencrypted: only on a network you trust).",
        ),
    ] = False,
    home: Home = None,
) -> None:
    """Serve the web workbench: the library, jobs with live progress, and the model's
    questions and approval requests in the browser. Jobs started there run in this process,
    or on the job queue for `honyaku worker` processes when HONYAKU_QUEUE is on.

    Every request needs the token in the address printed at start (as Jupyter does): open
    that address once and the browser keeps the token in a cookie; scripts send it as
    `Authorization: Bearer TOKEN`.

    A key typed into the models page goes to this machine's key store (as `honyaku keys set`
    does), only when the workbench is served on 127.0.0.1, or with --allow-key-entry."""
    from honyaku.web import serve as serve_workbench

    def announce(url: str) -> None:
        out.print(f"honyaku is serving the workbench at [bold]{url}[/] (Ctrl-C stops)")

    if no_token:
        err.print(
            "[yellow]warning:[/] --no-token: any program or person on this machine can use "
            "the workbench, read your books and start paid jobs"
        )
    serve_workbench(
        open_honyaku(home),
        host=host,
        port=port,
        open_browser=open_browser,
        announce=announce,
        with_token=not no_token,
        allow_key_entry=allow_key_entry,
    )
