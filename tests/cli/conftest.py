from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from honyaku.cli import main

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KOJIKI = BOOKS / "kojiki" / "03gendaigoyaku_kojiki.sjis.txt"
RASHOMON = BOOKS / "rashomon_akutagawa" / "127_15260.sjis.html"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"


def honyaku(
    *args: str | Path, check: bool = True, typed: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the ``honyaku`` command as typed, in this process: its exit code, standard output
    and standard error. HONYAKU_HOME comes from the test's environment. Tests that need a
    process of its own (signals, a terminal) start ``python -m honyaku`` themselves.
    ``typed`` is what the person types on standard input."""
    argv = [str(arg) for arg in args]
    with CliRunner().isolation(input=typed) as (stdout, stderr, _):
        try:
            main(argv)
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
        sys.stdout.flush()
        sys.stderr.flush()
        done = subprocess.CompletedProcess(
            argv, code, stdout.getvalue().decode(), stderr.getvalue().decode()
        )
    if check and done.returncode != 0:
        command = " ".join(argv)
        pytest.fail(f"honyaku {command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def imported(path: Path, *options: str) -> str:
    return honyaku("import", path, *options).stdout.strip().splitlines()[-1]
