"""The library commands as a person types them: import, books, show, export, delete, settings."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from honyaku.store import Database, Library

from .conftest import KOJIKI, KUSAMAKURA, RASHOMON, honyaku, imported


def test_import_prints_the_new_book_id_alone_on_the_last_line():
    done = honyaku("import", KOJIKI)

    last = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"[0-9a-f]{8}", last)
    assert "Imported" in done.stdout


def test_books_and_show_list_chapters_with_counts_and_progress():
    book = imported(KUSAMAKURA, "--title", "草枕")

    listed = honyaku("books").stdout
    shown = honyaku("show", book[:5]).stdout

    assert book in listed
    assert "草枕" in listed
    assert "ja-JP → zh-CN" in listed
    assert "0/" in shown
    assert shown.count("(0%)") >= 13


def test_export_json_has_exactly_the_documented_shape(tmp_path: Path):
    book = imported(RASHOMON)
    out = tmp_path / "book.json"

    honyaku("export", book, "--format", "json", "-o", out)

    data = json.loads(out.read_text(encoding="utf-8"))
    assert set(data) == {"book", "chapters"}
    assert set(data["book"]) == {"id", "title", "source_lang", "target_lang"}
    chapter = data["chapters"][0]
    assert set(chapter) == {"id", "title", "translated_title", "paragraphs"}
    assert set(chapter["paragraphs"][0]) == {"id", "index", "text", "translation"}
    assert chapter["paragraphs"][0]["translation"] is None


def test_export_epub_writes_a_zip_with_mimetype_first(tmp_path: Path):
    book = imported(KOJIKI)
    out = tmp_path / "kojiki.epub"

    honyaku("export", book, "--format", "epub", "-o", out)

    with zipfile.ZipFile(out) as archive:
        assert archive.namelist()[0] == "mimetype"


def test_a_book_is_deleted_once_the_person_says_yes():
    kept = imported(KOJIKI)
    book = imported(RASHOMON)

    declined = honyaku("delete", book, typed="n\n", check=False)
    still_there = honyaku("books").stdout
    deleted = honyaku("delete", book[:6], typed="y\n")
    listed = honyaku("books").stdout

    assert declined.returncode == 1
    assert book in still_there
    assert "Deleted" in deleted.stdout
    assert book not in listed
    assert kept in listed
    assert "no book" in honyaku("show", book, check=False).stderr


def test_settings_print_and_change_the_chunk_size():
    book = imported(RASHOMON)

    before = honyaku("settings", book).stdout
    after = honyaku("settings", book, "--chunk-chars", "3000").stdout

    assert "chunk_chars = 6000" in before
    assert "skip_ask_user = False" in before
    assert "chunk_chars = 3000" in after


def test_version_prints_the_package_version():
    assert honyaku("--version").stdout.startswith("honyaku 0.")


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("truncated.epub", KUSAMAKURA.read_bytes()[: KUSAMAKURA.stat().st_size // 2]),
        ("random.bin", bytes(range(256)) * 64),
        ("empty.txt", b""),
    ],
)
def test_bad_input_is_one_clear_line_a_nonzero_exit_and_nothing_written(
    tmp_path: Path, name: str, content: bytes
):
    path = tmp_path / name
    path.write_bytes(content)

    done = honyaku("import", path, check=False)

    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error:")
    assert "No books yet" in honyaku("books").stdout


def test_a_missing_file_and_an_unknown_book_are_clear_errors(tmp_path: Path):
    missing = honyaku("import", tmp_path / "nope.txt", check=False)
    unknown = honyaku("show", "ffffffff", check=False)

    for done in (missing, unknown):
        assert done.returncode != 0
        assert "Traceback" not in done.stderr
    assert "no book with id 'ffffffff'" in unknown.stderr


def test_an_invalid_setting_is_refused_with_its_name():
    book = imported(RASHOMON)

    done = honyaku("settings", book, "--chunk-chars", "10", check=False)

    assert done.returncode != 0
    assert "chunk_chars" in done.stderr


def test_import_takes_the_encoding_that_cannot_be_told_from_the_bytes(home, tmp_path: Path):
    path = tmp_path / "kniha.txt"
    text = "Kapitola 1\nByl jednou jeden král, který měl tři dcery.\nŘekl jí, že musí jít.\n"
    path.write_bytes(text.encode("cp1250"))

    refused = honyaku("import", path, check=False)
    book = imported(path, "--encoding", "cp1250")

    assert refused.returncode != 0
    assert "--encoding" in refused.stderr
    assert "Traceback" not in refused.stderr
    stored = Library(Database.open(home)).whole_book(book).chapters[0].paragraphs
    assert [p.text for p in stored][-2:] == text.splitlines()[1:]


def test_the_ruby_and_lost_markup_settings_are_shown_and_a_choice_not_offered_is_refused():
    book = imported(RASHOMON)

    shown = honyaku("settings", book, "--ruby", "keep", "--lost-markup", "leave").stdout
    refused = honyaku("settings", book, "--ruby", "furigana", check=False)

    assert "ruby = keep" in shown
    assert "lost_markup = leave" in shown
    assert refused.returncode != 0
    assert "hints" in refused.stdout + refused.stderr
