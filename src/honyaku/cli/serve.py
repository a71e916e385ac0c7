"""``honyaku serve``: the web workbench."""

from __future__ import annotations

from typing import Annotated

import typer

from honyaku.cli.console import out
from honyaku.cli.options import Home, open_honyaku


def serve(
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on. Anything but loopback needs the token printed at "
            "start for every request."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port; 0 picks a free one.")] = 8000,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the workbench in the web browser.")
    ] = False,
    home: Home = None,
) -> None:
    """Serve the web workbench: the library, jobs with live progress, and the model's
    questions and approval requests in the browser. Jobs started there run in this process."""
    from honyaku.web import serve as serve_workbench

    def announce(url: str) -> None:
        out.print(f"honyaku is serving the workbench at [bold]{url}[/] (Ctrl-C stops)")

    serve_workbench(
        open_honyaku(home), host=host, port=port, open_browser=open_browser, announce=announce
    )
