"""Writing a book as an EPUB 3 that epubcheck accepts without errors or warnings.

The zip is built by hand with lxml: ``mimetype`` first and stored, then the container, the
package document, a nav document, one stylesheet and one XHTML file per chapter with an
``<h1>`` title and a ``<p>`` per paragraph (an empty paragraph is ``<p class="empty"><br/></p>``,
which the reader turns back into an empty paragraph). Text the translation does not cover
keeps its source language in ``lang``/``xml:lang``. A paragraph's inline marks (the ruby and
emphasis of an Aozora Bunko file, the markup of an XHTML page) are written around its words,
the source's and the translation's alike, as elements any reader takes (``inline_marks``).
"""

from __future__ import annotations

import re
import uuid
import zipfile
from datetime import UTC, datetime
from typing import IO

from lxml import etree

from honyaku.domain.book import Book, Chapter, Paragraph
from honyaku.formats.inline_marks import InlineBuilder, Marked

XHTML_NS = "http://www.w3.org/1999/xhtml"
EPUB_NS = "http://www.idpf.org/2007/ops"
OPF_NS = "http://www.idpf.org/2007/opf"
DC_NS = "http://purl.org/dc/elements/1.1/"
CONTAINER_NS = "urn:oasis:names:tc:opendocument:xmlns:container"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
CONTENT_DIR = "OEBPS"
PACKAGE_FILE = "content.opf"
NAV_FILE = "nav.xhtml"
STYLE_FILE = "style.css"
IDENTIFIER_NAMESPACE = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")  # uuid.NAMESPACE_URL

STYLESHEET = """\
body { margin: 0 5%; line-height: 1.7; }
h1 { font-size: 1.4em; margin: 1.5em 0 1em; }
p { margin: 0 0 0.6em; }
p.empty { margin: 0; }
p.source, p.source-title { color: #555; font-size: 0.95em; margin-bottom: 0.2em; }
"""

# Characters XML 1.0 cannot hold; a stray one in a paragraph must not break the export.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def write_epub(book: Book, file: IO[bytes], *, bilingual: bool = False) -> None:
    """Write ``book`` as an EPUB 3 zip into ``file``."""
    language = _book_language(book)
    chapters = list(book.chapters)
    names = [f"chapter-{n:04d}.xhtml" for n in range(1, len(chapters) + 1)] or [
        "chapter-0001.xhtml"
    ]
    with zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), b"application/epub+zip", zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", _container())
        archive.writestr(f"{CONTENT_DIR}/{PACKAGE_FILE}", _package(book, language, names))
        archive.writestr(f"{CONTENT_DIR}/{NAV_FILE}", _nav(book, language, names))
        archive.writestr(f"{CONTENT_DIR}/{STYLE_FILE}", STYLESHEET.encode("utf-8"))
        if not chapters:  # a package needs one spine document, even for an empty book
            archive.writestr(f"{CONTENT_DIR}/{names[0]}", _title_page(book, language))
        for number, (chapter, name) in enumerate(zip(chapters, names, strict=False), start=1):
            page = _chapter_page(book, chapter, number, language, bilingual=bilingual)
            archive.writestr(f"{CONTENT_DIR}/{name}", page)


def book_identifier(book: Book) -> str:
    """A stable ``urn:uuid`` for the book: the same book id always gives the same one."""
    return f"urn:uuid:{uuid.uuid5(IDENTIFIER_NAMESPACE, f'honyaku:book:{book.id}')}"


def _book_language(book: Book) -> str:
    translated = any(
        chapter.translated_title or any(p.translation for p in chapter.paragraphs)
        for chapter in book.chapters
    )
    return book.target_lang if translated else book.source_lang


def _clean(text: str | None) -> str:
    return _NOT_XML.sub("", text or "")


def _serialize(root: etree._Element, *, html: bool = False) -> bytes:
    return etree.tostring(
        root,
        xml_declaration=True,
        encoding="utf-8",
        doctype="<!DOCTYPE html>" if html else None,
        pretty_print=True,
    )


def _container() -> bytes:
    root = etree.Element(f"{{{CONTAINER_NS}}}container", nsmap={None: CONTAINER_NS}, version="1.0")
    rootfiles = etree.SubElement(root, f"{{{CONTAINER_NS}}}rootfiles")
    etree.SubElement(
        rootfiles,
        f"{{{CONTAINER_NS}}}rootfile",
        {
            "full-path": f"{CONTENT_DIR}/{PACKAGE_FILE}",
            "media-type": "application/oebps-package+xml",
        },
    )
    return _serialize(root)


def _package(book: Book, language: str, names: list[str]) -> bytes:
    opf = f"{{{OPF_NS}}}"
    root = etree.Element(
        f"{opf}package",
        {"version": "3.0", "unique-identifier": "book-id", XML_LANG: language},
        nsmap={None: OPF_NS},
    )
    metadata = etree.SubElement(root, f"{opf}metadata", nsmap={"dc": DC_NS})
    _dc(metadata, "identifier", book_identifier(book)).set("id", "book-id")
    _dc(metadata, "title", _clean(book.title) or "Untitled")
    _dc(metadata, "language", language)
    if book.author:
        _dc(metadata, "creator", _clean(book.author))
    modified = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    etree.SubElement(metadata, f"{opf}meta", property="dcterms:modified").text = modified
    manifest = etree.SubElement(root, f"{opf}manifest")
    _item(manifest, "nav", NAV_FILE, "application/xhtml+xml").set("properties", "nav")
    _item(manifest, "style", STYLE_FILE, "text/css")
    spine = etree.SubElement(root, f"{opf}spine")
    for number, name in enumerate(names, start=1):
        _item(manifest, f"chapter-{number}", name, "application/xhtml+xml")
        etree.SubElement(spine, f"{opf}itemref", idref=f"chapter-{number}")
    return _serialize(root)


def _dc(parent: etree._Element, name: str, text: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{DC_NS}}}{name}")
    element.text = text
    return element


def _item(manifest: etree._Element, item_id: str, href: str, media_type: str) -> etree._Element:
    return etree.SubElement(
        manifest, f"{{{OPF_NS}}}item", {"id": item_id, "href": href, "media-type": media_type}
    )


def _html(title: str, language: str) -> tuple[etree._Element, etree._Element]:
    """A new XHTML page: its root and its body."""
    root = etree.Element(
        f"{{{XHTML_NS}}}html",
        {XML_LANG: language, "lang": language},
        nsmap={None: XHTML_NS, "epub": EPUB_NS},
    )
    head = etree.SubElement(root, f"{{{XHTML_NS}}}head")
    etree.SubElement(head, f"{{{XHTML_NS}}}meta", charset="utf-8")
    etree.SubElement(head, f"{{{XHTML_NS}}}title").text = _clean(title) or "-"
    etree.SubElement(
        head, f"{{{XHTML_NS}}}link", rel="stylesheet", type="text/css", href=STYLE_FILE
    )
    return root, etree.SubElement(root, f"{{{XHTML_NS}}}body")


def _add(parent: etree._Element, tag: str, text: str, **attributes: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{XHTML_NS}}}{tag}", attributes)
    element.text = _clean(text)
    return element


def _add_marked(parent: etree._Element, marked: Marked, **attributes: str) -> etree._Element:
    """A ``<p>`` of ``marked`` with its inline marks as elements."""
    element = etree.SubElement(parent, f"{{{XHTML_NS}}}p", attributes)
    if _clean(marked.text) != marked.text:  # the marks no longer fit what XML can hold
        element.text = _clean(marked.text)
        return element
    items = InlineBuilder(XHTML_NS, safe=True).items(marked)
    last: etree._Element | None = None
    for item in items:
        if isinstance(item, str):
            if last is None:
                element.text = (element.text or "") + item
            else:
                last.tail = (last.tail or "") + item
        else:
            element.append(item)
            last = item
    return element


def _set_language(element: etree._Element, language: str) -> None:
    element.set(XML_LANG, language)
    element.set("lang", language)


def _nav(book: Book, language: str, names: list[str]) -> bytes:
    root, body = _html(book.title, language)
    nav = etree.SubElement(body, f"{{{XHTML_NS}}}nav", {f"{{{EPUB_NS}}}type": "toc", "id": "toc"})
    _add(nav, "h1", book.title or "-")
    items = etree.SubElement(nav, f"{{{XHTML_NS}}}ol")
    titles = [_display_title(c, n) for n, c in enumerate(book.chapters, 1)] or [book.title or "-"]
    for title, name in zip(titles, names, strict=True):
        _add(etree.SubElement(items, f"{{{XHTML_NS}}}li"), "a", title, href=name)
    return _serialize(root, html=True)


def _display_title(chapter: Chapter, number: int) -> str:
    return _clean(chapter.translated_title or chapter.title).strip() or str(number)


def _title_page(book: Book, language: str) -> bytes:
    root, body = _html(book.title, language)
    _add(body, "h1", book.title or "-")
    return _serialize(root, html=True)


def _chapter_page(
    book: Book, chapter: Chapter, number: int, language: str, *, bilingual: bool
) -> bytes:
    title = _display_title(chapter, number)
    root, body = _html(title, language)
    section = etree.SubElement(body, f"{{{XHTML_NS}}}section", {f"{{{EPUB_NS}}}type": "chapter"})
    heading = _add(section, "h1", title)
    if not chapter.translated_title and language != book.source_lang:
        _set_language(heading, book.source_lang)
    if bilingual and chapter.translated_title:
        source_title = _add(section, "p", chapter.title, **{"class": "source-title"})
        _set_language(source_title, book.source_lang)
    for paragraph in chapter.paragraphs:
        _add_paragraph(section, paragraph, book, language, bilingual=bilingual)
    return _serialize(root, html=True)


def _add_paragraph(
    section: etree._Element, paragraph: Paragraph, book: Book, language: str, *, bilingual: bool
) -> None:
    if paragraph.is_empty:
        empty = _add(section, "p", "", **{"class": "empty"})
        etree.SubElement(empty, f"{{{XHTML_NS}}}br")
        return
    source = Marked.source_of(paragraph.text, paragraph.marks)
    if not paragraph.translation:
        element = _add_marked(section, source)
        if language != book.source_lang:
            _set_language(element, book.source_lang)
        return
    translation = Marked(
        paragraph.translation, paragraph.translation_marks, paragraph.marks, paragraph.text
    )
    if bilingual:
        copy = _add_marked(section, source, **{"class": "source"})
        _set_language(copy, book.source_lang)
        _add_marked(section, translation, **{"class": "translation"})
        return
    _add_marked(section, translation)
