"""The library keeps a book's original file and where its text came from (migration 0007)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text

from honyaku.formats import read_book
from honyaku.store import Database, Library

from .conftest import migrate_to

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"
KOJIKI = BOOKS / "kojiki" / "03gendaigoyaku_kojiki.utf8.txt"


def test_an_imported_epub_keeps_its_bytes_and_each_paragraphs_place(library: Library) -> None:
    draft = read_book(KUSAMAKURA)
    book_id = library.add_book(draft, source_lang="ja", target_lang="zh-CN")

    sources = library.sources(book_id)
    book = library.whole_book(book_id)

    assert sources is not None
    assert sources.original.data == KUSAMAKURA.read_bytes()
    assert sources.original.name == KUSAMAKURA.name
    for stored, read in zip(book.chapters, draft.chapters, strict=True):
        assert sources.titles[stored.id] == read.title_source
        for paragraph in stored.paragraphs:
            assert sources.paragraphs.get(paragraph.id) == read.source_of(paragraph.index)


def test_a_text_book_has_no_original_to_translate_in_place(library: Library) -> None:
    book_id = library.add_book(read_book(KOJIKI), source_lang="ja", target_lang="zh-CN")

    assert library.sources(book_id) is None


def _database_at_revision_0004(url: str) -> None:
    """A library as honyaku left it at 0004, long before sources were kept, with one book."""
    migrate_to(url, "0004")
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO books VALUES ('0a1d0b0c', '古い本', NULL, 'ja', 'zh-CN', '{}', "
                "'2024-01-01 00:00:00')"
            )
        )
        connection.execute(
            text(
                "INSERT INTO chapters (book_id, id, position, title) VALUES ('0a1d0b0c', "
                "'c0000001', 0, '第一章')"
            )
        )
        connection.execute(
            text(
                "INSERT INTO paragraphs (book_id, chapter_pk, id, position, text) VALUES "
                "('0a1d0b0c', 1, 'a0000001', 0, '昔の文。')"
            )
        )
    engine.dispose()


def test_a_book_stored_before_sources_were_kept_opens_unchanged_with_none(
    empty_database_url: str,
) -> None:
    _database_at_revision_0004(empty_database_url)

    database = Database.open(url=empty_database_url, migrate=True)
    library = Library(database)
    try:
        book = library.whole_book("0a1d0b0c")
        sources = library.sources("0a1d0b0c")
    finally:
        database.close()

    assert [p.text for p in book.chapters[0].paragraphs] == ["昔の文。"]
    assert book.translated_title is None
    assert sources is None
