"""A new edition of a book in the library: the file read as an import reads it, matched
against the book (``domain.edition``), and written over it in one transaction.

Every translation that still fits is kept: unchanged paragraphs keep their versions and
selection, changed ones keep theirs (the selected one stale), and what the edition leaves
out stays in the book's history with its versions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from honyaku.domain.edition import EditionSummary, match_edition
from honyaku.errors import UserError
from honyaku.formats import read_book
from honyaku.store.editions import EditionFile, EditionRecord, Editions
from honyaku.store.library import Library


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


def update_book(
    library: Library,
    book_id: str,
    path: Path,
    *,
    dry_run: bool = False,
    force: bool = False,
    chapter_pattern: str | None = None,
    encoding: str | None = None,
) -> UpdatedBook:
    """Make the file at ``path`` the book's new edition, or with ``dry_run`` only say what it
    would change. A file that holds almost nothing of the book is refused unless ``force``."""
    draft = read_book(path, chapter_pattern=chapter_pattern, encoding=encoding)
    book = library.get_book(book_id)
    match = match_edition(book, draft)
    summary = match.summary
    if not summary.is_plausible and not force:
        raise UserError(_refusal(path.name, book.title, summary))
    if dry_run:
        return UpdatedBook(book.id, book.title, summary, None)
    file = EditionFile(path.name, _digest(path), draft.original)
    number = Editions(library.database).write(book.id, match, file)
    return UpdatedBook(book.id, book.title, summary, number)


def book_history(library: Library, book_id: str) -> BookHistory:
    editions = Editions(library.database)
    return BookHistory(editions.history(book_id), editions.gone_paragraphs(book_id))


def _refusal(name: str, title: str, summary: EditionSummary) -> str:
    found, total = summary.found, summary.book_paragraphs
    new = summary.paragraphs.new
    return (
        f"{name} does not look like an edition of «{title}»: only {found} of the book's "
        f"{total} paragraphs ({summary.found_share:.0%}) are in it, and {new} of its "
        f"{found + new} paragraphs are new; --force takes it as the new edition anyway"
    )


def _digest(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()
