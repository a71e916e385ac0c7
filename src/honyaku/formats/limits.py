"""Size caps on what the importers will read, so a hostile or broken file fails fast.

Two kinds. The byte caps bound the input: a zip bomb declares small sizes or huge ones, so
the EPUB reader checks the declared size of every entry it opens and also stops reading once
the cap is passed, whatever the header claims. The book caps bound what the input turns into,
since a small file of repetitive markup unpacks into millions of paragraphs: they are tied to
what a real book can be, far above any one, and ``BookBudget`` charges every paragraph
against them as it is read, so such a file is refused while memory is still small. A
document's markup tags are counted before it is parsed, as its parsed tree costs some
hundred bytes per element.
"""

from __future__ import annotations

from dataclasses import dataclass

from honyaku.errors import BookFormatError

MIB = 1024 * 1024

MAX_TEXT_FILE_BYTES = 256 * MIB
"""A plain text or (X)HTML book read as one file."""

MAX_EPUB_FILE_BYTES = 1024 * MIB
"""The EPUB (zip) file itself, on disk."""

MAX_EPUB_ENTRY_BYTES = 64 * MIB
"""One uncompressed entry of an EPUB (a chapter, the package document, the nav)."""

MAX_EPUB_TOTAL_BYTES = 512 * MIB
"""All uncompressed bytes read from one EPUB together."""

MAX_EPUB_ENTRIES = 10_000
"""Entries in an EPUB's zip directory."""

MAX_HEADING_CHARS = 80
"""A text line longer than this is prose, never a chapter heading."""

MAX_BOOK_PARAGRAPHS = 2_000_000
"""Paragraphs in one book, empty ones counted. An 8 MB Japanese novel has about 84,000; the
longest web novels (some 20 million characters, a blank line between paragraphs) about a
million and a half."""

MAX_BOOK_CHARS = 64_000_000
"""Characters of text in one book: three times the longest web novels, twenty times
*War and Peace*."""

MAX_PARAGRAPH_CHARS = 100_000
"""Characters in one paragraph: five light-novel chapters. A longer one is a file without
line breaks, and no model could take it in one request anyway."""

MAX_DOCUMENT_TAGS = 1_000_000
"""Markup tags (``<`` characters) in one (X)HTML document or package file: fifteen times a
whole *War and Peace* in one HTML page, while EPUB chapters hold a few thousand."""


@dataclass(slots=True)
class BookBudget:
    """What one book has used of the book caps; the paragraph or count that passes one is
    refused with a ``BookFormatError`` naming ``source``."""

    source: str
    paragraphs: int = 0
    chars: int = 0

    def charge(self, text: str) -> None:
        """Count one paragraph of the book."""
        self.refuse_long_paragraph(len(text))
        self.add(paragraphs=1, chars=len(text))

    def add(self, *, paragraphs: int, chars: int) -> None:
        self.paragraphs += paragraphs
        self.chars += chars
        if self.paragraphs > MAX_BOOK_PARAGRAPHS:
            raise BookFormatError(
                f"{self.source}: more than {MAX_BOOK_PARAGRAPHS:,} paragraphs, more than any book"
            )
        if self.chars > MAX_BOOK_CHARS:
            raise BookFormatError(
                f"{self.source}: more than {MAX_BOOK_CHARS:,} characters of text, "
                "more than any book"
            )

    def refuse_long_paragraph(self, chars: int) -> None:
        if chars > MAX_PARAGRAPH_CHARS:
            raise BookFormatError(
                f"{self.source}: a paragraph of {chars:,} characters (more than "
                f"{MAX_PARAGRAPH_CHARS:,}); is the text without line breaks?"
            )


def refuse_excess_tags(markup: bytes, source: str) -> None:
    """Refuse a document with more tags than ``MAX_DOCUMENT_TAGS``, before it is parsed."""
    if markup.count(b"<") > MAX_DOCUMENT_TAGS:
        raise BookFormatError(
            f"{source}: more than {MAX_DOCUMENT_TAGS:,} markup tags in one document, "
            "more than any book"
        )
