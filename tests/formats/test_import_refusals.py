"""Files that are not books: each is refused quickly with one readable line naming the file."""

from __future__ import annotations

import random
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from honyaku.errors import BookFormatError
from honyaku.formats import epub_archive, importing, read_book
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
