"""The paragraphs to look at again, for ``honyaku check`` and the web's chapter page: those
the quality checks flagged, and those whose translation a new edition made stale."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from honyaku.domain.quality import QualityWarning
from honyaku.store.library import Library
from honyaku.store.quality_flags import FlaggedParagraph, QualityFlags

STALE_TRANSLATION = "STALE_TRANSLATION"


def flagged_paragraphs(
    library: Library, book_id: str, *, chapters: Collection[int] | None = None
) -> list[FlaggedParagraph]:
    """Paragraphs whose selected translation has warnings or is stale, in book order; only the
    given chapters (1-based) if asked."""
    flagged = QualityFlags(library.database).flagged(book_id, chapter_numbers=chapters)
    found = {p.paragraph_id: p for p in flagged}
    for paragraph in _stale(library, book_id, chapters):
        if before := found.get(paragraph.paragraph_id):
            paragraph = replace(before, warnings=(*paragraph.warnings, *before.warnings))
        found[paragraph.paragraph_id] = paragraph
    return sorted(found.values(), key=lambda p: (p.chapter_number, p.index))


def _stale(
    library: Library, book_id: str, chapters: Collection[int] | None
) -> list[FlaggedParagraph]:
    book = library.get_book(book_id, chapter_numbers=chapters)
    return [
        FlaggedParagraph(
            chapter.order,
            chapter.id,
            p.id,
            p.index,
            p.text,
            p.translation or "",
            (
                QualityWarning(
                    STALE_TRANSLATION,
                    f"a new edition changed the source since; it was: {p.previous_source}",
                    p.id,
                ),
            ),
        )
        for chapter in book.chapters
        for p in chapter.paragraphs
        if p.is_stale
    ]
