"""An EPUB's package: its metadata, spine, table of contents and landmarks.

Real EPUBs are often broken, so every lookup here forgives: the package document is found
through META-INF/container.xml or, failing that, by its extension; elements are matched by
local name whatever their namespace prefix; manifest hrefs may carry fragments or percent
escapes; spine entries pointing at missing items are dropped; an EPUB 3 nav is preferred, an
NCX (even one with broken nesting) is the fallback.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from lxml import etree

from honyaku.errors import BookFormatError
from honyaku.formats.epub_archive import EpubArchive
from honyaku.formats.markup import local_name, parse_document, parse_xml
from honyaku.formats.xhtml import EPUB_TYPE, element_text, normalize_space

CONTAINER_PATH = "META-INF/container.xml"
ENCRYPTION_PATH = "META-INF/encryption.xml"
NCX_MEDIA_TYPE = "application/x-dtbncx+xml"
HTML_MEDIA_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/xml"})
HTML_EXTENSIONS = (".xhtml", ".html", ".htm", ".xml")
SKIPPED_LANDMARKS = frozenset(
    ["cover", "toc", "copyright-page", "loi", "lot", "page-list", "landmarks"]
)


@dataclass(frozen=True, slots=True)
class Target:
    """A place in the book: a file in the zip and, optionally, an element id in it."""

    path: str
    fragment: str | None


@dataclass(frozen=True, slots=True)
class TocEntry:
    target: Target
    title: str


@dataclass(frozen=True, slots=True)
class Navigation:
    toc: list[TocEntry]
    skipped: set[Target]
    """Places the book itself marks as cover, table of contents or copyright page."""


@dataclass(frozen=True, slots=True)
class ManifestItem:
    path: str
    media_type: str
    properties: frozenset[str]


@dataclass(frozen=True, slots=True)
class Package:
    path: str
    title: str | None
    author: str | None
    language: str | None
    manifest: dict[str, ManifestItem]
    spine: tuple[str, ...]
    """Paths of the linear content documents, in reading order, each once."""
    toc_id: str | None
    guide: tuple[tuple[Target, frozenset[str]], ...]


def read_package(archive: EpubArchive) -> Package:
    """The package document of the EPUB in ``archive``."""
    path = _package_path(archive)
    data = archive.read(path)
    if data is None:
        raise BookFormatError(f"{archive.source}: the package document {path} is missing")
    root = parse_xml(data, f"{archive.source}: {path}", recover=True)
    manifest = _manifest(root, path)
    return Package(
        path=path,
        title=_first_metadata(root, "title"),
        author=_author(root),
        language=_first_metadata(root, "language"),
        manifest=manifest,
        spine=_spine(root, manifest),
        toc_id=_spine_toc_id(root),
        guide=_guide(root, path),
    )


def read_navigation(archive: EpubArchive, package: Package) -> Navigation:
    """The book's table of contents (EPUB 3 nav, else NCX) and the places it marks to skip."""
    marks: list[tuple[Target, frozenset[str]]] = list(package.guide)
    toc: list[TocEntry] = []
    nav_item = next((i for i in package.manifest.values() if "nav" in i.properties), None)
    nav = _nav_root(archive, nav_item.path) if nav_item is not None else None
    if nav_item is not None and nav is not None:
        toc = [
            TocEntry(target, title) for target, title, _ in _nav_links(nav, nav_item.path, "toc")
        ]
        marks += [(t, types) for t, _, types in _nav_links(nav, nav_item.path, "landmarks")]
    if not toc:
        ncx = _ncx_item(package)
        toc = _ncx_entries(archive, ncx.path) if ncx is not None else []
    skipped = {target for target, types in marks if types & SKIPPED_LANDMARKS}
    return Navigation(toc, skipped)


def encrypted_paths(archive: EpubArchive) -> set[str]:
    """Entries that META-INF/encryption.xml says are encrypted (DRM or font obfuscation)."""
    data = archive.read(ENCRYPTION_PATH)
    if data is None:
        return set()
    root = parse_xml(data, f"{archive.source}: {ENCRYPTION_PATH}", recover=True)
    uris = (e.get("URI") for e in root.iter() if local_name(e.tag) == "cipherreference")
    # These URIs are relative to the root of the container, not to META-INF.
    return {resolve("", uri).path for uri in uris if uri}


def resolve(base: str, href: str) -> Target:
    """``href`` as written in the file at ``base``, as a zip path and fragment."""
    parts = urlsplit(href.strip())
    fragment = unquote(parts.fragment) or None
    if parts.scheme or parts.netloc:
        return Target("", fragment)  # outside the book
    if not parts.path:
        return Target(base, fragment)
    directory = posixpath.dirname(base) if not parts.path.startswith("/") else ""
    path = posixpath.normpath(posixpath.join(directory, unquote(parts.path).lstrip("/")))
    return Target(path, fragment)


def _package_path(archive: EpubArchive) -> str:
    data = archive.read(CONTAINER_PATH)
    if data is not None:
        root = parse_xml(data, f"{archive.source}: {CONTAINER_PATH}", recover=True)
        for element in root.iter():
            full_path = element.get("full-path") if local_name(element.tag) == "rootfile" else None
            if full_path and archive.find(unquote(full_path)) is not None:
                return unquote(full_path)
    candidates = sorted((n for n in archive.names() if n.lower().endswith(".opf")), key=len)
    if not candidates:
        raise BookFormatError(
            f"{archive.source}: a zip archive but not an EPUB (no package document inside)"
        )
    return candidates[0]


def _children(root: etree._Element, name: str) -> list[etree._Element]:
    return [e for e in root.iter() if local_name(e.tag) == name]


def _first_metadata(root: etree._Element, name: str) -> str | None:
    for element in _children(root, name):
        text = normalize_space("".join(element.itertext()))
        if text:
            return text
    return None


def _author(root: etree._Element) -> str | None:
    creators = _children(root, "creator")
    authors = [c for c in creators if (_attribute(c, "role") or "aut") == "aut"] or creators
    for creator in authors:
        text = normalize_space("".join(creator.itertext()))
        if text:
            return text
    return None


def _attribute(element: etree._Element, name: str) -> str | None:
    for key, value in element.attrib.items():
        if local_name(key) == name:
            return value
    return None


def _manifest(root: etree._Element, package_path: str) -> dict[str, ManifestItem]:
    items = {}
    for element in _children(root, "item"):
        item_id, href = element.get("id"), element.get("href")
        if item_id and href:
            items[item_id] = ManifestItem(
                path=resolve(package_path, href).path,
                media_type=(element.get("media-type") or "").strip().lower(),
                properties=frozenset((element.get("properties") or "").split()),
            )
    return items


def _spine(root: etree._Element, manifest: dict[str, ManifestItem]) -> tuple[str, ...]:
    paths: list[str] = []
    for element in _children(root, "itemref"):
        item = manifest.get(element.get("idref") or "")
        if item is None or (element.get("linear") or "yes").strip().lower() == "no":
            continue
        if _is_content(item) and item.path not in paths:
            paths.append(item.path)
    if not paths:  # no usable spine: fall back on the manifest's documents in order
        paths = [i.path for i in manifest.values() if _is_content(i) and "nav" not in i.properties]
    return tuple(dict.fromkeys(paths))


def _is_content(item: ManifestItem) -> bool:
    if item.media_type in HTML_MEDIA_TYPES:
        return True
    return not item.media_type and item.path.lower().endswith(HTML_EXTENSIONS)


def _spine_toc_id(root: etree._Element) -> str | None:
    spines = _children(root, "spine")
    return spines[0].get("toc") if spines else None


def _guide(root: etree._Element, package_path: str) -> tuple[tuple[Target, frozenset[str]], ...]:
    references = []
    for element in _children(root, "reference"):
        href, kind = element.get("href"), (element.get("type") or "").strip().lower()
        if href and kind:
            references.append((resolve(package_path, href), frozenset({kind})))
    return tuple(references)


def _ncx_item(package: Package) -> ManifestItem | None:
    if package.toc_id and package.toc_id in package.manifest:
        return package.manifest[package.toc_id]
    return next((i for i in package.manifest.values() if i.media_type == NCX_MEDIA_TYPE), None)


def _nav_root(archive: EpubArchive, nav_path: str) -> etree._Element | None:
    data = archive.read(nav_path)
    if data is None:
        return None
    try:
        return parse_document(data, f"{archive.source}: {nav_path}")
    except BookFormatError:
        return None  # a broken nav: the NCX or the spine alone still give chapters


def _nav_links(
    root: etree._Element, nav_path: str, nav_type: str
) -> list[tuple[Target, str, frozenset[str]]]:
    """Links of the ``nav`` of ``nav_type`` (for toc, the first nav if none is typed)."""
    navs = [e for e in root.iter() if local_name(e.tag) == "nav"]
    chosen = next((n for n in navs if nav_type in _epub_types(n)), None)
    if chosen is None and nav_type == "toc" and navs:
        chosen = navs[0]
    if chosen is None:
        return []
    links = [a for a in chosen.iter() if local_name(a.tag) == "a" and a.get("href")]
    return [(resolve(nav_path, a.get("href")), element_text(a), _epub_types(a)) for a in links]


def _epub_types(element: etree._Element) -> frozenset[str]:
    return frozenset((element.get(EPUB_TYPE) or element.get("epub:type") or "").split())


def _ncx_entries(archive: EpubArchive, ncx_path: str) -> list[TocEntry]:
    data = archive.read(ncx_path)
    if data is None:
        return []
    try:
        root = parse_xml(data, f"{archive.source}: {ncx_path}", recover=True)
    except BookFormatError:
        return []
    entries = []
    for point in _children(root, "navpoint"):
        label = next((c for c in point if local_name(c.tag) == "navlabel"), None)
        content = next((c for c in point if local_name(c.tag) == "content"), None)
        if content is not None and content.get("src"):
            title = normalize_space("".join(label.itertext())) if label is not None else ""
            entries.append(TocEntry(resolve(ncx_path, content.get("src")), title))
    return entries
