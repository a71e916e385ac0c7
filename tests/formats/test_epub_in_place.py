"""Export in place: the original EPUB, its text translated where it stood, the rest kept."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from lxml import etree

from honyaku.domain import Book, BookSources, TranslationKind
from honyaku.formats import ExportFormat, RubyMode, WritingMode, read_book, write_book
from honyaku.formats.epub_inplace import InPlaceOptions, InPlaceReport, write_epub_in_place
from honyaku.formats.xhtml import element_text, extract_text
from honyaku.store import Library

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"
FRANKENSTEIN = BOOKS / "epub" / "frankenstein_en_pg84_epub2" / "frankenstein_en_pg84_epub2.epub"
MOBY_DICK = BOOKS / "epub" / "moby-dick_en_epub3" / "moby-dick_en_epub3.epub"
LIVE_MANUAL = Path("/usr/share/doc/live-manual/epub/live-manual.ja.epub")
# The one document of the live manual that is not well-formed XML: never rewritten.
LIVE_MANUAL_BROKEN = "OEBPS/metadata.xhtml"

XHTML = "http://www.w3.org/1999/xhtml"
NS = {
    "h": XHTML,
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
    "ncx": "http://www.daisy.org/z3986/2005/ncx/",
}
KANJI_NUMBERS = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三"]
MARK = "译"
_MESSAGES = re.compile(r"Messages: (\d+) fatals? / (\d+) errors? / (\d+) warnings?")

MakeEpub = Callable[..., Path]


def _translated(text: str) -> str:
    """A recognisable translation: the source behind a mark a reader cannot miss."""
    return MARK + text


def _import(
    library: Library,
    path: Path,
    *,
    target: str = "zh-CN",
    chapters: slice = slice(None),
) -> tuple[Book, BookSources]:
    """``path`` imported, its ``chapters`` translated (titles too); the book and its sources."""
    book_id = library.add_book(read_book(path), source_lang="ja", target_lang=target)
    chosen = library.whole_book(book_id).chapters[chapters]
    texts = {p.id: _translated(p.text) for c in chosen for p in c.work_paragraphs}
    library.add_translations(book_id, texts, kind=TranslationKind.TRANSLATION)
    for chapter in chosen:
        library.set_chapter_title(book_id, chapter.id, _translated(chapter.title))
    sources = library.sources(book_id)
    assert sources is not None
    return library.whole_book(book_id), sources


def _export(
    book: Book, sources: BookSources, path: Path, **options: object
) -> tuple[Path, InPlaceReport]:
    with path.open("wb") as file:
        report = write_epub_in_place(book, sources, file, InPlaceOptions(**options))  # type: ignore[arg-type]
    return path, report


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _xml(path: Path, name: str) -> etree._Element:
    return etree.fromstring(_entries(path)[name])


def _shape(book: Book) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.title, tuple(p.text for p in c.paragraphs)) for c in book.chapters]


def _read_back(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The chapters of an exported EPUB imported again, paragraphs as the library stores
    them (an indent of ideographic or no-break spaces, kept before a translation, is layout)."""
    return [(c.title, tuple(p.strip() for p in c.paragraphs)) for c in read_book(path).chapters]


def _expected_shape(book: Book) -> list[tuple[str, tuple[str, ...]]]:
    return [
        (
            c.translated_title or c.title,
            tuple(p.translation or p.text for p in c.paragraphs),
        )
        for c in book.chapters
    ]


# -- the whole book, translated ---------------------------------------------------------------


@pytest.mark.parametrize("source", [KUSAMAKURA, MOBY_DICK, FRANKENSTEIN], ids=lambda p: p.stem)
def test_an_in_place_export_imports_back_with_every_paragraph_and_title_translated(
    tmp_path: Path, library: Library, source: Path
) -> None:
    book, sources = _import(library, source)

    exported, report = _export(book, sources, tmp_path / "out.epub")

    assert report.missed == []
    assert report.placed == len(book.chapters) + sum(len(c.work_paragraphs) for c in book.chapters)
    assert _read_back(exported) == _expected_shape(book)


def test_the_live_manual_is_translated_but_for_its_one_broken_document(
    tmp_path: Path, library: Library
) -> None:
    assert LIVE_MANUAL.exists(), f"{LIVE_MANUAL} is missing: install Debian's live-manual-epub"
    book, sources = _import(library, LIVE_MANUAL)

    exported, report = _export(book, sources, tmp_path / "live.epub")

    assert report.missed
    assert {document for document, _ in report.missed} == {LIVE_MANUAL_BROKEN}
    assert LIVE_MANUAL_BROKEN not in report.rewritten
    in_broken = {
        c.id
        for c in book.chapters
        if any(sources.paragraphs[p.id].document == LIVE_MANUAL_BROKEN for p in c.work_paragraphs)
    }
    expected = [
        shape
        for chapter, shape in zip(book.chapters, _expected_shape(book), strict=True)
        if chapter.id not in in_broken
    ]
    got = _read_back(exported)
    assert [shape for shape in got if shape in expected] == expected
    assert len(got) == len(book.chapters)


def test_images_fonts_and_stylesheets_keep_their_bytes_and_their_references(
    tmp_path: Path, library: Library
) -> None:
    book, sources = _import(library, MOBY_DICK)

    exported, report = _export(book, sources, tmp_path / "moby.epub")

    before, after = _entries(MOBY_DICK), _entries(exported)
    kept = [name for name in before if not name.endswith((".xhtml", ".opf", ".ncx"))]
    assert any(name.endswith((".jpg", ".png")) for name in kept)
    assert any(name.endswith((".otf", ".ttf")) for name in kept)
    assert any(name.endswith(".css") for name in kept)
    for name in kept:
        assert after[name] == before[name], name
    for name in before:
        if name.endswith(".xhtml"):
            assert _references(after[name]) == _references(before[name]), name
    assert _manifest(after["OPS/package.opf"]) == _manifest(before["OPS/package.opf"])
    assert set(report.rewritten) <= {n for n in before if n.endswith((".xhtml", ".opf"))}


def _references(document: bytes) -> set[str]:
    root = etree.fromstring(document)
    return {
        element.get("src") or element.get("href")
        for element in root.iter(f"{{{XHTML}}}img", f"{{{XHTML}}}link", f"{{{XHTML}}}image")
    }


def _manifest(package: bytes) -> set[tuple[str, str]]:
    items = etree.fromstring(package).iterfind(".//opf:manifest/opf:item", NS)
    return {(item.get("href"), item.get("media-type")) for item in items}


def test_the_package_takes_the_target_language_and_the_translated_title(
    tmp_path: Path, library: Library
) -> None:
    book, sources = _import(library, KUSAMAKURA)
    book = replace(book, translated_title="草枕（中文）")

    exported, _ = _export(book, sources, tmp_path / "out.epub")
    package = _xml(exported, "OPS/package.opf")
    original = etree.fromstring(_entries(KUSAMAKURA)["OPS/package.opf"])

    assert package.findtext(".//dc:language", namespaces=NS) == "zh-CN"
    title = package.find(".//dc:title", NS)
    assert (title.text, title.get("{http://www.w3.org/XML/1998/namespace}lang")) == (
        "草枕（中文）",
        "zh-CN",
    )
    assert package.findtext(".//dc:identifier", namespaces=NS) == original.findtext(
        ".//dc:identifier", namespaces=NS
    )
    modified = ".//opf:meta[@property='dcterms:modified']"
    assert package.findtext(modified, namespaces=NS) != original.findtext(modified, namespaces=NS)
    ncx = _xml(exported, "OPS/xhtml/toc.ncx")
    assert ncx.findtext(".//ncx:docTitle/ncx:text", namespaces=NS) == "草枕（中文）"


def test_nav_and_ncx_show_the_translated_chapter_titles(tmp_path: Path, library: Library) -> None:
    book, sources = _import(library, KUSAMAKURA)

    exported, _ = _export(book, sources, tmp_path / "out.epub")
    nav = _xml(exported, "OPS/xhtml/目次.xhtml")
    ncx = _xml(exported, "OPS/xhtml/toc.ncx")

    toc = nav.find(".//h:nav[@id='目次']", NS)
    labels = [element_text(a) for a in toc.iterfind(".//h:a", NS)]
    assert labels == [_translated(n) for n in KANJI_NUMBERS] + ["この文書について"]
    ncx_labels = [t.text for t in ncx.iterfind(".//ncx:navLabel/ncx:text", NS)]
    assert ncx_labels == ["表紙", *(_translated(n) for n in KANJI_NUMBERS), "この文書について"]
    chapter = _xml(exported, "OPS/xhtml/一.xhtml")
    assert chapter.findtext(".//h:title", namespaces=NS) == _translated("一")
    assert element_text(chapter.find(".//h:h2", NS)) == _translated("一")


# -- writing mode ------------------------------------------------------------------------------


def test_a_vertical_book_translated_into_chinese_turns_horizontal_throughout(
    tmp_path: Path, library: Library
) -> None:
    book, sources = _import(library, KUSAMAKURA)

    exported, _ = _export(book, sources, tmp_path / "out.epub")
    entries = _entries(exported)

    spine = etree.fromstring(entries["OPS/package.opf"]).find(".//opf:spine", NS)
    assert spine.get("page-progression-direction") == "ltr"
    for name, data in entries.items():
        if name.endswith(".css"):
            assert not re.search(rb"writing-mode\s*:\s*vertical", data), name
        if name.endswith(".xhtml") and b'class="vertical"' in data:
            links = etree.fromstring(data).iterfind(".//h:link", NS)
            rels = {link.get("class"): link.get("rel") for link in links if link.get("class")}
            assert rels == {"horizontal": "stylesheet", "vertical": "alternate stylesheet"}, name


@pytest.mark.parametrize(
    ("target", "mode"), [("zh-CN", WritingMode.KEEP), ("ja", None)], ids=["keep", "japanese"]
)
def test_a_vertical_book_stays_vertical_when_asked_or_for_a_japanese_target(
    tmp_path: Path, library: Library, target: str, mode: WritingMode | None
) -> None:
    book, sources = _import(library, KUSAMAKURA, target=target)

    exported, _ = _export(book, sources, tmp_path / "out.epub", writing_mode=mode)
    before, after = _entries(KUSAMAKURA), _entries(exported)

    spine = etree.fromstring(after["OPS/package.opf"]).find(".//opf:spine", NS)
    assert spine.get("page-progression-direction") == "rtl"
    assert after["OPS/css/vertical.css"] == before["OPS/css/vertical.css"]
    assert (
        b'rel="stylesheet" type="text/css" href="../css/vertical.css"'
        in after["OPS/xhtml/一.xhtml"]
    )


def test_writing_mode_vertical_turns_a_horizontal_book_right_to_left(
    tmp_path: Path, library: Library
) -> None:
    book, sources = _import(library, MOBY_DICK, chapters=slice(0, 5))

    exported, report = _export(
        book, sources, tmp_path / "out.epub", writing_mode=WritingMode.VERTICAL
    )
    entries = _entries(exported)

    assert report.added == ["OPS/honyaku-vertical.css"]
    assert b"writing-mode: vertical-rl" in entries["OPS/honyaku-vertical.css"]
    package = etree.fromstring(entries["OPS/package.opf"])
    assert package.find(".//opf:spine", NS).get("page-progression-direction") == "rtl"
    assert ("honyaku-vertical.css", "text/css") in _manifest(entries["OPS/package.opf"])
    for name in ("OPS/chapter_001.xhtml", "OPS/chapter_135.xhtml", "OPS/cover.xhtml"):
        hrefs = {link.get("href") for link in _xml(exported, name).iterfind(".//h:link", NS)}
        assert "honyaku-vertical.css" in hrefs, name


# -- bilingual ---------------------------------------------------------------------------------


def test_bilingual_output_puts_each_original_block_before_its_translation(
    tmp_path: Path, library: Library
) -> None:
    book, sources = _import(library, KUSAMAKURA)
    chapter = book.chapters[0]

    exported, report = _export(book, sources, tmp_path / "out.epub", bilingual=True)
    page = _xml(exported, "OPS/xhtml/一.xhtml")

    translations = [
        e for e in page.iter() if "honyaku-translation" in (e.get("class") or "").split()
    ]
    sources_read, translations_read = [], []
    for translation in translations:
        source = translation.getprevious()
        assert (source.tag, translation.get("id")) == (translation.tag, None)
        source_lines, translated_lines = _lines(source), _lines(translation)
        assert translated_lines == [_translated(line) for line in source_lines]
        sources_read += source_lines
        translations_read += translated_lines
    assert sources_read == [chapter.title, *(p.text for p in chapter.work_paragraphs)]
    assert "OPS/honyaku-bilingual.css" in report.added
    hrefs = {link.get("href") for link in page.iterfind(".//h:link", NS)}
    assert "../honyaku-bilingual.css" in hrefs


def _lines(element: etree._Element) -> list[str]:
    return [block.text for block in extract_text(element).blocks if block.text]


@pytest.mark.parametrize("ruby", [RubyMode.KEEP, RubyMode.DROP])
def test_bilingual_source_keeps_or_drops_its_ruby_as_asked(
    tmp_path: Path, library: Library, ruby: RubyMode
) -> None:
    book, sources = _import(library, KUSAMAKURA)

    exported, _ = _export(book, sources, tmp_path / "out.epub", bilingual=True, ruby=ruby)
    page = _xml(exported, "OPS/xhtml/一.xhtml")

    original = etree.fromstring(_entries(KUSAMAKURA)["OPS/xhtml/一.xhtml"])
    in_original = len(original.findall(".//h:rt", NS))
    readings = in_original if ruby is RubyMode.KEEP else 0
    assert in_original > 0
    assert len(page.findall(".//h:rt", NS)) == readings
    assert len(page.findall(".//h:ruby", NS)) == readings
    first = page.find(".//h:section/h:p", NS)
    assert element_text(first) == book.chapters[0].paragraphs[0].text


# -- what is left alone ------------------------------------------------------------------------


def test_untranslated_chapters_keep_their_documents_byte_for_byte(
    tmp_path: Path, library: Library
) -> None:
    book, sources = _import(library, KUSAMAKURA, chapters=slice(0, 1))

    exported, report = _export(book, sources, tmp_path / "out.epub", writing_mode=WritingMode.KEEP)
    again = _read_back(exported)

    assert sorted(report.rewritten) == [
        "OPS/package.opf",
        "OPS/xhtml/toc.ncx",
        "OPS/xhtml/一.xhtml",
        "OPS/xhtml/目次.xhtml",
    ]
    before, after = _entries(KUSAMAKURA), _entries(exported)
    assert list(after) == list(before)
    for name in set(before) - set(report.rewritten):
        assert after[name] == before[name], name
    assert again[1:] == _shape(book)[1:]
    assert again[0][1][0] == _translated(book.chapters[0].paragraphs[0].text)


def test_a_translation_whose_source_no_longer_reads_the_same_is_left_out(
    tmp_path: Path, library: Library
) -> None:
    book, sources = _import(library, KUSAMAKURA, chapters=slice(0, 1))
    first, second = book.chapters[0].work_paragraphs[:2]
    swapped = {
        **sources.paragraphs,
        first.id: sources.paragraphs[second.id],
        second.id: sources.paragraphs[first.id],
    }
    misplaced = BookSources(sources.original, swapped, sources.titles)

    exported, report = _export(book, misplaced, tmp_path / "out.epub")
    paragraphs = _read_back(exported)[0][1]

    assert sorted(report.missed) == sorted(
        (s.document, s.locator) for s in (swapped[first.id], swapped[second.id])
    )
    assert paragraphs[:2] == (first.text, second.text)
    assert paragraphs[2] == _translated(book.chapters[0].work_paragraphs[2].text)


def _opf(manifest: str, spine: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">test</dc:identifier><dc:title>Notes</dc:title>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2020-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>{manifest}</manifest>
  <spine>{spine}</spine>
</package>"""


def _page(body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
        f"<head><title>Notes</title></head><body>{body}</body></html>"
    )


def _small_epub(tmp_path: Path, make_epub: MakeEpub, body: str) -> Path:
    return make_epub(
        tmp_path / "small.epub",
        {
            "OEBPS/content.opf": _opf(
                '<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>'
                '<item id="pic" href="pic.png" media-type="image/png"/>',
                '<itemref idref="a"/>',
            ),
            "OEBPS/a.xhtml": _page(body),
            "OEBPS/pic.png": b"\x89PNG\r\n\x1a\n",
        },
    )


def test_markup_a_translation_has_no_marks_for_is_dropped_but_what_stands_alone_and_ids_stay(
    tmp_path: Path, library: Library, make_epub: MakeEpub
) -> None:
    source = _small_epub(
        tmp_path,
        make_epub,
        "<h1>Notes</h1>"
        '<p>He <em>ran</em> home<a id="r1" href="#n1" epub:type="noteref">1</a> fast.</p>'
        '<p class="quote"><em id="e">All of it stressed.</em></p>'
        '<p><img src="pic.png" alt=""/> A caption. <a id="end"/></p>'
        '<p><a href="#r1">Back to the text.</a></p>'
        '<aside id="n1" epub:type="footnote"><p>The note.</p></aside>',
    )
    book, sources = _import(library, source)

    exported, report = _export(book, sources, tmp_path / "out.epub")
    body = _entries(exported)["OEBPS/a.xhtml"].decode().split("<body>")[1]

    assert report.missed == []
    assert '<a id="r1"/>译He ran home1 fast.' in body
    assert (
        '<p class="quote" xml:lang="zh-CN" lang="zh-CN"><em id="e">译All of it stressed.</em>'
        in body
    )
    assert '<img src="pic.png" alt=""/> 译A caption. <a id="end"/></p>' in body
    assert '<a href="#r1">译Back to the text.</a>' in body
    assert '<p xml:lang="zh-CN" lang="zh-CN">译The note.</p>' in body


def test_lines_split_by_br_are_translated_line_by_line(
    tmp_path: Path, library: Library, make_epub: MakeEpub
) -> None:
    source = _small_epub(
        tmp_path,
        make_epub,
        "<h1>Notes</h1><p>一行目<br/>二行目<br/><br/>四行目</p>"
        "<div>wrapped <span>across<br/>a break</span> here</div>",
    )
    book, sources = _import(library, source)

    exported, report = _export(book, sources, tmp_path / "out.epub")
    body = _entries(exported)["OEBPS/a.xhtml"].decode().split("<body>")[1]

    assert report.missed == []
    assert '<p xml:lang="zh-CN" lang="zh-CN">译一行目<br/>译二行目<br/><br/>译四行目</p>' in body
    # A line cut by a break inside an inline element cannot be cut out alone: its run is
    # rewritten as plain lines.
    assert ">译wrapped across<br/>译a break here</div>" in body
    assert _read_back(exported) == _expected_shape(book)


# -- epubcheck ---------------------------------------------------------------------------------


def _problems(output: str) -> int:
    found = _MESSAGES.search(output)
    assert found, output
    return int(found.group(1)) + int(found.group(2))


def test_in_place_exports_pass_epubcheck_no_worse_than_their_originals(
    tmp_path: Path, library: Library, epubcheck: Callable
) -> None:
    exports = [
        _export(*_import(library, KUSAMAKURA), tmp_path / "kusamakura.epub")[0],
        _export(
            *_import(library, KUSAMAKURA),
            tmp_path / "kusamakura-bilingual.epub",
            bilingual=True,
            ruby=RubyMode.DROP,
            writing_mode=WritingMode.KEEP,
        )[0],
        _export(
            *_import(library, MOBY_DICK),
            tmp_path / "moby-vertical-bilingual.epub",
            bilingual=True,
            writing_mode=WritingMode.VERTICAL,
        )[0],
        _export(*_import(library, FRANKENSTEIN), tmp_path / "frankenstein.epub", bilingual=True)[0],
        _export(*_import(library, LIVE_MANUAL), tmp_path / "live-manual.epub")[0],
    ]

    *clean, live, original = epubcheck([*exports, LIVE_MANUAL])

    for path, report in zip(exports, clean, strict=False):
        assert report.clean, f"epubcheck on {path.name}:\n{report.output[-3000:]}"
    assert _problems(original.output) > 0
    assert _problems(live.output) <= _problems(original.output)


# -- through write_book ------------------------------------------------------------------------


def test_write_book_translates_in_place_given_sources_and_rebuilds_without(
    tmp_path: Path, library: Library
) -> None:
    book, sources = _import(library, KUSAMAKURA, chapters=slice(0, 1))

    write_book(book, tmp_path / "in-place.epub", ExportFormat.EPUB, sources=sources)
    write_book(book, tmp_path / "rebuilt.epub", ExportFormat.EPUB)

    assert "OPS/images/夏目漱石.jpg" in _entries(tmp_path / "in-place.epub")
    assert "OEBPS/chapter-0001.xhtml" in _entries(tmp_path / "rebuilt.epub")
