"""``write_book``: a stored ``Book`` to JSON, TXT, Markdown or EPUB, written atomically.

The file is written next to its destination under a temporary name, flushed to disk and
then moved into place with ``os.replace``, so a reader never sees half a file and a failed
export leaves any earlier file untouched. The temporary file goes on any exit Python sees (an
error, Ctrl-C, the interpreter ending under an export thread); one left by a process killed
outright (``kill -9``, a power cut) carries that process's id in its name, and the next export
to the same destination removes it once that process is gone.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import functools
import os
import tempfile
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import IO

from honyaku.domain.book import Book
from honyaku.domain.sources import BookSources
from honyaku.errors import UserError
from honyaku.formats.epub_inplace import InPlaceOptions, RubyMode, write_epub_in_place
from honyaku.formats.epub_writer import write_epub
from honyaku.formats.renderers import render_json, render_markdown, render_text
from honyaku.formats.writing_mode import WritingMode
from honyaku.processes import is_running

NEW_FILE_MODE = 0o644
PART_SUFFIX = ".part"


class ExportFormat(StrEnum):
    JSON = "json"
    TXT = "txt"
    MD = "md"
    EPUB = "epub"


def write_book(
    book: Book,
    path: Path,
    fmt: ExportFormat,
    *,
    bilingual: bool = False,
    sources: BookSources | None = None,
    writing_mode: WritingMode | None = None,
    ruby: RubyMode = RubyMode.KEEP,
) -> None:
    """Write ``book`` to ``path`` in ``fmt``; ``bilingual`` shows source and translation.

    JSON always carries both, so ``bilingual`` changes nothing there. An EPUB whose
    ``sources`` hold the original EPUB is that EPUB translated in place, in ``writing_mode``
    (default: by the target language), with the source's ruby kept or dropped in bilingual
    output; without them it is rebuilt from the paragraphs.
    """
    fmt = ExportFormat(fmt)
    if fmt is ExportFormat.EPUB and sources is not None and sources.original.is_epub:
        options = InPlaceOptions(bilingual=bilingual, writing_mode=writing_mode, ruby=ruby)
        _write_atomically(
            Path(path), lambda file: write_epub_in_place(book, sources, file, options)
        )
        return
    if fmt is ExportFormat.EPUB:
        _write_atomically(Path(path), lambda file: write_epub(book, file, bilingual=bilingual))
        return
    if fmt is ExportFormat.JSON:
        text = render_json(book)
    elif fmt is ExportFormat.TXT:
        text = render_text(book, bilingual=bilingual)
    else:
        text = render_markdown(book, bilingual=bilingual)
    data = text.encode("utf-8")
    _write_atomically(Path(path), lambda file: file.write(data))


def _write_atomically(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    try:
        _replace_with(path, write)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _replace_with(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "it is a folder; give a file name")
    mode = path.stat().st_mode & 0o777 if path.exists() else NEW_FILE_MODE
    _remove_stale_parts(path)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed before the rename below
        dir=path.parent,
        prefix=f"{_part_prefix(path)}{os.getpid()}.",
        suffix=PART_SUFFIX,
        delete=False,
    )
    # A partial of its own, so that unregistering it leaves other exports' cleanups alone.
    remove = functools.partial(_remove_quietly, handle.name)
    atexit.register(remove)
    try:
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        # Temporary files are private (0600); the export gets ordinary permissions.
        os.chmod(handle.name, mode)
        os.replace(handle.name, path)
    except BaseException:
        remove()
        raise
    finally:
        atexit.unregister(remove)


def _part_prefix(path: Path) -> str:
    return f".{path.name}."


def _remove_stale_parts(path: Path) -> None:
    """Remove temporary files of earlier exports to ``path`` whose process is gone."""
    prefix = _part_prefix(path)
    with contextlib.suppress(OSError), os.scandir(path.parent) as entries:
        for entry in entries:
            if not (entry.name.startswith(prefix) and entry.name.endswith(PART_SUFFIX)):
                continue
            if _is_stale(entry.name[len(prefix) : -len(PART_SUFFIX)]):
                _remove_quietly(entry.path)


def _is_stale(middle: str) -> bool:
    """``PID.RANDOM`` from a process that is gone, or ``RANDOM`` alone (from before names
    carried the process); anything else belongs to another destination."""
    parts = middle.split(".")
    if len(parts) == 1:
        return True
    return len(parts) == 2 and parts[0].isdigit() and not is_running(int(parts[0]))


def _remove_quietly(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)
