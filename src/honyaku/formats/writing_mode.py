"""The direction a translated EPUB is read in: vertical (縦書き) or horizontal.

A Japanese novel set vertically, translated into Chinese or a Western language, is usually
read horizontally; a Japanese target keeps the book as it is. The CSS writing mode and the
spine's ``page-progression-direction`` always change together, so that pages turn the way
the lines run:

- **horizontal**: every ``writing-mode: vertical-*`` declaration (with its ``-epub-`` and
  ``-webkit-`` twins) in the book's stylesheets, ``<style>`` elements and ``style``
  attributes becomes ``horizontal-tb``; a document that offers stylesheets tagged
  ``horizontal``/``vertical`` (EPUB Alternate Style Tags) gets its horizontal one as the
  main stylesheet; the spine turns left to right;
- **vertical**: a small stylesheet that sets vertical-rl on the root is added to every
  content document, tagged stylesheets switch the other way, and the spine turns right to
  left;
- **keep**: nothing changes.
"""

from __future__ import annotations

import re
from enum import StrEnum

from lxml import etree

from honyaku.formats.markup import local_name


class WritingMode(StrEnum):
    HORIZONTAL = "horizontal"
    VERTICAL = "vertical"
    KEEP = "keep"


VERTICAL_STYLESHEET = """\
html {
  -epub-writing-mode: vertical-rl;
  -webkit-writing-mode: vertical-rl;
  writing-mode: vertical-rl;
}
"""

_VERTICAL = re.compile(
    r"((?:-epub-|-webkit-)?writing-mode\s*:\s*)vertical-(?:rl|lr)\b", re.IGNORECASE
)
_ALTERNATE_TAGS = ("horizontal", "vertical")


def default_writing_mode(target_lang: str) -> WritingMode:
    """``keep`` for a Japanese target, ``horizontal`` for Chinese and everything else."""
    return WritingMode.KEEP if target_lang.lower().startswith("ja") else WritingMode.HORIZONTAL


def declares_vertical(css: str) -> bool:
    return _VERTICAL.search(css) is not None


def horizontal_css(css: str) -> str:
    """``css`` with every vertical writing mode made horizontal."""
    return _VERTICAL.sub(r"\1horizontal-tb", css)


def page_progression(mode: WritingMode) -> str:
    return "rtl" if mode is WritingMode.VERTICAL else "ltr"


def make_document_horizontal(root: etree._Element) -> bool:
    """Switch one content document to horizontal; whether anything changed."""
    changed = choose_alternate_style(root, WritingMode.HORIZONTAL)
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        style = element.get("style")
        if style and declares_vertical(style):
            element.set("style", horizontal_css(style))
            changed = True
        if local_name(element.tag) == "style" and element.text and declares_vertical(element.text):
            element.text = horizontal_css(element.text)
            changed = True
    return changed


def choose_alternate_style(root: etree._Element, mode: WritingMode) -> bool:
    """Make the stylesheet tagged ``mode`` the document's own, the other tagged one alternate.

    Only documents whose tagged stylesheets all have titles change: an alternate stylesheet
    without a title is not one.
    """
    links = [
        link
        for link in root.iter()
        if isinstance(link.tag, str)
        and local_name(link.tag) == "link"
        and "stylesheet" in (link.get("rel") or "").lower().split()
        and set(_ALTERNATE_TAGS) & set((link.get("class") or "").split())
    ]
    wanted = [link for link in links if mode.value in (link.get("class") or "").split()]
    if not wanted or not all(link.get("title") for link in links):
        return False
    changed = False
    for link in links:
        rel = "stylesheet" if link in wanted else "alternate stylesheet"
        if (link.get("rel") or "").lower() != rel:
            link.set("rel", rel)
            changed = True
    return changed
