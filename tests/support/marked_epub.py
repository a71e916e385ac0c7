"""A small EPUB 3 whose page holds the inline markup a translation must keep: emphasis,
strong, inline code, a link out of the book, a footnote reference to an aside on the same
page, and a note that links back. epubcheck finds nothing in it."""

from __future__ import annotations

import zipfile
from pathlib import Path

PAGE = "OEBPS/build.xhtml"
MARKED = "Run lb config as root, then read the manual1 before you build the image."
"""The page's marked paragraph, as honyaku reads it."""

_CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>"""
_OPF = """<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id" xml:lang="en">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:0c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f</dc:identifier>
    <dc:title>Live Systems, briefly</dc:title>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="build" href="build.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="build"/></spine>
</package>"""
_HTML = (
    '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"'
    ' lang="en" xml:lang="en">'
)
_NAV = f"""<?xml version="1.0" encoding="UTF-8"?>
{_HTML}
<head><meta charset="utf-8"/><title>Contents</title></head>
<body><nav epub:type="toc" id="toc"><h1>Contents</h1>
<ol><li><a href="build.xhtml">Building an image</a></li></ol></nav></body></html>"""
_RUN = (
    '<p id="run">Run <code>lb config</code> as <em>root</em>, then read '
    '<a href="https://live-team.pages.debian.net/live-manual/">the manual</a>'
    '<a id="ref1" href="#note1" epub:type="noteref">1</a> before you <strong>build</strong> '
    "the image.</p>"
)
_NOTE = (
    '<aside id="note1" epub:type="footnote">'
    '<p>Or its <i>Japanese</i> edition. <a href="#ref1">Back</a></p></aside>'
)
_BUILD = f"""<?xml version="1.0" encoding="UTF-8"?>
{_HTML}
<head><meta charset="utf-8"/><title>Building an image</title></head>
<body>
<section epub:type="chapter" id="building">
<h1>Building an image</h1>
{_RUN}
<p>The image is written to the current folder.</p>
</section>
{_NOTE}
</body></html>"""


def write_marked_epub(path: Path) -> Path:
    """The EPUB, written to ``path``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", _CONTAINER)
        archive.writestr("OEBPS/content.opf", _OPF)
        archive.writestr("OEBPS/nav.xhtml", _NAV)
        archive.writestr(PAGE, _BUILD)
    return path
