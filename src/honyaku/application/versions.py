"""A paragraph's versions: read, written by hand under one rule, selected, compared."""

from __future__ import annotations

import asyncio

from honyaku.application.heavy_work import run_heavy
from honyaku.domain.book import Paragraph
from honyaku.domain.diff import DiffPart, diff_texts
from honyaku.errors import NotFoundError
from honyaku.store import Library, Version


class Versions:
    def __init__(self, library: Library) -> None:
        self._library = library

    async def all(self, book_id: str, paragraph_id: str) -> list[Version]:
        """Every version of the paragraph, oldest first."""
        return await asyncio.to_thread(self._library.versions, book_id, paragraph_id)

    async def shown(self, book_id: str, paragraph_id: str) -> tuple[Paragraph, list[Version]]:
        """The paragraph (its text and inline marks) and every version of it, oldest first:
        what a page draws them with."""
        return await asyncio.to_thread(self._library.shown_versions, book_id, paragraph_id)

    async def write(self, book_id: str, paragraph_id: str, text: str) -> list[Version]:
        """A version written by hand (``domain.book.manual_version`` says what may be: one
        line, the paragraph's placeholders kept as a model must keep them, or none written);
        it is selected, the others kept. A text the paragraph already holds selects that
        version instead of adding it again. Every version after."""
        return await asyncio.to_thread(
            self._library.add_manual_version, book_id, paragraph_id, text
        )

    async def select(self, book_id: str, paragraph_id: str, version_id: int) -> list[Version]:
        """Make one of the paragraph's versions the one the book uses. Every version after."""

        def select() -> list[Version]:
            self._library.select_version(book_id, paragraph_id, version_id)
            return self._library.versions(book_id, paragraph_id)

        return await asyncio.to_thread(select)

    async def diff(
        self, book_id: str, paragraph_id: str, old_id: int, new_id: int
    ) -> list[DiffPart]:
        """What changed from one of the paragraph's versions to another."""

        def diff() -> list[DiffPart]:
            texts = {v.id: v.text for v in self._library.versions(book_id, paragraph_id)}
            for wanted in (old_id, new_id):
                if wanted not in texts:
                    raise NotFoundError(
                        "paragraph {paragraph_id} has no version {version_id}",
                        paragraph_id=paragraph_id,
                        version_id=wanted,
                    )
            return diff_texts(texts[old_id], texts[new_id])

        # Two long versions take seconds to compare.
        return await run_heavy(diff)
