"""The paragraphs the quality checks flagged, for ``honyaku check`` and the web's chapter page."""

from __future__ import annotations

from collections.abc import Collection

from honyaku.store.library import Library
from honyaku.store.quality_flags import FlaggedParagraph, QualityFlags


def flagged_paragraphs(
    library: Library, book_id: str, *, chapters: Collection[int] | None = None
) -> list[FlaggedParagraph]:
    """Paragraphs whose selected translation has warnings, in book order; only the given
    chapters (1-based) if asked."""
    library.book(book_id)  # an unknown book is an error, not an empty list
    return QualityFlags(library.database).flagged(book_id, chapter_numbers=chapters)
