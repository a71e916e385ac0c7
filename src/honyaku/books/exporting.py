"""Exporting a book from the library to a file."""

from __future__ import annotations

from pathlib import Path

from honyaku.formats import ExportFormat, RubyMode, WritingMode, write_book
from honyaku.store.library import Library


def export_book(
    library: Library,
    book_id: str,
    path: Path,
    fmt: ExportFormat,
    *,
    bilingual: bool = False,
    rebuild: bool = False,
    writing_mode: WritingMode | None = None,
    ruby: RubyMode = RubyMode.KEEP,
) -> None:
    """Write the book with its selected translations (the source where there is none).

    A book imported from an EPUB becomes that EPUB translated in place, unless ``rebuild``
    asks for a plain one built from the paragraphs.
    """
    sources = None if rebuild or fmt is not ExportFormat.EPUB else library.sources(book_id)
    write_book(
        library.get_book(book_id),
        path,
        fmt,
        bilingual=bilingual,
        sources=sources,
        writing_mode=writing_mode,
        ruby=ruby,
    )
