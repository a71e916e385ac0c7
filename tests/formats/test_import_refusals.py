"""Files that are not books: each is refused quickly with one readable line naming the file."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from honyaku.errors import BookFormatError
from honyaku.formats import epub_archive, epub_reader, importing, limits, markup, read_book
from honyaku.formats.limits import MAX_EPUB_ENTRY_BYTES, MIB

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"
QUICK_S = 5.0

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<html xmlns="http://www.w3.org/1999/xhtml"><body><p>&lol9;</p></body></html>
"""

MakeEpub = Callable[..., Path]


def _refusal(path: Path, **options: object) -> str:
    """Read ``path`` expecting a quick refusal; returns its message."""
    started = time.monotonic()
    with pytest.raises(BookFormatError) as caught:
        read_book(path, **options)  # type: ignore[arg-type]
    assert time.monotonic() - started < QUICK_S
    message = str(caught.value)
    assert "\n" not in message
    assert "\r" not in message
    assert path.name in message
    return message


def _minimal_opf(chapter: str = "a.xhtml") -> str:
    return (
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title></metadata>'
        f'<manifest><item id="a" href="{chapter}" media-type="application/xhtml+xml"/></manifest>'
        '<spine><itemref idref="a"/></spine></package>'
    )


def test_given_an_epub_cut_in_half_when_read_then_refused_as_a_damaged_zip(
    tmp_path: Path,
) -> None:
    data = KUSAMAKURA.read_bytes()
    path = tmp_path / "half.epub"
    path.write_bytes(data[: len(data) // 2])

    assert "damaged or truncated zip" in _refusal(path)


def test_given_a_zip_that_is_not_a_book_when_read_then_refused_as_not_an_epub(
    tmp_path: Path,
) -> None:
    path = tmp_path / "photos.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "holiday photos")

    assert "not an EPUB" in _refusal(path)


def test_given_random_binary_bytes_when_read_then_refused_as_binary(tmp_path: Path) -> None:
    path = tmp_path / "noise.bin"
    path.write_bytes(random.Random(84).randbytes(64 * 1024))

    assert "binary" in _refusal(path)


def test_given_undecodable_text_when_read_then_refused_with_a_hint_to_use_utf8(
    tmp_path: Path,
) -> None:
    path = tmp_path / "mojibake.txt"
    text = "あいうえお、これはテストです。" * 20
    path.write_bytes(text.encode()[:-1] + b"\x81\x8d\x8f\x90\x9d" + text.encode())

    assert "save it as UTF-8" in _refusal(path)


@pytest.mark.parametrize("content", [b"", b" \r\n\t\r\n"], ids=["empty", "blank"])
def test_given_an_empty_file_when_read_then_refused_as_empty(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(content)

    assert "empty" in _refusal(path)


def test_given_a_text_file_over_the_size_cap_when_read_then_refused_as_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importing, "MAX_TEXT_FILE_BYTES", 1000)
    path = tmp_path / "huge.txt"
    path.write_text("長い行です。\n" * 200, encoding="utf-8")

    assert "too large" in _refusal(path)


def test_given_a_zip_bomb_entry_when_read_then_refused_before_unpacking_it(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    path = make_epub(tmp_path / "bomb.epub", {"OEBPS/a.xhtml": "<p/>"})
    with (
        zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("OEBPS/content.opf", "w", force_zip64=True) as entry,
    ):
        for _ in range(MAX_EPUB_ENTRY_BYTES // MIB + 1):
            entry.write(b" " * MIB)  # compresses to almost nothing: a zip bomb

    assert "MB unpacked" in _refusal(path)


def test_given_a_zip_entry_that_lies_about_its_size_when_read_then_no_more_is_unpacked(
    tmp_path: Path, make_epub: MakeEpub, monkeypatch: pytest.MonkeyPatch
) -> None:
    bomb = b"<p>" + b" " * (8 * MIB) + b"</p>"
    path = make_epub(
        tmp_path / "liar.epub", {"OEBPS/content.opf": _minimal_opf(), "OEBPS/a.xhtml": bomb}
    )
    _claim_size(path, "OEBPS/a.xhtml", 100)
    sizes: list[int] = []
    real_read = epub_archive.EpubArchive.read

    def spy(self: epub_archive.EpubArchive, name: str) -> bytes | None:
        data = real_read(self, name)
        sizes.append(len(data or b""))
        return data

    monkeypatch.setattr(epub_archive.EpubArchive, "read", spy)

    assert "damaged or encrypted zip entry" in _refusal(path)
    assert max(sizes) < MIB  # nothing near the real 8 MB ever came out of the zip


def _claim_size(path: Path, name: str, size: int) -> None:
    """Rewrite the uncompressed size that the zip headers declare for ``name``."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        local = archive.getinfo(name).header_offset
    data[local + 22 : local + 26] = size.to_bytes(4, "little")
    central = data.find(b"PK\x01\x02")
    while central != -1:
        name_length = int.from_bytes(data[central + 28 : central + 30], "little")
        if data[central + 46 : central + 46 + name_length] == name.encode():
            data[central + 24 : central + 28] = size.to_bytes(4, "little")
        central = data.find(b"PK\x01\x02", central + 4)
    path.write_bytes(bytes(data))


def test_given_too_many_zip_entries_when_read_then_refused(
    tmp_path: Path, make_epub: MakeEpub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(epub_archive, "MAX_EPUB_ENTRIES", 3)
    path = make_epub(tmp_path / "many.epub", {f"OEBPS/{n}.css": "" for n in range(5)})

    assert "too many zip entries" in _refusal(path)


def test_given_a_billion_laughs_xml_file_when_read_then_refused_without_expanding(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lolz.xhtml"
    path.write_text(BILLION_LAUGHS, encoding="utf-8")

    assert "entities" in _refusal(path)


def test_given_a_billion_laughs_chapter_in_an_epub_when_read_then_refused(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    path = make_epub(
        tmp_path / "lolz.epub",
        {"OEBPS/content.opf": _minimal_opf(), "OEBPS/a.xhtml": BILLION_LAUGHS},
    )

    assert "entities" in _refusal(path)


def test_given_an_epub_without_any_text_when_read_then_refused_as_empty(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    page = '<html xmlns="http://www.w3.org/1999/xhtml"><body><img src="x.png"/></body></html>'
    path = make_epub(
        tmp_path / "pictures.epub", {"OEBPS/content.opf": _minimal_opf(), "OEBPS/a.xhtml": page}
    )

    assert "no readable text" in _refusal(path)


def test_given_a_directory_or_a_missing_file_when_read_then_refused(tmp_path: Path) -> None:
    assert "directory" in _refusal(tmp_path)
    assert "no such file" in _refusal(tmp_path / "absent.epub")


# -- what a file unpacks into ------------------------------------------------------------------

HOSTILE_PARAGRAPH = b"<p>All work and no play makes Jack.</p>\n"
MEASURE_READ = """
import json, sys, time
from pathlib import Path
from honyaku.errors import BookFormatError
from honyaku.formats import read_book
started = time.monotonic()
try:
    read_book(sys.argv[1])
    message = None
except BookFormatError as error:
    message = str(error)
# VmHWM is this program's own peak: ru_maxrss would also count the forking test process's,
# which Linux carries over the exec.
status = Path("/proc/self/status").read_text()
peak_kib = int(status.split("VmHWM:")[1].split()[0])
print(json.dumps({
    "message": message,
    "seconds": time.monotonic() - started,
    "max_rss_mb": peak_kib / 1024,
}))
"""
MAX_HOSTILE_RSS_MB = 250
"""Reading it took 3 GB before the book caps; now ~160 MB, the one 60 MB member read twice over."""


def _many_documents_opf(count: int) -> str:
    items = "".join(
        f'<item id="c{n}" href="c{n}.xhtml" media-type="application/xhtml+xml"/>'
        for n in range(count)
    )
    refs = "".join(f'<itemref idref="c{n}"/>' for n in range(count))
    return (
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title></metadata>'
        f"<manifest>{items}</manifest><spine>{refs}</spine></package>"
    )


def _page(body: bytes) -> bytes:
    return b'<html xmlns="http://www.w3.org/1999/xhtml"><body>' + body + b"</body></html>"


def test_given_an_epub_of_4_x_60_mb_of_tiny_paragraphs_when_read_then_refused_in_little_memory(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    member = _page(HOSTILE_PARAGRAPH * (60 * MIB // len(HOSTILE_PARAGRAPH)))
    files: dict[str, str | bytes] = {"OEBPS/content.opf": _many_documents_opf(4)}
    files |= {f"OEBPS/c{n}.xhtml": member for n in range(4)}
    path = make_epub(tmp_path / "jack.epub", files)
    assert path.stat().st_size < MIB  # 6.29 million paragraphs in under a megabyte

    done = subprocess.run(
        [sys.executable, "-c", MEASURE_READ, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    measured = json.loads(done.stdout)
    assert "more than 1,000,000 markup tags" in measured["message"]
    assert measured["seconds"] < QUICK_S
    assert measured["max_rss_mb"] < MAX_HOSTILE_RSS_MB


def test_given_documents_each_under_the_tag_cap_when_read_then_the_paragraph_cap_stops_the_book(
    tmp_path: Path, make_epub: MakeEpub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_BOOK_PARAGRAPHS", 1000)
    files: dict[str, str | bytes] = {"OEBPS/content.opf": _many_documents_opf(3)}
    files |= {f"OEBPS/c{n}.xhtml": _page(HOSTILE_PARAGRAPH * 600) for n in range(3)}
    path = make_epub(tmp_path / "jack.epub", files)
    documents_read: list[int] = []
    real_extract = epub_reader.extract_text

    def spy(*args: object, **options: object) -> object:
        documents_read.append(1)
        return real_extract(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(epub_reader, "extract_text", spy)

    assert "more than 1,000 paragraphs" in _refusal(path)
    assert len(documents_read) == 2  # refused inside the second document, the third never read


def test_given_a_text_file_of_millions_of_lines_when_read_then_refused_before_splitting_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lines.txt"
    path.write_bytes(b"a\n" * (limits.MAX_BOOK_PARAGRAPHS + 1))

    assert f"more than {limits.MAX_BOOK_PARAGRAPHS:,} paragraphs" in _refusal(path)


def test_given_a_line_longer_than_any_paragraph_when_read_then_refused(tmp_path: Path) -> None:
    path = tmp_path / "one-line.txt"
    path.write_text("長い" * limits.MAX_PARAGRAPH_CHARS + "\n", encoding="utf-8")

    assert "a paragraph of 200,000 characters" in _refusal(path)


def test_given_an_epub_paragraph_longer_than_any_when_read_then_refused(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    body = ("<p>" + "長い" * limits.MAX_PARAGRAPH_CHARS + "</p>").encode()
    path = make_epub(
        tmp_path / "long.epub", {"OEBPS/content.opf": _minimal_opf(), "OEBPS/a.xhtml": _page(body)}
    )

    assert "a paragraph of 200,000 characters" in _refusal(path)


def test_given_more_text_than_any_book_when_read_then_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_BOOK_CHARS", 10_000)
    path = tmp_path / "long.txt"
    path.write_text("彼は歩いた。\n" * 2000, encoding="utf-8")

    assert "more than 10,000 characters of text" in _refusal(path)


def test_given_an_html_page_with_more_tags_than_any_book_when_read_then_refused_unparsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_DOCUMENT_TAGS", 100)
    parsed: list[int] = []
    monkeypatch.setattr(markup, "decode_markup", lambda *args, **options: parsed.append(1))
    path = tmp_path / "tags.html"
    path.write_bytes(_page(b"<p>a</p>" * 60))

    assert "more than 100 markup tags" in _refusal(path)
    assert parsed == []


# -- files that are not files ----------------------------------------------------------------


def test_given_a_named_pipe_when_read_then_refused_instead_of_waiting_forever(
    tmp_path: Path,
) -> None:
    path = tmp_path / "book.txt"
    os.mkfifo(path)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_book(path)
        except BaseException as error:
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(QUICK_S)
    if reader.is_alive():
        # Open the pipe's other end so that the blocked reader gets an end of file and ends.
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(QUICK_S)
        pytest.fail("reading a named pipe blocked")

    assert isinstance(outcome[0], BookFormatError)
    assert "a pipe or socket, not a book file" in str(outcome[0])


def test_given_a_device_when_read_then_refused() -> None:
    assert "a device, not a book file" in _refusal(Path("/dev/zero"))
