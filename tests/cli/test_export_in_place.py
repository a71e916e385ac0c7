"""``honyaku export`` of a book imported from EPUB: the original in place, or rebuilt."""

from __future__ import annotations

import zipfile
from pathlib import Path

from lxml import etree

from honyaku.domain import TranslationKind
from honyaku.store import Database, Library

from .conftest import KUSAMAKURA, honyaku, imported

OPF = "OPS/package.opf"
FIRST_CHAPTER = "OPS/xhtml/一.xhtml"


def _translate_first_chapter(home: Path, book_id: str) -> None:
    database = Database.open(home)
    try:
        library = Library(database)
        chapter = library.whole_book(book_id).chapters[0]
        texts = {p.id: f"译{p.text}" for p in chapter.work_paragraphs}
        library.add_translations(book_id, texts, kind=TranslationKind.TRANSLATION)
    finally:
        database.close()


def _spine_direction(path: Path) -> str | None:
    with zipfile.ZipFile(path) as archive:
        package = etree.fromstring(archive.read(OPF))
    return package.find("{*}spine").get("page-progression-direction")


def test_export_translates_the_original_epub_in_place_and_rebuild_gives_the_plain_one(
    tmp_path: Path, home: Path
) -> None:
    book = imported(KUSAMAKURA)
    _translate_first_chapter(home, book)

    honyaku("export", book, "-o", tmp_path / "in-place.epub")
    honyaku("export", book, "--rebuild", "-o", tmp_path / "rebuilt.epub")

    with zipfile.ZipFile(tmp_path / "in-place.epub") as archive:
        names = archive.namelist()
        page = archive.read(FIRST_CHAPTER).decode()
    assert names[0] == "mimetype"
    assert {"OPS/images/夏目漱石.jpg", "OPS/fonts/foobar.ttf", "OPS/css/vertical.css"} <= set(names)
    assert "译山路を登りながら、こう考えた。" in page
    assert _spine_direction(tmp_path / "in-place.epub") == "ltr"
    with zipfile.ZipFile(tmp_path / "rebuilt.epub") as archive:
        assert "OEBPS/chapter-0001.xhtml" in archive.namelist()
        assert not any(name.endswith(".jpg") for name in archive.namelist())


def test_export_options_keep_the_writing_mode_and_drop_the_source_ruby(
    tmp_path: Path, home: Path
) -> None:
    book = imported(KUSAMAKURA)
    _translate_first_chapter(home, book)
    out = tmp_path / "bilingual.epub"

    honyaku("export", book, "--bilingual", "--writing-mode", "keep", "--ruby", "drop", "-o", out)

    with zipfile.ZipFile(out) as archive:
        page = archive.read(FIRST_CHAPTER).decode()
    assert _spine_direction(out) == "rtl"
    assert 'class="honyaku-translation"' in page
    assert "<rt>" not in page
    assert "山路を登りながら、こう考えた。" in page


def test_an_unknown_writing_mode_is_refused_in_one_line(tmp_path: Path) -> None:
    book = imported(KUSAMAKURA)

    done = honyaku(
        "export", book, "--writing-mode", "sideways", "-o", tmp_path / "x.epub", check=False
    )

    assert done.returncode != 0
    assert "sideways" in done.stderr
    assert not (tmp_path / "x.epub").exists()
