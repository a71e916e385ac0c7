"""An EPUB exported as itself, with its text translated in place.

The original archive the book was imported from is copied entry by entry. Only what must
change is parsed and written again; every other entry (cover, images, fonts, stylesheets,
footnotes, the spine) keeps its bytes:

- each content document that holds a translated paragraph or chapter title gets the
  translations in place (``placement``); its ``<title>`` is translated too when it reads
  like the book's or a chapter's title;
- the navigation document (EPUB 3 nav) and the NCX get translated labels: a label that reads
  like a chapter title takes that chapter's translated title (a short translated paragraph,
  such as a heading kept in the text, serves when no chapter title matches); the NCX's
  ``docTitle`` takes the book's translated title;
- the package document gets the target ``dc:language``, the translated ``dc:title`` where
  the book's title was, a new ``dcterms:modified``, the spine direction of the writing mode
  and the stylesheets honyaku adds (``writing_mode``; bilingual output);
- ``mimetype`` is written first and stored, as the OCF container requires, even where the
  original got that wrong.

A document that is not well-formed XML is never rewritten (an editor must not write back
what a repairing parser guessed): its paragraphs stay in the source language and are
reported as missed, as are paragraphs whose locator no longer finds their text.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import IO
from urllib.parse import quote

from lxml import etree

from honyaku.domain.book import Book
from honyaku.domain.sources import BookSources
from honyaku.formats.chapters import title_key
from honyaku.formats.epub_archive import EpubArchive
from honyaku.formats.epub_package import (
    HTML_MEDIA_TYPES,
    NCX_MEDIA_TYPE,
    ManifestItem,
    Package,
    read_package,
)
from honyaku.formats.markup import local_name, parse_for_editing
from honyaku.formats.placement import (
    Placement,
    PlacementStyle,
    place_translations,
    translate_label,
)
from honyaku.formats.writing_mode import (
    VERTICAL_STYLESHEET,
    WritingMode,
    choose_alternate_style,
    declares_vertical,
    default_writing_mode,
    horizontal_css,
    make_document_horizontal,
    page_progression,
)
from honyaku.formats.xhtml import element_text

MIMETYPE = b"application/epub+zip"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
CSS_MEDIA_TYPE = "text/css"
BILINGUAL_STYLESHEET_FILE = "honyaku-bilingual.css"
VERTICAL_STYLESHEET_FILE = "honyaku-vertical.css"
BILINGUAL_STYLESHEET = """\
.honyaku-translation {
  color: #1f3a5f;
  margin-top: 0.2em;
  margin-bottom: 0.8em;
}
"""
_CHARSET = re.compile(r"charset\s*=\s*[\w.:-]+", re.IGNORECASE)
_STANDALONE = re.compile(rb"""standalone\s*=\s*["'](yes|no)["']""")


class RubyMode(StrEnum):
    """What bilingual output does with the ruby of the source text."""

    KEEP = "keep"
    DROP = "drop"


@dataclass(frozen=True, slots=True)
class InPlaceOptions:
    bilingual: bool = False
    writing_mode: WritingMode | None = None
    """``None``: horizontal for a Chinese or Western target, kept for a Japanese one."""
    ruby: RubyMode = RubyMode.KEEP


@dataclass(slots=True)
class InPlaceReport:
    placed: int = 0
    """Paragraphs and chapter titles whose translation was put in place."""
    missed: list[tuple[str, str]] = field(default_factory=list)
    """(document, locator) of translations that found no place and left the source there."""
    rewritten: list[str] = field(default_factory=list)
    """Entries of the archive written anew; every other entry kept its bytes."""
    added: list[str] = field(default_factory=list)


def write_epub_in_place(
    book: Book, sources: BookSources, file: IO[bytes], options: InPlaceOptions | None = None
) -> InPlaceReport:
    """Write ``book``'s original EPUB, translated, into ``file``."""
    with EpubArchive(sources.original.data, sources.original.name) as archive:
        export = _Export(book, sources, archive, options or InPlaceOptions())
        export.write(file)
    return export.report


class _Export:
    def __init__(
        self, book: Book, sources: BookSources, archive: EpubArchive, options: InPlaceOptions
    ) -> None:
        self.book = book
        self.archive = archive
        self.options = options
        self.package = read_package(archive)
        self.opf = self._parse(self.package.path)
        self.epub3 = self.opf is not None and (self.opf.get("version") or "").startswith("3")
        self.style = PlacementStyle(
            book.target_lang,
            html_lang=self.epub3,
            bilingual=options.bilingual,
            drop_source_ruby=options.ruby is RubyMode.DROP,
        )
        self.placements = _placements_by_document(book, sources)
        self.labels = _label_translations(book)
        self.switch = self._writing_mode_switch()
        self.report = InPlaceReport()
        self.added: dict[str, bytes] = {}

    # -- the archive -------------------------------------------------------------------------

    def write(self, file: IO[bytes]) -> None:
        names = {info.filename: name for name, info in self.archive.entries()}
        rewritten = self._rewritten(names)
        with zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as out:
            out.writestr(zipfile.ZipInfo("mimetype"), MIMETYPE, zipfile.ZIP_STORED)
            for name, info in self.archive.entries():
                if name == "mimetype":
                    continue
                data = rewritten.get(name)
                self.report.rewritten += [name] if data is not None else []
                content = data if data is not None else self.archive.read(name) or b""
                out.writestr(_entry_info(name, info, changed=data is not None), content)
            for name, content in self.added.items():
                out.writestr(_entry_info(name, None, changed=True), content)
                self.report.added.append(name)

    def _rewritten(self, names: dict[str, str]) -> dict[str, bytes]:
        """New bytes for each entry that changes: documents first, the package last."""
        rewritten: dict[str, bytes] = {}
        visited: set[str] = set()
        for item in _items_by_path(self.package):
            info = self.archive.find(item.path)
            if info is None or info.filename not in names:
                continue
            visited.add(item.path)
            name = names[info.filename]
            data = self._rewrite_item(item)
            if data is not None:
                rewritten[name] = data
        for document in set(self.placements) - visited:  # a document the archive lacks now
            self.report.missed += [(document, p.locator) for p in self.placements[document]]
        package_info = self.archive.find(self.package.path)
        package = self._rewrite_package()
        if package_info is not None and package is not None:
            rewritten[names[package_info.filename]] = package
        return rewritten

    def _rewrite_item(self, item: ManifestItem) -> bytes | None:
        if item.media_type in HTML_MEDIA_TYPES or item.path in self.placements:
            return self._rewrite_document(item)
        if item.media_type == NCX_MEDIA_TYPE:
            return self._rewrite_ncx(item.path)
        if item.media_type == CSS_MEDIA_TYPE and self.switch is WritingMode.HORIZONTAL:
            return self._rewrite_css(item.path)
        return None

    def _parse(self, path: str) -> etree._Element | None:
        data = self.archive.read(path)
        return None if data is None else parse_for_editing(data, f"{self.archive.source}: {path}")

    # -- content documents -------------------------------------------------------------------

    def _rewrite_document(self, item: ManifestItem) -> bytes | None:
        placements = self.placements.get(item.path, [])
        is_nav = "nav" in item.properties
        if not (placements or is_nav or self._switches(item)):
            return None
        root = self._parse(item.path)
        if root is None:
            self.report.missed += [(item.path, p.locator) for p in placements]
            return None
        changed = False
        if placements:
            result = place_translations(root, placements, self.style)
            self.report.placed += result.placed
            self.report.missed += [(item.path, locator) for locator in result.missed]
            changed = result.placed > 0
            if result.bilingual:
                self._link_stylesheet(root, item.path, BILINGUAL_STYLESHEET_FILE)
        if is_nav:
            changed = self._translate_nav(root) or changed
        changed = self._switch_document(root, item.path) or changed
        if not changed:
            return None
        self._translate_head_title(root)
        _declare_utf8(root)
        return _serialize(root, self.archive.read(item.path))

    def _translate_nav(self, root: etree._Element) -> bool:
        changed = False
        for nav in (e for e in root.iter() if local_name(e.tag) == "nav"):
            for label in nav.iter():
                if local_name(label.tag) not in ("a", "span") or _is_inside_label(label):
                    continue
                translation = self.labels.get(title_key(element_text(label)))
                if translation:
                    translate_label(label, translation, self.style)
                    changed = True
        return changed

    def _translate_head_title(self, root: etree._Element) -> None:
        for title in root.iter():
            if local_name(title.tag) == "body":
                return
            if local_name(title.tag) == "title" and title.text:
                translation = self.labels.get(title_key(title.text))
                if translation:
                    title.text = translation

    # -- writing mode ------------------------------------------------------------------------

    def _writing_mode_switch(self) -> WritingMode | None:
        """The writing mode to switch to, or ``None`` when the book already reads that way."""
        mode = self.options.writing_mode or default_writing_mode(self.book.target_lang)
        if mode is WritingMode.KEEP:
            return None
        vertical = self._spine_direction() == "rtl" or any(
            declares_vertical(self._css(item.path))
            for item in self.package.manifest.values()
            if item.media_type == CSS_MEDIA_TYPE
        )
        if (mode is WritingMode.VERTICAL) == vertical:
            return None
        return mode

    def _spine_direction(self) -> str | None:
        spine = self._spine()
        return None if spine is None else spine.get("page-progression-direction")

    def _spine(self) -> etree._Element | None:
        if self.opf is None:
            return None
        return next((e for e in self.opf.iter() if local_name(e.tag) == "spine"), None)

    def _css(self, path: str) -> str:
        data = self.archive.read(path) or b""
        return data.decode("utf-8", errors="replace")

    def _switches(self, item: ManifestItem) -> bool:
        if self.switch is WritingMode.VERTICAL:
            return True
        if self.switch is WritingMode.HORIZONTAL:
            return b"vertical" in (self.archive.read(item.path) or b"").lower()
        return False

    def _switch_document(self, root: etree._Element, path: str) -> bool:
        if self.switch is WritingMode.HORIZONTAL:
            return make_document_horizontal(root)
        if self.switch is WritingMode.VERTICAL:
            choose_alternate_style(root, WritingMode.VERTICAL)
            self._link_stylesheet(root, path, VERTICAL_STYLESHEET_FILE)
            return True
        return False

    def _rewrite_css(self, path: str) -> bytes | None:
        data = self.archive.read(path)
        if data is None:
            return None
        try:
            css = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return horizontal_css(css).encode("utf-8") if declares_vertical(css) else None

    # -- added stylesheets -------------------------------------------------------------------

    def _added_path(self, file_name: str) -> str:
        folder = posixpath.dirname(self.package.path)
        stem, extension = posixpath.splitext(file_name)
        path, number = posixpath.join(folder, file_name), 1
        while self.archive.find(path) is not None:
            number += 1
            path = posixpath.join(folder, f"{stem}-{number}{extension}")
        return path

    def _link_stylesheet(self, root: etree._Element, document: str, file_name: str) -> None:
        stylesheets = {
            BILINGUAL_STYLESHEET_FILE: BILINGUAL_STYLESHEET,
            VERTICAL_STYLESHEET_FILE: VERTICAL_STYLESHEET,
        }
        path = next((p for p in self.added if posixpath.basename(p) == file_name), None)
        if path is None:
            path = self._added_path(file_name)
            self.added[path] = stylesheets[file_name].encode("utf-8")
        head = next((e for e in root.iter() if local_name(e.tag) == "head"), None)
        if head is None:
            return
        namespace = etree.QName(root).namespace
        link = etree.SubElement(head, f"{{{namespace}}}link" if namespace else "link")
        link.set("rel", "stylesheet")
        link.set("type", CSS_MEDIA_TYPE)
        link.set("href", quote(posixpath.relpath(path, posixpath.dirname(document))))

    # -- navigation and package --------------------------------------------------------------

    def _rewrite_ncx(self, path: str) -> bytes | None:
        root = self._parse(path)
        if root is None:
            return None
        changed = False
        for element in root.iter():
            name = local_name(element.tag)
            if name not in ("navlabel", "doctitle"):
                continue
            for text in (t for t in element if local_name(t.tag) == "text"):
                label = "".join(text.itertext())
                translation = (
                    self._book_title() if name == "doctitle" else self.labels.get(title_key(label))
                )
                if translation and label.strip():
                    del text[:]
                    text.text = translation
                    changed = True
        return _serialize(root, self.archive.read(path)) if changed else None

    def _rewrite_package(self) -> bytes | None:
        if self.opf is None:
            return None
        metadata = next((e for e in self.opf.iter() if local_name(e.tag) == "metadata"), None)
        if metadata is not None:
            self._translate_metadata(metadata)
        spine = self._spine()
        if self.switch is not None and spine is not None and self.epub3:
            spine.set("page-progression-direction", page_progression(self.switch))
        manifest = next((e for e in self.opf.iter() if local_name(e.tag) == "manifest"), None)
        if manifest is not None:
            self._declare_added(manifest)
        return _serialize(self.opf, self.archive.read(self.package.path))

    def _translate_metadata(self, metadata: etree._Element) -> None:
        if self.report.placed:
            language = next((e for e in metadata if local_name(e.tag) == "language"), None)
            if language is not None:
                language.text = self.book.target_lang
        translated = self._book_title()
        for title in (e for e in metadata if local_name(e.tag) == "title"):
            if translated and title_key("".join(title.itertext())) == title_key(self.book.title):
                title.text = translated
                if title.get(XML_LANG) is not None:
                    title.set(XML_LANG, self.book.target_lang)
        if self.epub3:
            for meta in (e for e in metadata if local_name(e.tag) == "meta"):
                if meta.get("property") == "dcterms:modified":
                    meta.text = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def _declare_added(self, manifest: etree._Element) -> None:
        taken = (
            {e.get("id") for e in self.opf.iter() if e.get("id")} if self.opf is not None else set()
        )
        namespace = etree.QName(manifest).namespace
        folder = posixpath.dirname(self.package.path)
        for number, path in enumerate(self.added, start=1):
            item_id = f"honyaku-css-{number}"
            while item_id in taken:
                item_id += "-x"
            item = etree.SubElement(manifest, f"{{{namespace}}}item" if namespace else "item")
            item.set("id", item_id)
            item.set("href", quote(posixpath.relpath(path, folder)))
            item.set("media-type", CSS_MEDIA_TYPE)

    def _book_title(self) -> str | None:
        return _book_title_translation(self.book)


def _items_by_path(package: Package) -> list[ManifestItem]:
    """Each file of the manifest once (an item may be listed again with a fragment)."""
    items: dict[str, ManifestItem] = {}
    for item in package.manifest.values():
        seen = items.get(item.path)
        if seen is not None:
            item = ManifestItem(item.path, seen.media_type, seen.properties | item.properties)
        items[item.path] = item
    return list(items.values())


def _placements_by_document(book: Book, sources: BookSources) -> dict[str, list[Placement]]:
    placements: dict[str, list[Placement]] = defaultdict(list)
    for chapter in book.chapters:
        heading = sources.titles.get(chapter.id)
        if chapter.translated_title and heading is not None:
            placements[heading.document].append(
                Placement(heading.locator, chapter.title, chapter.translated_title, title=True)
            )
        for paragraph in chapter.paragraphs:
            source = sources.paragraphs.get(paragraph.id)
            if paragraph.translation and not paragraph.is_empty and source is not None:
                placements[source.document].append(
                    Placement(
                        source.locator,
                        paragraph.text,
                        paragraph.translation,
                        marks=source.marks,
                        placed=paragraph.translation_marks,
                    )
                )
    return placements


def _label_translations(book: Book) -> dict[str, str]:
    """Translations of what a table of contents says, by ``title_key``: the chapter titles.

    Labels of parts the import left out (a title page, a contents page) stay as they are:
    their headings were never translated, and a label must read like its heading.
    """
    labels = {title_key(c.title): c.translated_title for c in book.chapters if c.translated_title}
    if book.translated_title:
        labels[title_key(book.title)] = book.translated_title
    labels.pop("", None)
    return labels


def _book_title_translation(book: Book) -> str | None:
    """The book's translated title, or the translation of a chapter title or paragraph that
    reads the same as the book's title."""
    if book.translated_title:
        return book.translated_title
    key = title_key(book.title)
    for chapter in book.chapters:
        if chapter.translated_title and title_key(chapter.title) == key:
            return chapter.translated_title
        for paragraph in chapter.paragraphs:
            if paragraph.translation and title_key(paragraph.text) == key:
                return paragraph.translation
    return None


def _is_inside_label(element: etree._Element) -> bool:
    """A span inside a link is part of that link's label, translated with it."""
    return any(local_name(a.tag) in ("a", "span") for a in element.iterancestors())


def _declare_utf8(root: etree._Element) -> None:
    """Documents are written back in UTF-8; a meta that declared another charset is fixed."""
    for meta in (e for e in root.iter() if local_name(e.tag) == "meta"):
        if meta.get("charset"):
            meta.set("charset", "utf-8")
        content = meta.get("content")
        if (meta.get("http-equiv") or "").lower() == "content-type" and content:
            meta.set("content", _CHARSET.sub("charset=utf-8", content))


def _serialize(root: etree._Element, original: bytes | None) -> bytes:
    """The document in UTF-8, with its doctype, and ``standalone`` only where the original
    declared it (lxml reads a missing declaration as ``standalone='no'``)."""
    tree = root.getroottree()
    declared = _STANDALONE.search((original or b"")[:200])
    if declared is None:
        return etree.tostring(tree, encoding="utf-8", xml_declaration=True)
    standalone = declared.group(1) == b"yes"
    return etree.tostring(tree, encoding="utf-8", xml_declaration=True, standalone=standalone)


def _entry_info(name: str, original: zipfile.ZipInfo | None, *, changed: bool) -> zipfile.ZipInfo:
    if original is None or changed:
        info = zipfile.ZipInfo(name, datetime.now().timetuple()[:6])
        info.compress_type = zipfile.ZIP_DEFLATED
        return info
    info = zipfile.ZipInfo(name, original.date_time)
    info.compress_type = (
        original.compress_type
        if original.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
        else zipfile.ZIP_DEFLATED
    )
    info.external_attr = original.external_attr
    return info
