"""What the model reads of the translation memory: the section of a translation chunk's
message that shows, beside its work paragraphs, earlier translations of the same or nearly
the same source (``store.memory``).

It goes after the chunk's text, never in the system prompt (whose bytes every chunk shares,
for the provider's cache), and holds a few references at most (``MEMORY_REFERENCES``): the
same source first, then the most alike, each once, shown in the chunk's order. A chunk the
memory knows nothing of reads what it read before. References never use the ``[ID: ``
marker: they are context, never work.
"""

from __future__ import annotations

from collections.abc import Mapping

from honyaku.domain.chunking import Chunk
from honyaku.domain.memory import Recall
from honyaku.store.memory import Point, TranslationMemory

MEMORY_REFERENCES = 6
"""References a chunk is shown at most."""
MEMORY_HEADER = (
    "Translation memory: earlier translations of the same or nearly the same source "
    "(keep them where they fit):"
)


def chunk_references(
    chunk: Chunk, book_id: str, memory: TranslationMemory
) -> list[tuple[int, Recall]]:
    """The references a chunk is shown: each with the chapter position of the work
    paragraph it is for, in the chunk's order."""
    paragraphs = chunk.all_paragraphs
    chapters = [section.chapter.order for section in chunk.sections for _ in section.paragraphs]
    texts = [(p.text, Point(n, p.index)) for p, n in zip(paragraphs, chapters, strict=True)]
    own = {p.id for p in paragraphs}
    found = []
    for number, (paragraph, recalls) in enumerate(
        zip(paragraphs, memory.recall(book_id, texts), strict=True)
    ):
        for recall in recalls:
            remembered = recall.remembered
            if remembered.book_id == book_id and remembered.paragraph_id in own:
                continue  # a retranslation's own old version: no reference
            found.append((number, paragraph.index, recall))
            break
    best = sorted(found, key=lambda item: (-item[2].similarity, item[0]))[:MEMORY_REFERENCES]
    return [(index, recall) for _, index, recall in sorted(best, key=lambda item: item[0])]


def memory_section(
    references: list[tuple[int, Recall]], book_id: str, titles: Mapping[str, str]
) -> str:
    """The lines showing ``references`` in the chunk's message; empty when there are none."""
    if not references:
        return ""
    lines = [MEMORY_HEADER]
    for index, recall in references:
        item = recall.remembered
        book = titles.get(item.book_id, item.book_id)
        where = "earlier in this book" if item.book_id == book_id else f"《{book}》"
        where = f"{where}, chapter {item.chapter}"
        if item.reference:
            where = f"{where}, another translator's ({item.reference})"
        if recall.exact:
            lines.append(f"- [{index + 1}] the same source, {where}: {item.translation}")
        else:
            lines.append(
                f"- [{index + 1}] {recall.similarity:.0%} alike, {where}: {item.source} "
                f"⇒ {item.translation}"
            )
    return "\n".join(lines)
