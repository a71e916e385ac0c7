"""A book from one (X)HTML file, such as an Aozora Bunko XHTML page.

An Aozora page keeps its story in ``div.main_text``; the title block, the bibliographical
colophon and the notation notes around it are not story text. Its chapters are its 大/中
見出し. Any other page is read whole, and splits into chapters at the highest heading level
that occurs more than once.

The draft keeps the page's bytes, and each paragraph its locator in the page (see
``locators``; the document name is the file's name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from lxml import etree

from honyaku.domain.book import BookDraft, ChapterDraft
from honyaku.domain.sources import XHTML_MEDIA_TYPE, OriginalFile, SourceLocation
from honyaku.errors import BookFormatError
from honyaku.formats.chapters import (
    Heading,
    Line,
    assemble_chapters,
    pick_chapter_level,
    same_title,
)
from honyaku.formats.limits import BookBudget
from honyaku.formats.markup import local_name, parse_document
from honyaku.formats.xhtml import Block, element_text, extract_text

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
MAX_CHAPTER_HEADING_LEVEL = 3


def read_html_book(raw: bytes, *, name: str, stem: str, encoding: str | None = None) -> BookDraft:
    """A book from the bytes of an (X)HTML file; ``name`` is used in errors; ``encoding``
    overrides the file's own."""
    root = parse_document(raw, name, encoding=encoding)
    main_text = _find_class(root, "div", "main_text")
    if main_text is not None:
        return _read_aozora_page(root, main_text, name=name, stem=stem, raw=raw)
    document = extract_text(root, trace=True, budget=BookBudget(name))
    title = _meta(root, "dc.title") or document.title or stem
    blocks = document.blocks
    if blocks and blocks[0].heading_level and same_title(blocks[0].text, title):
        blocks = blocks[1:]
    level = _generic_chapter_level(blocks)
    entries = _entries(blocks, lambda b: 0 < b.heading_level <= level, name)
    chapters = assemble_chapters(entries, chapter_level=level, front_title=title)
    return _book(
        title,
        chapters,
        name,
        author=_meta(root, "dc.creator") or _meta(root, "author"),
        language=_language(root),
        original=OriginalFile(name, XHTML_MEDIA_TYPE, raw),
    )


def _read_aozora_page(
    root: etree._Element, main_text: etree._Element, *, name: str, stem: str, raw: bytes
) -> BookDraft:
    title_element = _find_class(root, "h1", "title")
    author_element = _find_class(root, "h2", "author")
    title = (element_text(title_element) if title_element is not None else None) or (
        _meta(root, "dc.title") or stem
    )
    author = (
        element_text(author_element) if author_element is not None else _meta(root, "dc.creator")
    )
    blocks = extract_text(main_text, aozora=True, trace=True, budget=BookBudget(name)).blocks
    level = pick_chapter_level(b.heading_level for b in blocks if 0 < b.heading_level <= 2)
    entries = _entries(blocks, lambda b: 0 < b.heading_level <= 2, name)
    chapters = assemble_chapters(entries, chapter_level=level, front_title=title)
    return _book(
        title,
        chapters,
        name,
        author=author or None,
        language=_language(root) or "ja",
        original=OriginalFile(name, XHTML_MEDIA_TYPE, raw),
    )


def _entries(
    blocks: list[Block], is_heading: Callable[[Block], bool], document: str
) -> Iterator[Heading | Line]:
    for block in blocks:
        origin = block.origin
        source = (
            SourceLocation(document, origin.locator, origin.marks)
            if origin is not None and origin.container is not None
            else None
        )
        if is_heading(block) and block.text:
            yield Heading(block.text, block.heading_level, source)
        else:
            yield Line(block.text, source)


def _generic_chapter_level(blocks: list[Block]) -> int:
    for level in range(1, MAX_CHAPTER_HEADING_LEVEL + 1):
        if sum(1 for b in blocks if b.heading_level == level) >= 2:
            return level
    return 0


def _book(
    title: str,
    chapters: list[ChapterDraft],
    name: str,
    *,
    author: str | None,
    language: str | None,
    original: OriginalFile,
) -> BookDraft:
    if not chapters:
        raise BookFormatError(f"{name}: the document has no readable text")
    return BookDraft(
        title=title,
        chapters=tuple(chapters),
        author=author,
        language=language,
        original=original,
    )


def _find_class(root: etree._Element, tag: str, css_class: str) -> etree._Element | None:
    for element in root.iter():
        if local_name(element.tag) == tag and css_class in (element.get("class") or "").split():
            return element
    return None


def _meta(root: etree._Element, meta_name: str) -> str | None:
    for element in root.iter():
        if local_name(element.tag) == "meta" and (element.get("name") or "").lower() == meta_name:
            content = (element.get("content") or "").strip()
            if content:
                return content
    return None


def _language(root: etree._Element) -> str | None:
    return root.get(XML_LANG) or root.get("lang") or None
