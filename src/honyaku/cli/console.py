"""How the command line talks to people: one console for output, one for errors."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape

from honyaku.errors import HonyakuError, UserError

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

EXIT_USER_ERROR = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130


@contextmanager
def error_boundary() -> Iterator[None]:
    """Turn honyaku's errors into one red line and an exit code.

    ``HONYAKU_DEBUG=1`` lets them through with their traceback.
    """
    if os.environ.get("HONYAKU_DEBUG") == "1":
        yield
        return
    try:
        yield
    except UserError as exc:
        hint = f"; {exc.terminal_hint}" if exc.terminal_hint else ""
        err.print(f"[red]error:[/] {escape(str(exc) + hint)}")
        sys.exit(EXIT_USER_ERROR)
    except HonyakuError as exc:
        hint = f"; {exc.terminal_hint}" if exc.terminal_hint else ""
        err.print(f"[red]error:[/] {escape(str(exc) + hint)}")
        sys.exit(EXIT_FAILURE)
