"""Every module of honyaku imports in a plain install, without ``honyaku[test]`` or
``honyaku[postgres]``: a module that needs an extra imports it where it is used.

The plain install is a virtualenv whose site-packages holds honyaku (as ``pip install -e .``
installed it here) and its runtime dependencies alone, read from the installed distributions'
metadata, recursively, and linked file by file from this environment: what ``pip install -e .``
would put there, in about ten seconds instead of the one to four minutes pip took here to
resolve, fetch and unpack it again.
"""

from __future__ import annotations

import json
import os
import subprocess
import venv
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import honyaku

EXTRAS_ONLY = ("procrastinate", "psycopg", "pytest", "pytest_postgresql", "port_for", "mypy")
"""Packages only the extras bring: none may be importable in the plain install."""
IMPORT_EVERY_MODULE = """
import importlib, importlib.util, json, pkgutil, sys
import honyaku
failed = {}
def record(name):
    failed[name] = f"{type(sys.exc_info()[1]).__name__}: {sys.exc_info()[1]}"
walked = []
for module in pkgutil.walk_packages(honyaku.__path__, "honyaku.", onerror=record):
    walked.append(module.name)
    try:
        importlib.import_module(module.name)
    except BaseException as error:  # SystemExit too: importing must run nothing
        failed[module.name] = f"{type(error).__name__}: {error}"
extras = [name for name in sys.argv[1:] if importlib.util.find_spec(name) is not None]
print(json.dumps({"package": honyaku.__path__[0], "walked": walked, "failed": failed,
                  "extras": extras}))
"""


@pytest.fixture(scope="module")
def plain_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The Python of a plain install of honyaku, without the extras."""
    return _plain_install(tmp_path_factory.mktemp("plain"))


# About 10 s of work (linking 13,000 files, importing 200 modules and their dependencies in a
# fresh process), which a loaded machine may stretch past the usual bound.
@pytest.mark.timeout(300)
def test_every_module_imports_without_the_extras(plain_python: str, tmp_path: Path) -> None:
    run = _run(plain_python, tmp_path, IMPORT_EVERY_MODULE, *EXTRAS_ONLY)

    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout.splitlines()[-1])
    assert found["extras"] == []
    assert found["package"] == honyaku.__path__[0]
    assert sorted(found["walked"]) == sorted(_modules(Path(honyaku.__path__[0])))
    assert found["failed"] == {}


@pytest.mark.timeout(300)
def test_a_job_queue_without_its_extra_says_what_to_install(
    plain_python: str, tmp_path: Path
) -> None:
    opening = "from honyaku.queue import JobQueue; JobQueue.over('postgresql+psycopg://db/lib')"

    run = _run(plain_python, tmp_path, opening)

    assert run.returncode == 1
    assert run.stderr.splitlines()[-1] == (
        "honyaku.errors.ConfigError: the job queue needs procrastinate: "
        "pip install 'honyaku[postgres]'"
    )


def _run(
    python: str, folder: Path, script: str, *arguments: str
) -> subprocess.CompletedProcess[str]:
    """``script`` run by ``python`` isolated (-I): no PYTHONPATH, no user site, not the current
    folder."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [python, "-I", "-c", script, *arguments],
        capture_output=True,
        text=True,
        cwd=folder,
        env=environment,
        timeout=240,
    )


def _plain_install(folder: Path) -> str:
    """A virtualenv holding honyaku and its runtime dependencies alone; its Python."""
    venv.create(folder, with_pip=False)
    python = folder / "bin" / "python"
    site_packages = subprocess.run(
        [python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    for distribution in _runtime_distributions():
        _link_files(distribution, Path(site_packages))
    return str(python)


def _runtime_distributions() -> list[metadata.Distribution]:
    """honyaku and what it needs to run, recursively: each requirement whose marker holds
    with no extra, or with an extra its dependant asked for (``psycopg[binary]``)."""
    found: dict[str, metadata.Distribution] = {}
    asked: dict[str, set[str]] = {}
    wanted: list[tuple[str, frozenset[str]]] = [("honyaku", frozenset())]
    while wanted:
        name, extras = wanted.pop()
        key = canonicalize_name(name)
        if key in asked and extras <= asked[key]:
            continue
        asked.setdefault(key, set()).update(extras)
        distribution = found.setdefault(key, metadata.distribution(name))
        for line in distribution.requires or ():
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in ("", *extras)):
                wanted.append((requirement.name, frozenset(requirement.extras)))
    return list(found.values())


def _link_files(distribution: metadata.Distribution, site_packages: Path) -> None:
    """The distribution's installed files (its RECORD), each linked into ``site_packages``;
    its scripts (outside site-packages) left out."""
    files = distribution.files
    assert files is not None, f"{distribution.name} lists no files"
    for file in files:
        source = Path(str(distribution.locate_file(file)))
        if file.parts[0] == ".." or not source.is_file():
            continue
        target = site_packages / file
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.symlink_to(source)


def _modules(package: Path) -> list[str]:
    """Every module of the package, from its files: each ``.py`` in a folder that is a
    package (``__init__.py``) all the way up; ``__init__`` is its folder's package."""
    names = []
    for path in package.rglob("*.py"):
        folders = path.relative_to(package.parent).parent
        chain = [package.parent / Path(*folders.parts[: n + 1]) for n in range(len(folders.parts))]
        if all((folder / "__init__.py").is_file() for folder in chain):
            parts = [*folders.parts, path.stem] if path.stem != "__init__" else [*folders.parts]
            names.append(".".join(parts))
    return [name for name in names if name != package.name]
