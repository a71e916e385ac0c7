"""Safe parsing of the XML and HTML inside books.

XML is parsed with lxml the way defusedxml would have it: no entity expansion, no DTD loading,
no network. A document that declares entities at all is refused outright, since a book has no
use for them and an entity-expansion attack needs them. A content document that is not
well-formed XML (common in real EPUBs) is read again with lxml's tolerant HTML parser.

A document to be edited and written back (an in-place export) is parsed as XML only, with
its comments and processing instructions kept, so that what is not edited stays as it was.
"""

from __future__ import annotations

import lxml.html
from lxml import etree

from honyaku.errors import BookFormatError
from honyaku.formats.encoding import decode_markup
from honyaku.formats.limits import refuse_excess_tags


def _xml_parser(*, recover: bool, keep_comments: bool = False) -> etree.XMLParser:
    return etree.XMLParser(
        encoding="utf-8",
        resolve_entities=False,
        load_dtd=False,
        no_network=True,
        huge_tree=False,
        recover=recover,
        remove_comments=not keep_comments,
        remove_pis=not keep_comments,
    )


def _html_parser() -> lxml.html.HTMLParser:
    return lxml.html.HTMLParser(
        encoding="utf-8", no_network=True, remove_comments=True, remove_pis=True
    )


def parse_xml(raw: bytes, source: str, *, recover: bool = False) -> etree._Element:
    """The root of an XML file (package document, container, NCX).

    ``recover`` lets libxml2 repair broken nesting, as in real NCX files with unclosed
    navPoints; it never turns on entity expansion.
    """
    data = _safe_utf8(raw, source)
    try:
        root = etree.fromstring(data, _xml_parser(recover=recover))
    except (etree.XMLSyntaxError, ValueError) as error:
        raise BookFormatError(f"{source}: not well-formed XML ({_first_line(error)})") from None
    if root is None:
        raise BookFormatError(f"{source}: not well-formed XML (no root element)")
    _refuse_entities(root, source)
    return root


def parse_document(raw: bytes, source: str, *, encoding: str | None = None) -> etree._Element:
    """The root of an XHTML or HTML content document, read as XML when it is well-formed;
    ``encoding`` overrides the document's own."""
    data = _safe_utf8(raw, source, encoding)
    try:
        root = etree.fromstring(data, _xml_parser(recover=False))
    except (etree.XMLSyntaxError, ValueError):
        root = None
    if root is not None:
        _refuse_entities(root, source)
        return root
    try:
        return lxml.html.document_fromstring(data, parser=_html_parser())
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as error:
        raise BookFormatError(f"{source}: not a readable (X)HTML document ({error})") from None


def parse_for_editing(raw: bytes, source: str) -> etree._Element | None:
    """The root of a well-formed XML file with its comments kept, or ``None`` when the file
    is not well-formed (an editor must not write back what a repairing parser guessed)."""
    data = _safe_utf8(raw, source)
    try:
        root = etree.fromstring(data, _xml_parser(recover=False, keep_comments=True))
    except (etree.XMLSyntaxError, ValueError):
        return None
    if root is None:
        return None
    _refuse_entities(root, source)
    return root


def _safe_utf8(raw: bytes, source: str, encoding: str | None = None) -> bytes:
    refuse_excess_tags(raw, source)
    text = decode_markup(raw, source, encoding=encoding)
    # Entities are refused before any parser sees them, so no parser setting is trusted alone.
    if "<!ENTITY" in text:
        raise BookFormatError(
            f"{source}: declares XML entities, which books never need; refused as unsafe"
        )
    return text.encode("utf-8")


def _refuse_entities(root: etree._Element, source: str) -> None:
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise BookFormatError(
            f"{source}: declares XML entities, which books never need; refused as unsafe"
        )


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def local_name(tag: object) -> str | None:
    """``{namespace}p`` and ``p`` both give ``p``; comments and other nodes give ``None``."""
    if not isinstance(tag, str):
        return None
    return tag.rpartition("}")[2].lower()
