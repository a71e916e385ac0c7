"""Timing of glossary matching (honyaku.domain.glossary): 5,000 entries over the 8 MB TXT.

Run with ``.venv/bin/python bench/glossary.py``. It builds the same deterministic ~8 MB
Japanese-looking text as ``bench/formats.py``, reads it as the importer does (``read_book``),
and takes 5,000 distinct entries from the text itself, so that every entry occurs somewhere,
500 of them with an alias. Two glossaries: "names", entries of 3 to 6 characters but one in
ten of 2 (a name or a term is rarely shorter), and "worst case", every entry 2 to 6
characters (a text of 90 distinct characters holds every 2-character entry hundreds of times:
each paragraph then holds a dozen entries). It times building the matcher, finding the
entries of every paragraph one by one (what the quality checks do), and of every chunk of
8,000 characters (what a chunk's message does). Figures are CPU seconds (the process's own
time, so other work on a shared machine does not count), the best of a few runs.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from formats import TARGET_BYTES, japanese_text

from honyaku.domain.book import CHUNK_CHARS
from honyaku.domain.glossary import GlossaryEntry, GlossaryMatcher
from honyaku.formats import read_book

ENTRIES = 5_000
ALIASED = 500
SEED = 20240615
RUNS = 5


def best_time(action: Callable[[], object]) -> tuple[float, object]:
    timings, result = [], None
    for _ in range(RUNS):
        started = time.process_time()
        result = action()
        timings.append(time.process_time() - started)
    return min(timings), result


def glossary_of(text: str, *, short_share: float) -> list[GlossaryEntry]:
    """5,000 entries taken from ``text``; ``short_share`` of them 2 characters long."""
    rng = random.Random(SEED)
    sources: dict[str, None] = {}
    while len(sources) < ENTRIES + ALIASED:
        start = rng.randrange(len(text) - 6)
        length = 2 if rng.random() < short_share else rng.randint(3, 6)
        piece = text[start : start + length]
        if piece.strip() and "\n" not in piece and not piece.isspace():
            sources.setdefault(piece.strip())
    keys = list(sources)
    entries = [GlossaryEntry(source, f"译{n}") for n, source in enumerate(keys[:ENTRIES])]
    for n, alias in enumerate(keys[ENTRIES:]):
        entry = entries[n]
        entries[n] = GlossaryEntry(entry.source, entry.target, aliases=(alias,))
    return entries


def chunks_of(paragraphs: list[str]) -> list[list[str]]:
    chunks: list[list[str]] = [[]]
    size = 0
    for paragraph in paragraphs:
        if size + len(paragraph) > CHUNK_CHARS and chunks[-1]:
            chunks.append([])
            size = 0
        chunks[-1].append(paragraph)
        size += len(paragraph)
    return chunks


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "novel.txt"
        text = japanese_text(TARGET_BYTES)
        path.write_text(text, encoding="utf-8")
        book = read_book(path)
    paragraphs = [p for c in book.chapters for p in c.paragraphs if p.strip()]
    chunks = chunks_of(paragraphs)
    size_mb = len(text.encode()) / 1024 / 1024
    print(f"{size_mb:.1f} MB TXT: {len(paragraphs):,} paragraphs, {len(chunks):,} chunks")
    print(f"{ENTRIES:,} entries, {ALIASED} of them with an alias; CPU seconds:")
    print(f"{'glossary':<12} {'hits':>10} {'build':>8} {'paragraphs':>11} {'chunks':>8}")
    for name, short_share in (("names", 0.1), ("worst case", 0.2 + 0.8 / 5)):
        entries = glossary_of(text, short_share=short_share)
        build_s, matcher = best_time(lambda entries=entries: GlossaryMatcher(entries))
        assert isinstance(matcher, GlossaryMatcher)
        per_paragraph_s, found = best_time(
            lambda matcher=matcher: [matcher.find([p]) for p in paragraphs]
        )
        per_chunk_s, _ = best_time(lambda matcher=matcher: [matcher.find(c) for c in chunks])
        assert isinstance(found, list)
        hits = sum(len(f) for f in found)
        print(
            f"{name:<12} {hits:>10,} {build_s:>8.3f} {per_paragraph_s:>11.3f} {per_chunk_s:>8.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
