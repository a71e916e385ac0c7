"""Book import and export: TXT (with Aozora Bunko notation), (X)HTML and EPUB in; JSON, TXT,
Markdown and EPUB out; an imported EPUB out again as itself, translated in place.

Everything a caller needs is ``read_book``, ``write_book``, ``ExportFormat`` and the in-place
options ``WritingMode`` and ``RubyMode``. Bad input raises ``honyaku.errors.BookFormatError``
with a one-line message; no zipfile, lxml or decoding exception leaves this package.
"""

from honyaku.formats.epub_inplace import RubyMode
from honyaku.formats.exporting import ExportFormat, write_book
from honyaku.formats.importing import read_book
from honyaku.formats.writing_mode import WritingMode

__all__ = ["ExportFormat", "RubyMode", "WritingMode", "read_book", "write_book"]
