"""Exporting a book from the library to a file."""

from __future__ import annotations

from pathlib import Path

from honyaku.formats import ExportFormat, write_book
from honyaku.store.library import Library


def export_book(
    library: Library, book_id: str, path: Path, fmt: ExportFormat, *, bilingual: bool = False
) -> None:
    """Write the book with its selected translations (the source where there is none)."""
    write_book(library.get_book(book_id), path, fmt, bilingual=bilingual)
