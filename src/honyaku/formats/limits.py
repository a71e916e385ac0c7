"""Size caps on what the importers will read, so a hostile or broken file fails fast.

A zip bomb declares small sizes or huge ones; either way the EPUB reader checks the declared
size of every entry it opens and also stops reading once the cap is passed, whatever the
header claims.
"""

from __future__ import annotations

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
