"""``write_book``: a stored ``Book`` to JSON, TXT, Markdown or EPUB, written atomically.

The file is written next to its destination under a temporary name, flushed to disk and
then moved into place with ``os.replace``, so a reader never sees half a file and a failed
export leaves any earlier file untouched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

from honyaku.domain.book import Book
from honyaku.domain.sources import BookSources
from honyaku.errors import UserError
from honyaku.formats.epub_inplace import InPlaceOptions, RubyMode, write_epub_in_place
from honyaku.formats.epub_writer import write_epub
from honyaku.formats.renderers import render_json, render_markdown, render_text
from honyaku.formats.writing_mode import WritingMode

NEW_FILE_MODE = 0o644


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


def _write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    try:
        _replace_with(path, write)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _replace_with(path: Path, write: Callable[[BinaryIO], object]) -> None:
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "it is a folder; give a file name")
    mode = path.stat().st_mode & 0o777 if path.exists() else NEW_FILE_MODE
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed before the rename below
        dir=path.parent, prefix=f".{path.name}.", suffix=".part", delete=False
    )
    try:
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        # Temporary files are private (0600); the export gets ordinary permissions.
        os.chmod(handle.name, mode)
        os.replace(handle.name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise
