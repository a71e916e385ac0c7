"""Export: the JSON contract, plain text, Markdown, EPUB metadata, atomic writes, epubcheck."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

from honyaku.domain.book import Book, BookDraft, ChapterDraft
from honyaku.errors import UserError
from honyaku.formats import ExportFormat, exporting, read_book, write_book

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"

DRAFT = BookDraft(
    title="猫の本",
    author="夏目",
    chapters=(
        ChapterDraft("第一章", ("　吾輩は猫である。", "", "# 見出しではない", "名前はまだ無い。")),
        ChapterDraft("第二章", ("1. 番号ではない *強調でもない* <b>",)),
    ),
)


def _translate_first_of_each_chapter(chapter: int, index: int, text: str) -> str | None:
    return f"译文{chapter}-{index}" if index == 0 else None


@pytest.fixture
def book(book_from: Callable[..., Book]) -> Book:
    return book_from(DRAFT, translate=_translate_first_of_each_chapter, translate_titles=True)


def test_json_export_follows_the_contract_with_selected_translation_or_null(
    tmp_path: Path, book: Book
) -> None:
    path = tmp_path / "book.json"

    write_book(book, path, ExportFormat.JSON)

    raw = path.read_text(encoding="utf-8")
    document = json.loads(raw)
    assert "吾輩は猫である" in raw
    assert "\n  " in raw
    assert document["book"] == {
        "id": book.id,
        "title": "猫の本",
        "source_lang": "ja",
        "target_lang": "zh-CN",
    }
    first = document["chapters"][0]
    assert set(first) == {"id", "title", "translated_title", "paragraphs"}
    assert (first["title"], first["translated_title"]) == ("第一章", "【訳】第一章")
    assert first["paragraphs"][0] == {
        "id": book.chapters[0].paragraphs[0].id,
        "index": 0,
        "text": "　吾輩は猫である。",
        "translation": "译文0-0",
    }
    assert [p["index"] for p in first["paragraphs"]] == [0, 1, 2, 3]
    assert first["paragraphs"][1]["translation"] is None


def test_txt_export_shows_translations_where_present_and_keeps_blank_lines(
    tmp_path: Path, book: Book
) -> None:
    path = tmp_path / "book.txt"

    write_book(book, path, ExportFormat.TXT)

    assert path.read_text(encoding="utf-8").splitlines() == [
        "猫の本",
        "",
        "【訳】第一章",
        "",
        "译文0-0",
        "",
        "# 見出しではない",
        "名前はまだ無い。",
        "",
        "【訳】第二章",
        "",
        "译文1-0",
        "",
    ]


def test_bilingual_txt_export_shows_source_then_translation_and_both_titles(
    tmp_path: Path, book: Book
) -> None:
    path = tmp_path / "book.txt"

    write_book(book, path, ExportFormat.TXT, bilingual=True)

    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[2:8] == ["第一章", "【訳】第一章", "", "　吾輩は猫である。", "译文0-0", ""]


def test_markdown_export_has_chapter_headings_and_escapes_line_starts(
    tmp_path: Path, book: Book
) -> None:
    path = tmp_path / "book.md"

    write_book(book, path, ExportFormat.MD)

    blocks = path.read_text(encoding="utf-8").split("\n\n")
    assert blocks[0] == '---\ntitle: "猫の本"\n---'
    assert blocks[1:6] == [
        "# 【訳】第一章",
        "译文0-0",
        "&nbsp;",
        "\\# 見出しではない",
        "名前はまだ無い。",
    ]
    assert blocks[7].strip() == "译文1-0"


def test_markdown_escaping_covers_lists_quotes_and_inline_marks(
    tmp_path: Path, book_from: Callable[..., Book]
) -> None:
    draft = BookDraft("t", (ChapterDraft("c", ("1. one", "> quote", "- item", "*a* [b] <c>")),))
    path = tmp_path / "book.md"

    write_book(book_from(draft), path, ExportFormat.MD)

    assert path.read_text(encoding="utf-8").split("\n\n")[2:] == [
        "1\\. one",
        "\\> quote",
        "\\- item",
        "\\*a\\* \\[b\\] \\<c>\n",
    ]


def test_bilingual_markdown_export_keeps_the_source_title_under_the_heading(
    tmp_path: Path, book: Book
) -> None:
    path = tmp_path / "book.md"

    write_book(book, path, ExportFormat.MD, bilingual=True)

    blocks = path.read_text(encoding="utf-8").split("\n\n")
    assert blocks[1:5] == ["# 第一章", "*【訳】第一章*", "\u3000吾輩は猫である。", "译文0-0"]


def _opf(path: Path) -> etree._Element:
    with zipfile.ZipFile(path) as archive:
        return etree.fromstring(archive.read("OEBPS/content.opf"))


def test_epub_export_declares_target_language_stable_identifier_and_modified_time(
    tmp_path: Path, book: Book
) -> None:
    first, second = tmp_path / "a.epub", tmp_path / "b.epub"

    write_book(book, first, ExportFormat.EPUB)
    write_book(book, second, ExportFormat.EPUB)

    ns = {"dc": "http://purl.org/dc/elements/1.1/", "opf": "http://www.idpf.org/2007/opf"}
    opf = _opf(first)
    assert opf.findtext(".//dc:language", namespaces=ns) == "zh-CN"
    assert opf.findtext(".//dc:title", namespaces=ns) == "猫の本"
    identifier = opf.findtext(".//dc:identifier", namespaces=ns)
    assert identifier.startswith("urn:uuid:")
    assert identifier == _opf(second).findtext(".//dc:identifier", namespaces=ns)
    modified = opf.findtext(".//opf:meta[@property='dcterms:modified']", namespaces=ns)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", modified)


def test_epub_export_of_an_untranslated_book_declares_the_source_language(
    tmp_path: Path, book_from: Callable[..., Book]
) -> None:
    path = tmp_path / "source.epub"

    write_book(book_from(DRAFT), path, ExportFormat.EPUB)

    ns = {"dc": "http://purl.org/dc/elements/1.1/"}
    assert _opf(path).findtext(".//dc:language", namespaces=ns) == "ja"


def test_epub_export_starts_with_a_stored_mimetype(tmp_path: Path, book: Book) -> None:
    path = tmp_path / "book.epub"

    write_book(book, path, ExportFormat.EPUB)

    with zipfile.ZipFile(path) as archive:
        first = archive.infolist()[0]
        assert (first.filename, first.compress_type) == ("mimetype", zipfile.ZIP_STORED)
        assert archive.read("mimetype") == b"application/epub+zip"


def test_epub_export_marks_untranslated_text_with_its_source_language(
    tmp_path: Path, book: Book
) -> None:
    path = tmp_path / "book.epub"

    write_book(book, path, ExportFormat.EPUB)

    with zipfile.ZipFile(path) as archive:
        page = archive.read("OEBPS/chapter-0001.xhtml").decode()
    assert '<html xmlns="http://www.w3.org/1999/xhtml"' in page
    assert 'xml:lang="zh-CN" lang="zh-CN"' in page
    assert '<p xml:lang="ja" lang="ja">名前はまだ無い。</p>' in page
    assert "<p>译文0-0</p>" in page


@pytest.fixture
def exports(tmp_path: Path) -> Path:
    """A folder of its own for a test's exports: the test's home is in ``tmp_path`` too."""
    folder = tmp_path / "exports"
    folder.mkdir()
    return folder


def test_a_failed_export_leaves_the_previous_file_and_no_temporary_file(
    exports: Path, book: Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = exports / "book.epub"
    path.write_bytes(b"previous export")

    def broken(book: Book, file: object, *, bilingual: bool) -> None:
        file.write(b"half an epub")  # type: ignore[attr-defined]
        raise OSError("disk full")

    monkeypatch.setattr(exporting, "write_epub", broken)
    with pytest.raises(UserError, match=r"cannot write .*book\.epub: disk full"):
        write_book(book, path, ExportFormat.EPUB)

    assert path.read_bytes() == b"previous export"
    assert os.listdir(exports) == ["book.epub"]


SLOW_EXPORT = """
import sys, threading, time
from pathlib import Path
from honyaku.formats import exporting

def write(file):
    file.write(b"half a book")
    file.flush()
    print("writing", flush=True)
    time.sleep(60)

export = lambda: exporting._write_atomically(Path(sys.argv[1]), write)
if sys.argv[2] == "thread":
    # The interpreter ends under an export thread, as when a server shuts down.
    threading.Thread(target=export, daemon=True).start()
    time.sleep(0.5)
else:
    export()
"""


def _slow_export(path: Path, where: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_EXPORT, str(path), where], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "writing\n"
    return process


def _parts(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".part"))


def test_a_temporary_file_left_by_a_killed_export_goes_at_the_next_export(
    exports: Path, book: Book
) -> None:
    path = exports / "book.txt"
    killed = _slow_export(path, "main")
    killed.kill()
    killed.communicate()
    assert len(_parts(exports)) == 1

    write_book(book, path, ExportFormat.TXT)

    assert os.listdir(exports) == ["book.txt"]


def test_an_export_cut_short_by_the_interpreter_ending_leaves_no_temporary_file(
    exports: Path,
) -> None:
    exporting_thread = _slow_export(exports / "book.txt", "thread")

    exporting_thread.communicate(timeout=30)

    assert exporting_thread.returncode == 0
    assert os.listdir(exports) == []


def test_temporary_files_of_live_exports_and_of_other_destinations_are_left_alone(
    tmp_path: Path, book: Book
) -> None:
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    live = f".book.txt.{os.getppid()}.abcd1234.part"
    other = f".book.txt.bak.{finished.pid}.abcd1234.part"
    stale = f".book.txt.{finished.pid}.abcd1234.part"
    older = ".book.txt.abcd1234.part"
    for name in (live, other, stale, older):
        (tmp_path / name).write_bytes(b"half a book")

    write_book(book, tmp_path / "book.txt", ExportFormat.TXT)

    assert _parts(tmp_path) == sorted([live, other])


@pytest.mark.parametrize(
    ("target", "reason"), [("no/such/folder/book.txt", "No such file"), (".", "folder")]
)
def test_an_export_that_cannot_be_written_says_why_in_one_line(
    tmp_path: Path, book: Book, target: str, reason: str
) -> None:
    with pytest.raises(UserError, match=reason):
        write_book(book, tmp_path / target, ExportFormat.TXT)


def test_a_new_export_gets_ordinary_file_permissions(tmp_path: Path, book: Book) -> None:
    path = tmp_path / "book.txt"

    write_book(book, path, "txt")  # type: ignore[arg-type]

    assert stat.S_IMODE(path.stat().st_mode) == exporting.NEW_FILE_MODE


def test_an_empty_book_still_exports_a_complete_epub_package(
    tmp_path: Path, book_from: Callable[..., Book]
) -> None:
    path = tmp_path / "empty.epub"

    write_book(book_from(BookDraft("空", ())), path, ExportFormat.EPUB)

    ns = {"opf": "http://www.idpf.org/2007/opf"}
    assert len(_opf(path).findall(".//opf:itemref", namespaces=ns)) == 1


def test_epub_exports_pass_epubcheck_with_no_errors_or_warnings(
    tmp_path: Path, book: Book, book_from: Callable[..., Book], epubcheck: Callable
) -> None:
    tricky = book_from(
        BookDraft(
            'Odd <&> "book"',
            (
                ChapterDraft("", ("text with \x0b control", "", "a & b < c > d")),
                ChapterDraft("no paragraphs", ()),
                ChapterDraft("第二章", ("only",)),
            ),
        ),
        translate=_translate_first_of_each_chapter,
    )
    kusamakura = book_from(read_book(KUSAMAKURA), source_lang="ja", target_lang="en")
    outputs = [tmp_path / "bilingual.epub", tmp_path / "tricky.epub", tmp_path / "kusamakura.epub"]
    write_book(book, outputs[0], ExportFormat.EPUB, bilingual=True)
    write_book(tricky, outputs[1], ExportFormat.EPUB, bilingual=True)
    write_book(kusamakura, outputs[2], ExportFormat.EPUB)

    reports = epubcheck(outputs)

    for path, report in zip(outputs, reports, strict=True):
        assert report.clean, f"epubcheck on {path.name}:\n{report.output}"
