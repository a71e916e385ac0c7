"""A book from an EPUB 2 or 3 file: spine order, chapters from the table of contents.

Every table-of-contents entry that points into a spine document opens a chapter there, at
the element its fragment names (``file.html#id`` splits a file into several chapters).
A spine document no entry points into continues the chapter before it. Text before the
first entry is a front chapter named after its first heading or its document title.
Places the book marks as cover, table of contents or copyright page (landmarks, guide,
epub:type) are skipped, each to the end of its file. Without any usable table of contents,
each spine document is a chapter. A chapter left without text (a title page) is dropped.

The draft keeps the EPUB's bytes and, for each paragraph, its document and locator (see
``locators``), so that an export can translate the original in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from honyaku.domain.book import BookDraft, ChapterDraft
from honyaku.domain.sources import EPUB_MEDIA_TYPE, OriginalFile, SourceLocation
from honyaku.errors import BookFormatError
from honyaku.formats.chapters import finish_chapter
from honyaku.formats.epub_archive import EpubArchive
from honyaku.formats.epub_package import (
    Package,
    Target,
    TocEntry,
    encrypted_paths,
    read_navigation,
    read_package,
)
from honyaku.formats.limits import MIB, BookBudget
from honyaku.formats.markup import parse_document
from honyaku.formats.xhtml import Block, DocumentText, extract_text

MAX_KEPT_ORIGINAL_BYTES = 512 * MIB
"""A larger EPUB is read but not kept: its exports are rebuilt from the paragraphs."""


@dataclass(frozen=True, slots=True)
class _Mark:
    """A place the book points at: a chapter start (with its toc title) or a skipped part."""

    target: Target
    title: str | None
    skipped: bool


@dataclass(frozen=True, slots=True)
class _Cut:
    """Where a chapter starts inside a document; ``title`` None means "find one"."""

    position: int
    title: str | None
    skipped: bool
    order: int


@dataclass(slots=True)
class _Document:
    """A spine document's paragraphs, and where each one sits in it."""

    path: str
    text: DocumentText
    sources: list[SourceLocation | None]


@dataclass(slots=True)
class _Segment:
    """The blocks between two cuts: one chapter to be, unless skipped or empty."""

    title: str | None
    skipped: bool
    document: DocumentText
    path: str
    blocks: list[Block] = field(default_factory=list)
    sources: list[SourceLocation | None] = field(default_factory=list)


def read_epub(path: Path, source: str) -> BookDraft:
    """The book in the EPUB file at ``path``; ``source`` names it in errors."""
    with EpubArchive(path, source) as archive:
        package = read_package(archive)
        _refuse_drm(archive, package)
        navigation = read_navigation(archive, package)
        documents = _read_documents(archive, package)
    title = package.title or path.stem
    chapters = _chapters(documents, navigation.toc, navigation.skipped, title)
    if not chapters:
        raise BookFormatError(f"{source}: the EPUB has no readable text")
    return BookDraft(
        title=title,
        chapters=tuple(chapters),
        author=package.author,
        language=package.language,
        original=_original(path, source),
    )


def _original(path: Path, source: str) -> OriginalFile | None:
    if path.stat().st_size > MAX_KEPT_ORIGINAL_BYTES:
        return None
    try:
        return OriginalFile(path.name, EPUB_MEDIA_TYPE, path.read_bytes())
    except OSError as error:
        raise BookFormatError(f"{source}: cannot be read ({error.strerror})") from None


def _refuse_drm(archive: EpubArchive, package: Package) -> None:
    if encrypted_paths(archive) & set(package.spine):
        raise BookFormatError(f"{archive.source}: DRM-protected; its text cannot be read")


def _read_documents(archive: EpubArchive, package: Package) -> list[_Document]:
    documents = []
    budget = BookBudget(archive.source)
    for doc_path in package.spine:
        data = archive.read(doc_path)
        if data is None:
            continue  # the spine names a file the zip lacks: read the rest of the book
        root = parse_document(data, f"{archive.source}: {doc_path}")
        try:
            documents.append(_located(doc_path, extract_text(root, trace=True, budget=budget)))
        except RecursionError:
            raise BookFormatError(f"{archive.source}: {doc_path}: nested too deeply") from None
    return documents


def _located(doc_path: str, text: DocumentText) -> _Document:
    """The document's blocks, freed from its tree, and their locations."""
    sources = [
        SourceLocation(doc_path, block.origin.locator, block.origin.marks)
        if block.origin is not None and block.origin.container is not None
        else None
        for block in text.blocks
    ]
    text.blocks = [Block(block.text, block.heading_level) for block in text.blocks]
    return _Document(doc_path, text, sources)


def _chapters(
    documents: list[_Document],
    toc: list[TocEntry],
    skipped: set[Target],
    book_title: str,
) -> list[ChapterDraft]:
    cuts = _cuts(documents, toc, skipped)
    if not any(not cut.skipped for doc_cuts in cuts.values() for cut in doc_cuts):
        cuts = _cuts_per_document(documents, skipped)
    chapters = []
    for segment in _segments(documents, cuts):
        if segment.skipped:
            continue
        chapter = finish_chapter(
            _segment_title(segment, book_title),
            [b.text for b in segment.blocks],
            segment.sources,
        )
        if chapter is not None:
            chapters.append(chapter)
    return chapters


def _cuts(
    documents: list[_Document], toc: list[TocEntry], skipped: set[Target]
) -> dict[str, list[_Cut]]:
    marks = [_Mark(entry.target, entry.title or None, False) for entry in toc]
    marks += [_Mark(target, None, True) for target in skipped]
    return {
        document.path: _cuts_in(document.text, [m for m in marks if m.target.path == document.path])
        for document in documents
    }


def _cuts_in(document: DocumentText, marks: list[_Mark]) -> list[_Cut]:
    cuts = []
    for order, mark in enumerate(marks):
        fragment = mark.target.fragment
        position = document.anchors.get(fragment) if fragment else 0
        if position is not None:
            cuts.append(_Cut(position, mark.title, mark.skipped, order))
    if not cuts and marks:
        # Every fragment is unknown: the first entry still marks the document's start.
        cuts.append(_Cut(0, marks[0].title, marks[0].skipped, 0))
    # Where several marks meet, a skip mark sorts last, so it is the one that holds the text.
    return sorted(cuts, key=lambda cut: (cut.position, cut.skipped, cut.order))


def _cuts_per_document(documents: list[_Document], skipped: set[Target]) -> dict[str, list[_Cut]]:
    skipped_paths = {t.path for t in skipped if t.fragment is None}
    return {d.path: [_Cut(0, None, d.path in skipped_paths, 0)] for d in documents}


def _segments(documents: list[_Document], cuts: dict[str, list[_Cut]]) -> list[_Segment]:
    first = documents[0] if documents else _Document("", DocumentText(), [])
    current = _Segment(None, False, first.text, first.path)
    segments = [current]
    for document in documents:
        if current.skipped:  # a skipped part (a cover, a contents page) ends with its file
            current = _Segment(None, False, document.text, document.path)
            segments.append(current)
        start = 0
        for cut in cuts.get(document.path, []):
            _take(current, document, start, cut.position)
            start = max(start, cut.position)
            current = _Segment(cut.title, cut.skipped, document.text, document.path)
            segments.append(current)
        _take(current, document, start, len(document.text.blocks))
    return segments


def _take(segment: _Segment, document: _Document, start: int, end: int) -> None:
    segment.blocks.extend(document.text.blocks[start:end])
    segment.sources.extend(document.sources[start:end])


def _segment_title(segment: _Segment, book_title: str) -> str:
    if segment.title:
        return segment.title
    heading = next((b for b in segment.blocks if b.text), None)
    if heading is not None and heading.heading_level:
        return heading.text
    return segment.document.title or PurePosixPath(segment.path).stem or book_title
