"""Book import and export: TXT (with Aozora Bunko notation), (X)HTML and EPUB in; JSON, TXT,
Markdown and EPUB out; an imported EPUB out again as itself, translated in place.

Everything a caller needs is ``read_book``, ``write_book``, ``ExportFormat`` and the in-place
options ``WritingMode`` and ``RubyMode``. Bad input raises ``honyaku.errors.BookFormatError``
with a one-line message; no zipfile, lxml or decoding exception leaves this package.

importing.py      ``read_book``: a file to a ``BookDraft``, its format told from its content
exporting.py      ``write_book``: a stored book to JSON, TXT, Markdown or EPUB, written atomically
limits.py         size caps on what the importers read, so a hostile file fails fast
encoding.py       a file's bytes turned into text: BOMs, declared charsets, a guess for legacy ones
western.py        Windows-1252 text told from the other single-byte encodings
plaintext.py      plain text books: one line a paragraph, chapters at heading lines
headings.py       chapter heading lines in plain text (第N章, Chapter N, the user's own)
aozora.py         Aozora Bunko notation: ruby, notes, gaiji, headings, header and colophon
chapters.py       headings and paragraphs made chapters, by the rules all formats share
html_book.py      a book from one (X)HTML file, such as an Aozora Bunko XHTML page
markup.py         safe parsing of the XML and HTML inside books
xhtml.py          paragraphs out of an (X)HTML tree: blocks, line breaks, ruby, whitespace
locators.py       where each paragraph of a document came from, noted as its text is extracted
epub_archive.py   an EPUB's zip archive, read under the size caps
epub_package.py   an EPUB's package: metadata, spine, table of contents, landmarks
epub_reader.py    a book from an EPUB 2 or 3 file, chapters from its table of contents
epub_writer.py    a book written as an EPUB 3 that epubcheck accepts
epub_inplace.py   an imported EPUB exported as itself, its text translated in place
placement.py      translations put where their paragraphs came from, in one content document
inline_marks.py   inline elements put back around the words a translation's marks cover
writing_mode.py   the direction a translated EPUB is read in: vertical or horizontal
renderers.py      books rendered as text: the JSON export, plain text and Markdown
glossary_file.py  glossary files in and out: CSV, TSV, GalTransl's dictionary lines
"""

from honyaku.formats.epub_inplace import RubyMode
from honyaku.formats.exporting import ExportFormat, write_book
from honyaku.formats.importing import read_book
from honyaku.formats.writing_mode import WritingMode

__all__ = ["ExportFormat", "RubyMode", "WritingMode", "read_book", "write_book"]
