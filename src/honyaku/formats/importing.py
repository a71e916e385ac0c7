"""``read_book``: a file on disk to a ``BookDraft``, whatever its format.

The format is told from the content, never from the file name: a zip is an EPUB, markup
(an XML declaration, a doctype or an html tag) is an (X)HTML page, anything else is text.
"""

from __future__ import annotations

import codecs
import re
import stat
import zipfile
import zlib
from pathlib import Path

from lxml import etree

from honyaku.domain.book import BookDraft
from honyaku.errors import BookFormatError
from honyaku.formats.epub_reader import read_epub
from honyaku.formats.html_book import read_html_book
from honyaku.formats.limits import MAX_TEXT_FILE_BYTES, MIB
from honyaku.formats.plaintext import read_text_book

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
SNIFF_BYTES = 1024

_MARKUP_START = re.compile(rb"\s*<(?:\?xml|!doctype\s+html|html[\s>])", re.IGNORECASE)
_UTF16_MARKUP = ("<?xml".encode("utf-16-le"), "<?xml".encode("utf-16-be"))


def read_book(
    path: Path, *, chapter_pattern: str | None = None, encoding: str | None = None
) -> BookDraft:
    """Read the book at ``path`` (EPUB, (X)HTML or text).

    ``chapter_pattern`` is an extra regex for chapter heading lines in text files.
    ``encoding`` (a codec name: cp1252, shift_jis, gb18030 ...) is how a text or (X)HTML file
    is decoded when its encoding cannot be told from its bytes; an EPUB's documents declare
    their own, and it does not apply to them.
    Raises ``BookFormatError`` with a one-line message when the file cannot be a book.
    """
    path = Path(path)
    source = path.name or str(path)
    try:
        return _read(path, source, chapter_pattern, encoding)
    except BookFormatError as error:
        message = " ".join(str(error).split())
        if message != str(error):
            raise BookFormatError(message) from None
        raise
    except RecursionError:
        raise BookFormatError(f"{source}: markup nested too deeply to be a book") from None
    except (zipfile.BadZipFile, zlib.error, etree.LxmlError, UnicodeError) as error:
        # The readers translate these where they arise; this is the net under them.
        detail = " ".join(str(error).split())
        raise BookFormatError(f"{source}: cannot be read as a book ({detail})") from None


def _read(path: Path, source: str, chapter_pattern: str | None, encoding: str | None) -> BookDraft:
    head = _head(path, source)
    if head.startswith(ZIP_MAGIC):
        return read_epub(path, source)
    raw = _read_capped(path, source)
    if _looks_like_markup(raw[:SNIFF_BYTES]):
        return read_html_book(raw, name=source, stem=path.stem, encoding=encoding)
    return read_text_book(
        raw, name=source, stem=path.stem, chapter_pattern=chapter_pattern, encoding=encoding
    )


def _head(path: Path, source: str) -> bytes:
    try:
        _refuse_special_file(path, source)
        with path.open("rb") as file:
            return file.read(SNIFF_BYTES)
    except IsADirectoryError:
        raise BookFormatError(f"{source}: a directory, not a book file") from None
    except FileNotFoundError:
        raise BookFormatError(f"{source}: no such file") from None
    except OSError as error:
        raise BookFormatError(f"{source}: cannot be read ({error.strerror})") from None


def _refuse_special_file(path: Path, source: str) -> None:
    """Opening a named pipe waits for a writer, and a device never ends: neither is a book."""
    mode = path.stat().st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise BookFormatError(f"{source}: a pipe or socket, not a book file")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise BookFormatError(f"{source}: a device, not a book file")


def _read_capped(path: Path, source: str) -> bytes:
    with path.open("rb") as file:
        raw = file.read(MAX_TEXT_FILE_BYTES + 1)
    if len(raw) > MAX_TEXT_FILE_BYTES:
        raise BookFormatError(
            f"{source}: larger than {MAX_TEXT_FILE_BYTES // MIB} MB, too large for a text book"
        )
    return raw


def _looks_like_markup(head: bytes) -> bool:
    head = head.removeprefix(codecs.BOM_UTF8)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return any(marker in head[:64] for marker in _UTF16_MARKUP)
    return _MARKUP_START.match(head) is not None
