"""Where a book's text came from, so that an export can put the translation back in its place.

A book imported from an EPUB (or an Aozora Bunko XHTML page) keeps its original file, and each
paragraph keeps a ``SourceLocation``: the document it was read from (the zip member path),
a locator of the block element that held it, and its inline markup as marks over
``Paragraph.text``. The paragraph's text is never changed by any of this: markup lives beside
the text, as offsets into it (stand-off markup); a model reads the marks inside a sentence as
placeholders (``placeholders``), and an export puts them back around the translated words. A
book read from an Aozora Bunko text file keeps its ruby and emphasis the same way, located by
the line of the file (there is no original to put them back in).

A chapter keeps the location of the heading its title was read from, when it had one, so
that the translated title lands in the heading and not only in the table of contents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

EPUB_MEDIA_TYPE = "application/epub+zip"
XHTML_MEDIA_TYPE = "application/xhtml+xml"


@dataclass(frozen=True, slots=True)
class InlineMark:
    """An inline element over ``text[start:end]`` of its paragraph.

    ``tag`` is the element's local name (``ruby``, ``em``, ``a``, ``span``, ``img``, ``br``…);
    elements without text (images, anchors, a ``<br>`` joining a heading's lines) have
    ``start == end``. A ruby's ``reading`` is the text of its ``rt``.
    """

    tag: str
    start: int
    end: int
    attributes: tuple[tuple[str, str], ...] = ()
    reading: str | None = None

    def covers(self, length: int) -> bool:
        """Whether the mark spans the whole of a text of ``length`` characters."""
        return self.start == 0 and self.end == length > 0


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """A paragraph's place in the original file.

    ``locator`` names the block element within ``document`` and the line inside it:
    ``/1/0/4#0`` is the first paragraph read from the fifth element child of the first
    child of the second child of the root (indices count elements only).
    """

    document: str
    locator: str
    marks: tuple[InlineMark, ...] = ()


@dataclass(frozen=True, slots=True)
class OriginalFile:
    """The file a book was imported from, kept whole."""

    name: str
    media_type: str
    data: bytes = field(repr=False)

    @property
    def is_epub(self) -> bool:
        return self.media_type == EPUB_MEDIA_TYPE


@dataclass(frozen=True, slots=True)
class BookSources:
    """Everything an in-place export needs beyond the book: its original and the locations."""

    original: OriginalFile
    paragraphs: Mapping[str, SourceLocation]
    """Paragraph id -> where the paragraph came from."""
    titles: Mapping[str, SourceLocation]
    """Chapter id -> the heading its title came from."""
