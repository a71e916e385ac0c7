"""Books rendered as text: the JSON export, plain text and Markdown.

Text and Markdown show each paragraph's translation where one exists and its source
otherwise, one paragraph per line (TXT) or per block (Markdown), empty paragraphs kept.
Bilingual output shows the source and then the translation, titles included. Plain text is
clean text; Markdown writes the inline marks it has a syntax for: emphasis as ``*…*``,
strong as ``**…**``, code as backticks, links out of the book as ``[…](…)`` (a link into the
book's own files has nowhere to go from a Markdown file, and keeps its words only).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from honyaku.domain.book import Book, Chapter, Paragraph
from honyaku.domain.placeholders import Nested, PlacedMark, nest, ordered
from honyaku.domain.sources import InlineMark

JSON_INDENT = 2
MARKDOWN_EMPTY_PARAGRAPH = "&nbsp;"

# What Markdown would read as syntax at the start of a line: headings, quotes, lists,
# thematic breaks, fences, tables, setext underlines, numbered lists.
_MARKDOWN_LINE_START = re.compile(r"^([#>+\-*=|~`]|\d+[.)])")
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<])")
_TRAILING_HASH = re.compile(r"#$")  # a closing sequence would vanish from the heading
_MARKDOWN_SYNTAX = {
    **dict.fromkeys(("em", "i", "cite", "dfn", "var"), "*"),
    **dict.fromkeys(("strong", "b"), "**"),
}
_CODE_TAGS = frozenset({"code", "tt", "kbd", "samp"})
_LINK_SCHEMES = ("http://", "https://", "mailto:")


def render_json(book: Book) -> str:
    """The export contract: book fields, then chapters with their paragraphs; stale
    translations marked, with the source they were made for."""
    document = {
        "book": {
            "id": book.id,
            "title": book.title,
            "source_lang": book.source_lang,
            "target_lang": book.target_lang,
        },
        "chapters": [
            {
                "id": chapter.id,
                "title": chapter.title,
                "translated_title": chapter.translated_title,
                **_stale_title(chapter),
                "paragraphs": [_json_paragraph(p) for p in chapter.paragraphs],
            }
            for chapter in book.chapters
        ],
    }
    return json.dumps(document, ensure_ascii=False, indent=JSON_INDENT) + "\n"


def _json_paragraph(paragraph: Paragraph) -> dict[str, object]:
    """A stale translation (made before a new edition changed the source) says so, with the
    source it was made for."""
    found: dict[str, object] = {
        "id": paragraph.id,
        "index": paragraph.index,
        "text": paragraph.text,
        "translation": paragraph.translation,
    }
    if paragraph.previous_source is not None:
        found |= {"stale": True, "previous_source": paragraph.previous_source}
    return found


def _stale_title(chapter: Chapter) -> dict[str, object]:
    if chapter.previous_title is None:
        return {}
    return {"title_stale": True, "previous_title": chapter.previous_title}


def render_text(book: Book, *, bilingual: bool = False) -> str:
    """Plain text: the book title, then each chapter's title and paragraphs."""
    lines = [book.title, ""]
    for chapter in book.chapters:
        lines += [*_titles(chapter, bilingual), ""]
        for paragraph in chapter.paragraphs:
            lines += _versions(paragraph, bilingual)
        lines.append("")
    return "\n".join(lines) + "\n"


def render_markdown(book: Book, *, bilingual: bool = False) -> str:
    """Markdown: a front-matter title, ``#`` per chapter, one block per paragraph."""
    blocks = [f"---\ntitle: {json.dumps(book.title, ensure_ascii=False)}\n---"]
    for chapter in book.chapters:
        titles = _titles(chapter, bilingual)
        blocks.append("# " + _TRAILING_HASH.sub(r"\\#", escape_markdown(titles[0])))
        blocks += [f"*{escape_markdown(title)}*" for title in titles[1:]]
        for paragraph in chapter.paragraphs:
            blocks += [
                _markdown(paragraph, translated) or MARKDOWN_EMPTY_PARAGRAPH
                for translated in _shown(paragraph, bilingual)
            ]
    return "\n\n".join(blocks) + "\n"


def _shown(paragraph: Paragraph, bilingual: bool) -> list[bool]:
    """Which texts of the paragraph are shown: its translation (``True``), its source."""
    if paragraph.translation and not paragraph.is_empty:
        return [False, True] if bilingual else [True]
    return [False]


def _markdown(paragraph: Paragraph, translated: bool) -> str:
    if translated and paragraph.translation:
        text, placed = paragraph.translation, paragraph.translation_marks
    else:
        text = paragraph.text
        placed = tuple(PlacedMark((i,), m.start, m.end) for i, m in enumerate(paragraph.marks))
    spans = [
        (m.start, m.end, paragraph.marks[m.marks[0]])
        for m in placed
        if m.marks and all(i < len(paragraph.marks) for i in m.marks) and m.end <= len(text)
    ]
    stripped = text.strip(" \t")
    lead = len(text) - len(text.lstrip(" \t"))
    if not spans:
        return escape_markdown(text)
    shifted = [(start - lead, end - lead, mark) for start, end, mark in spans]
    inline = _inline_markdown(stripped, nest(ordered(shifted)), 0, len(stripped))
    return _MARKDOWN_LINE_START.sub(lambda m: _escape_start(m.group(1)), inline)


def _inline_markdown(text: str, nodes: list[Nested[InlineMark]], start: int, end: int) -> str:
    parts: list[str] = []
    position = start
    for node in nodes:
        parts.append(_MARKDOWN_INLINE.sub(r"\\\1", text[position : max(node.start, position)]))
        inner = text[node.start : node.end]
        mark = node.item
        syntax = _MARKDOWN_SYNTAX.get(mark.tag)
        href = dict(mark.attributes).get("href", "")
        if mark.tag in _CODE_TAGS and inner.strip():
            fence = "``" if "`" in inner else "`"
            parts.append(f"{fence}{inner}{fence}")
        elif node.start == node.end:
            pass
        else:
            content = _inline_markdown(text, node.children, node.start, node.end)
            if mark.tag == "a" and href.startswith(_LINK_SCHEMES) and content.strip():
                parts.append(f"[{content}]({href.replace(')', '%29')})")
            elif syntax and content.strip():
                parts.append(f"{syntax}{content}{syntax}")
            else:
                parts.append(content)
        position = max(position, node.end)
    parts.append(_MARKDOWN_INLINE.sub(r"\\\1", text[position:end]))
    return "".join(parts)


def escape_markdown(text: str) -> str:
    """``text`` as a Markdown paragraph that renders as itself."""
    text = _MARKDOWN_INLINE.sub(r"\\\1", text.strip(" \t"))
    return _MARKDOWN_LINE_START.sub(lambda m: _escape_start(m.group(1)), text)


def _escape_start(token: str) -> str:
    if token[0].isdigit():
        return token[:-1] + "\\" + token[-1]  # 1. -> 1\. keeps the number, drops the list
    return "\\" + token


def _titles(chapter: Chapter, bilingual: bool) -> list[str]:
    if bilingual and chapter.translated_title:
        return [chapter.title, chapter.translated_title]
    return [chapter.translated_title or chapter.title]


def _versions(paragraph: Paragraph, bilingual: bool) -> Iterator[str]:
    if bilingual and paragraph.translation and not paragraph.is_empty:
        yield paragraph.text
        yield paragraph.translation
    else:
        yield paragraph.translation or paragraph.text
