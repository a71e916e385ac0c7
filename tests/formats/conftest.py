"""Fixtures for the formats tests: a draft-to-book builder and hand-made EPUBs (epubcheck is
the root conftest's, the jobs tests check their exports too)."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from honyaku.domain.book import Book, BookDraft, Chapter, Paragraph
from honyaku.domain.ids import new_id

TranslateFn = Callable[[int, int, str], str | None]


def build_book(
    draft: BookDraft,
    *,
    source_lang: str = "ja",
    target_lang: str = "zh-CN",
    translate: TranslateFn | None = None,
    translate_titles: bool = False,
) -> Book:
    """A stored-looking ``Book`` from a draft, with fresh ids and optional translations.

    ``translate(chapter_number, paragraph_index, text)`` gives a paragraph's translation.
    """
    taken: set[str] = set()

    def fresh() -> str:
        value = new_id(taken)
        taken.add(value)
        return value

    chapters = []
    for order, chapter in enumerate(draft.chapters):
        paragraphs = tuple(
            Paragraph(fresh(), index, text, translate(order, index, text) if translate else None)
            for index, text in enumerate(chapter.paragraphs)
        )
        translated_title = f"【訳】{chapter.title}" if translate_titles else None
        chapters.append(Chapter(fresh(), order, chapter.title, translated_title, paragraphs))
    return Book(
        id=fresh(),
        title=draft.title,
        author=draft.author,
        source_lang=source_lang,
        target_lang=target_lang,
        chapters=tuple(chapters),
    )


@pytest.fixture(scope="session")
def book_from() -> Callable[..., Book]:
    """``build_book``; session-scoped so that hypothesis tests may use it too."""
    return build_book


CONTAINER_XML = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="{opf}" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>"""


def write_epub_zip(
    path: Path,
    files: dict[str, str | bytes],
    *,
    opf_path: str | None = "OEBPS/content.opf",
    mimetype_first: bool = True,
) -> Path:
    """A hand-made EPUB zip, broken in whatever way the test needs."""
    entries: list[tuple[str, str | bytes]] = list(files.items())
    if opf_path is not None:
        entries.insert(0, ("META-INF/container.xml", CONTAINER_XML.format(opf=opf_path)))
    mimetype = ("mimetype", "application/epub+zip")
    entries = [mimetype, *entries] if mimetype_first else [*entries, mimetype]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries:
            archive.writestr(name, content)
    return path


@pytest.fixture
def make_epub() -> Callable[..., Path]:
    return write_epub_zip
