from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KOJIKI = BOOKS / "kojiki" / "03gendaigoyaku_kojiki.sjis.txt"
RASHOMON = BOOKS / "rashomon_akutagawa" / "127_15260.sjis.html"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"


def honyaku(
    *args: str | Path, check: bool = True, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the real ``honyaku`` command; HONYAKU_HOME comes from the test's environment."""
    done = subprocess.run(
        [sys.executable, "-m", "honyaku", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=None,
    )
    if check and done.returncode != 0:
        command = " ".join(map(str, args))
        pytest.fail(f"honyaku {command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def imported(path: Path, *options: str) -> str:
    return honyaku("import", path, *options).stdout.strip().splitlines()[-1]
