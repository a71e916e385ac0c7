"""Book import and export: TXT (with Aozora Bunko notation), (X)HTML and EPUB in; JSON, TXT,
Markdown and EPUB out.

Everything a caller needs is ``read_book``, ``write_book`` and ``ExportFormat``. Bad input
raises ``honyaku.errors.BookFormatError`` with a one-line message; no zipfile, lxml or
decoding exception leaves this package.
"""

from honyaku.formats.exporting import ExportFormat, write_book
from honyaku.formats.importing import read_book

__all__ = ["ExportFormat", "read_book", "write_book"]
