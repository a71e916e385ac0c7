"""EPUB import: the real fixture books, Debian's live manual, and hand-broken EPUBs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from honyaku.errors import BookFormatError
from honyaku.formats import read_book

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"
FRANKENSTEIN = BOOKS / "epub" / "frankenstein_en_pg84_epub2" / "frankenstein_en_pg84_epub2.epub"
MOBY_DICK = BOOKS / "epub" / "moby-dick_en_epub3" / "moby-dick_en_epub3.epub"
# Installed by Debian's live-manual-epub package (CI installs it).
LIVE_MANUAL = Path("/usr/share/doc/live-manual/epub/live-manual.ja.epub")

KANJI_NUMBERS = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三"]

MakeEpub = Callable[..., Path]


def _opf(manifest: str, spine: str, *, version: str = "3.0", toc: str = "") -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="{version}" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">test</dc:identifier><dc:title>Broken</dc:title>
    <dc:language>ja</dc:language>
  </metadata>
  <manifest>{manifest}</manifest>
  <spine{toc}>{spine}</spine>
</package>"""


def _page(body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>p</title></head>'
        f"<body>{body}</body></html>"
    )


def test_kusamakura_epub3_imports_13_chapters_named_by_its_nav() -> None:
    book = read_book(KUSAMAKURA)

    assert (book.title, book.language) == ("草枕", "ja-jp")
    assert [c.title for c in book.chapters] == KANJI_NUMBERS


def test_kusamakura_first_paragraph_is_exactly_the_opening_line() -> None:
    first = read_book(KUSAMAKURA).chapters[0]

    assert first.paragraphs[0] == "山路を登りながら、こう考えた。"
    assert first.paragraphs[1] == (
        "智に働けば角が立つ。情に棹させば流される。意地を通せば窮屈だ。とかくに人の世は住みにくい。"
    )


def test_kusamakura_ruby_readings_do_not_leak() -> None:
    text = "".join(p for c in read_book(KUSAMAKURA).chapters for p in c.paragraphs)

    for reading in ("やまみち", "きゅうくつ", "じょう"):
        assert reading not in text
    assert "\n" not in text


def test_kusamakura_cover_and_back_matter_are_not_chapters() -> None:
    text = "".join(p for c in read_book(KUSAMAKURA).chapters for p in c.paragraphs)

    assert "慶応" not in text  # the author's biography on the cover page
    assert "この文書は、総務省" not in text  # the copyright page at the back


def test_frankenstein_epub2_splits_files_at_ncx_fragments_into_letters_and_chapters() -> None:
    book = read_book(FRANKENSTEIN)
    titles = [c.title for c in book.chapters]

    assert len(book.chapters) == 30
    assert titles[0].startswith("The Project Gutenberg eBook of Frankenstein")
    assert titles[1] == "or, the Modern Prometheus"
    assert titles[2:6] == [f"Letter {n}" for n in range(1, 5)]
    assert titles[6:] == [f"Chapter {n}" for n in range(1, 25)]


def test_frankenstein_chapters_start_at_their_text_not_at_the_repeated_heading() -> None:
    book = read_book(FRANKENSTEIN)

    assert book.chapters[2].paragraphs[0] == "To Mrs. Saville, England."
    assert book.chapters[6].paragraphs[0].startswith("I am by birth a Genevese")
    assert "CONTENTS" not in [c.title for c in book.chapters]


def test_moby_dick_imports_front_matter_135_chapters_and_the_epilogue() -> None:
    book = read_book(MOBY_DICK)
    titles = [c.title for c in book.chapters]

    assert len(book.chapters) == 139
    assert titles[:3] == [
        "Original Transcriber’s Notes:",
        "ETYMOLOGY.",
        "EXTRACTS (Supplied by a Sub-Sub-Librarian).",
    ]
    assert titles[3] == "Chapter 1. Loomings."
    assert titles[137] == "Chapter 135. The Chase.—Third Day."
    assert titles[-1] == "Epilogue"
    assert book.chapters[3].paragraphs[0].startswith("Call me Ishmael. Some years ago")


def test_moby_dick_copyright_page_is_skipped() -> None:
    text = "".join(p for c in read_book(MOBY_DICK).chapters for p in c.paragraphs)

    assert "Project Gutenberg-tm" not in text


def test_debian_live_manual_epub_imports_despite_its_broken_ncx() -> None:
    assert LIVE_MANUAL.exists(), (
        f"{LIVE_MANUAL} is missing: install Debian's live-manual-epub package"
    )

    book = read_book(LIVE_MANUAL)
    titles = [c.title for c in book.chapters]

    assert book.title == "Live システムマニュアル"
    assert book.language == "ja"
    assert len(book.chapters) == 157
    assert titles[1:4] == ["1. このマニュアルについて", "1.1 せっかちな人向け", "1.2 用語"]
    paragraphs = [p for c in book.chapters for p in c.paragraphs]
    assert not any(p.isdigit() for p in paragraphs)  # its paragraph-number labels are skipped
    assert all("\n" not in p for p in paragraphs)


def test_given_mimetype_last_and_no_toc_when_read_then_each_document_is_a_chapter(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    opf = _opf(
        '<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="b" href="b.xhtml" media-type="application/xhtml+xml"/>',
        '<itemref idref="a"/><itemref idref="b"/>',
    )
    path = make_epub(
        tmp_path / "plain.epub",
        {
            "OEBPS/content.opf": opf,
            "OEBPS/a.xhtml": _page("<h1>始まり</h1><p>一。</p>"),
            "OEBPS/b.xhtml": _page("<p>二。</p>"),
        },
        mimetype_first=False,
    )

    book = read_book(path)

    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("始まり", ("一。",)),
        ("p", ("二。",)),
    ]


def test_given_fragment_hrefs_missing_files_and_escaped_japanese_names_when_read_then_imports(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    opf = _opf(
        '<item id="one" href="%E7%AB%A0.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="one-b" href="%E7%AB%A0.xhtml#b" media-type="application/xhtml+xml"/>'
        '<item id="gone" href="missing.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>',
        '<itemref idref="one"/><itemref idref="one-b"/><itemref idref="gone"/>',
        version="2.0",
        toc=' toc="ncx"',
    )
    ncx = (
        '<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap>'
        '<navPoint id="n1"><navLabel><text>前</text></navLabel><content src="章.xhtml"/>'
        '<navPoint id="n2"><navLabel><text>後</text></navLabel><content src="%E7%AB%A0.xhtml#b"/>'
        "</navMap></ncx>"  # unclosed navPoints, as real NCX files have them
    )
    path = make_epub(
        tmp_path / "broken.epub",
        {
            "OEBPS/content.opf": opf,
            "OEBPS/toc.ncx": ncx,
            "OEBPS/章.xhtml": _page('<p>前半。</p><h2 id="b">後</h2><p>後半。</p>'),
        },
    )

    book = read_book(path)

    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("前", ("前半。",)),
        ("後", ("後半。",)),
    ]


def test_given_html_that_is_not_well_formed_xml_when_read_then_the_tolerant_parser_reads_it(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    opf = _opf('<item id="a" href="a.html" media-type="text/html"/>', '<itemref idref="a"/>')
    page = "<html><body><h1>Title</h1><p>one&nbsp;two<br>three<p>four</body></html>"
    path = make_epub(tmp_path / "html.epub", {"OEBPS/content.opf": opf, "OEBPS/a.html": page})

    (chapter,) = read_book(path).chapters

    assert (chapter.title, chapter.paragraphs) == ("Title", ("one\u00a0two", "three", "four"))


def test_given_no_container_when_read_then_the_package_document_is_found_by_extension(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    opf = _opf(
        '<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>', '<itemref idref="a"/>'
    )
    path = make_epub(
        tmp_path / "nocontainer.epub",
        {"book.opf": opf, "a.xhtml": _page("<p>本文。</p>")},
        opf_path=None,
    )

    assert read_book(path).chapters[0].paragraphs == ("本文。",)


def test_given_drm_encrypted_chapters_when_read_then_refused_with_a_clear_message(
    tmp_path: Path, make_epub: MakeEpub
) -> None:
    opf = _opf(
        '<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>', '<itemref idref="a"/>'
    )
    encryption = (
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        '<enc:CipherData><enc:CipherReference URI="OEBPS/a.xhtml"/></enc:CipherData>'
        "</enc:EncryptedData></encryption>"
    )
    path = make_epub(
        tmp_path / "drm.epub",
        {
            "META-INF/encryption.xml": encryption,
            "OEBPS/content.opf": opf,
            "OEBPS/a.xhtml": b"\x8a\x00\xff" * 50,
        },
    )

    with pytest.raises(BookFormatError, match="DRM-protected"):
        read_book(path)
