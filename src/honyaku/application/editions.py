"""A book's new edition: the file read as an import reads it, matched against the book
(``domain.edition``), and written over it in one transaction; the book's editions so far.

Every translation that still fits is kept: unchanged paragraphs keep their versions and
selection, changed ones keep theirs (the selected one stale), and what the edition leaves
out stays in the book's history with its versions.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from pathlib import Path

from honyaku.domain.edition import EditionSummary, match_edition
from honyaku.errors import UserError
from honyaku.formats import read_book
from honyaku.store import EditionFile, EditionRecord, Stores


@dataclass(frozen=True, slots=True)
class UpdatedBook:
    id: str
    title: str
    summary: EditionSummary
    edition: int | None
    """The number of the edition written; ``None`` for a dry run."""


@dataclass(frozen=True, slots=True)
class BookHistory:
    editions: list[EditionRecord]
    """First to latest; the import is edition 1."""
    gone_paragraphs: int
    """Paragraphs with text that editions left out, kept with their versions."""


class Editions:
    def __init__(self, stores: Stores) -> None:
        self._library = stores.library
        self._editions = stores.editions

    async def update(
        self,
        book_id: str,
        path: Path,
        *,
        dry_run: bool = False,
        force: bool = False,
        chapter_pattern: str | None = None,
        encoding: str | None = None,
    ) -> UpdatedBook:
        """Make the file at ``path`` the book's new edition, or with ``dry_run`` only say
        what it would change. A file that holds almost nothing of the book is refused unless
        ``force``."""
        return await asyncio.to_thread(
            self._update,
            book_id,
            path,
            dry_run=dry_run,
            force=force,
            chapter_pattern=chapter_pattern,
            encoding=encoding,
        )

    async def history(self, book_id: str) -> BookHistory:
        def history() -> BookHistory:
            return BookHistory(
                self._editions.history(book_id), self._editions.gone_paragraphs(book_id)
            )

        return await asyncio.to_thread(history)

    def _update(
        self,
        book_id: str,
        path: Path,
        *,
        dry_run: bool,
        force: bool,
        chapter_pattern: str | None,
        encoding: str | None,
    ) -> UpdatedBook:
        draft = read_book(path, chapter_pattern=chapter_pattern, encoding=encoding)
        book = self._library.whole_book(book_id)
        match = match_edition(book, draft)
        summary = match.summary
        if not summary.is_plausible and not force:
            raise _refusal(path.name, book.title, summary)
        if dry_run:
            return UpdatedBook(book.id, book.title, summary, None)
        file = EditionFile(path.name, _digest(path), draft.original)
        number = self._editions.write(book.id, match, file)
        return UpdatedBook(book.id, book.title, summary, number)


def _refusal(name: str, title: str, summary: EditionSummary) -> UserError:
    found, new = summary.found, summary.paragraphs.new
    return UserError(
        "{name} does not look like an edition of «{title}»: only {found} of the book's "
        "{total} paragraphs ({share}) are in it, and {new} of its {paragraphs} paragraphs "
        "are new",
        terminal_hint="--force takes it as the new edition anyway",
        name=name,
        title=title,
        found=found,
        total=summary.book_paragraphs,
        share=f"{summary.found_share:.0%}",
        new=new,
        paragraphs=found + new,
    )


def _digest(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()
