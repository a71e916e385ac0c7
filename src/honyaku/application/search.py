"""Search across a book's source and translations, and replace in its translations.

A search reads the book in batches and returns its first hits with where each match is,
and how many paragraphs match in all. A replacement is previewed first: each paragraph's
selected translation and what it would become. Applied, each becomes a new version written
by hand (the one rule of ``domain.book.manual_version_text``), its inline marks carried
along the words they were on, selected, or the paragraph's version that already holds that
text, selected; the previous version stays, so selecting it
again undoes the replacement.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass

from honyaku.domain.book import TranslationKind, manual_version_text
from honyaku.domain.placeholders import carried_marks
from honyaku.domain.text_search import TextQuery, replaced, spans
from honyaku.errors import UserError
from honyaku.store import Library, LocatedParagraph

MAX_HITS = 200
MAX_REPLACEMENTS = 5000


@dataclass(frozen=True, slots=True)
class SearchHit:
    located: LocatedParagraph
    source_spans: list[tuple[int, int]]
    translation_spans: list[tuple[int, int]]


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: list[SearchHit]
    """The first ``MAX_HITS`` paragraphs that match, in book order."""
    total: int
    """Paragraphs that match in all."""


@dataclass(frozen=True, slots=True)
class Replacement:
    located: LocatedParagraph
    after: str
    """The selected translation once replaced."""


class Search:
    def __init__(self, library: Library) -> None:
        self._library = library

    async def find(
        self,
        book_id: str,
        query: TextQuery,
        *,
        source: bool = True,
        translation: bool = True,
        chapters: Collection[int] | None = None,
    ) -> SearchResult:
        """The paragraphs whose source (``source``) or selected translation (``translation``)
        the query matches."""
        pattern = query.compiled()

        def find() -> SearchResult:
            hits: list[SearchHit] = []
            total = 0
            for located in self._library.scan(book_id, chapter_numbers=chapters):
                paragraph = located.paragraph
                in_source = spans(pattern, paragraph.text) if source else []
                in_translation = spans(pattern, paragraph.translation or "") if translation else []
                if in_source or in_translation:
                    total += 1
                    if len(hits) < MAX_HITS:
                        hits.append(SearchHit(located, in_source, in_translation))
            return SearchResult(hits, total)

        return await asyncio.to_thread(find)

    async def replace(
        self,
        book_id: str,
        query: TextQuery,
        replacement: str,
        *,
        paragraphs: Collection[str] | None = None,
        chapters: Collection[int] | None = None,
        apply: bool = False,
    ) -> list[Replacement]:
        """What replacing the query's matches in the selected translations gives (only in
        ``paragraphs``, if given); with ``apply``, each written as a new selected version."""
        pattern = query.compiled()

        def replace() -> list[Replacement]:
            found = []
            for located in self._library.scan(book_id, chapter_numbers=chapters):
                paragraph = located.paragraph
                if paragraph.translation is None:
                    continue
                if paragraphs is not None and paragraph.id not in paragraphs:
                    continue
                after = replaced(pattern, replacement, paragraph.translation, regex=query.regex)
                if after != paragraph.translation:
                    found.append(Replacement(located, after))
            if len(found) > MAX_REPLACEMENTS:
                raise UserError(
                    f"{len(found)} paragraphs would change; replace at most "
                    f"{MAX_REPLACEMENTS} at once (narrow the search or the chapters)"
                )
            if apply and found:
                self._write(book_id, found)
            return found

        return await asyncio.to_thread(replace)

    def _write(self, book_id: str, found: list[Replacement]) -> None:
        texts = {}
        marks = {}
        for change in found:
            paragraph = change.located.paragraph
            try:
                texts[paragraph.id] = manual_version_text(change.after)
            except UserError as exc:
                where = change.located
                raise UserError(
                    f"chapter {where.chapter_number}, paragraph {paragraph.index + 1}: {exc}"
                ) from None
            # The text is searched clean; its marks follow the words they were on.
            before = paragraph.translation or ""
            marks[paragraph.id] = carried_marks(
                before, texts[paragraph.id], paragraph.translation_marks
            )
        self._library.add_translations(book_id, texts, kind=TranslationKind.MANUAL, marks=marks)
