"""Importing a book file into the library, as every front end does it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from honyaku.domain.languages import guess_language, normalize_language
from honyaku.formats import read_book
from honyaku.store.library import Library

DEFAULT_TARGET = "zh-CN"
SAMPLE = Path(__file__).parents[1] / "samples" / "rashomon.html"


@dataclass(frozen=True, slots=True)
class ImportedBook:
    id: str
    title: str
    chapters: int
    paragraphs: int
    source_lang: str
    target_lang: str


def import_book(
    library: Library,
    path: Path,
    *,
    title: str | None = None,
    source_lang: str | None = None,
    target_lang: str = DEFAULT_TARGET,
    chapter_pattern: str | None = None,
    encoding: str | None = None,
) -> ImportedBook:
    """Read the book at ``path`` (in ``encoding``, for a text file whose encoding cannot be
    told) and store it; the source language is the book's own, else guessed from its text."""
    draft = read_book(path, chapter_pattern=chapter_pattern, encoding=encoding)
    text = "".join(p for c in draft.chapters for p in c.paragraphs)
    source = normalize_language(source_lang or draft.language or guess_language(text) or "en")
    target = normalize_language(target_lang)
    book_id = library.add_book(
        draft, source_lang=source, target_lang=target, title=title, file_name=path.name
    )
    return ImportedBook(
        book_id,
        title or draft.title,
        len(draft.chapters),
        sum(len(c.paragraphs) for c in draft.chapters),
        source,
        target,
    )


def sample_book(library: Library) -> str:
    """The sample book (Akutagawa's Rashōmon, into Chinese), imported once."""
    draft = read_book(SAMPLE)
    for book in library.list_books():
        if book.title == draft.title and book.author == draft.author:
            return book.id
    return import_book(library, SAMPLE, source_lang="ja").id
