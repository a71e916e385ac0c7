"""Timing of a new edition matched against a book (honyaku.domain.edition) and written over it.

Run with ``.venv/bin/python bench/update.py``. It builds the same deterministic ~8 MB
Japanese-looking text as ``bench/formats.py`` and its next edition: 1% of the paragraphs
edited (one character changed in the middle) and 5% more paragraphs appended as new
chapters. It times ``match_edition`` of the edition against the book (what a dry run does
after reading the file), then the whole ``honyaku import --update`` into SQLite (read, match,
write in one transaction) of a library that holds the book translated whole. Matching figures
are CPU seconds (the process's own time), the best of a few runs; the whole update is wall
time, once. The figures say whether the match found exactly what was done.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from formats import LINES_PER_CHAPTER, TARGET_BYTES, _sentence, japanese_text
from glossary import RUNS, best_time

from honyaku.application import Honyaku
from honyaku.domain import TranslationKind
from honyaku.domain.edition import EditionMatch, match_edition
from honyaku.formats import read_book

SEED = 20241124
EDITED_SHARE = 0.01
APPENDED_SHARE = 0.05
MB = 1024 * 1024


def next_edition(text: str) -> tuple[str, int, int]:
    """``text`` with 1% of its paragraph lines edited and 5% more appended; how many of each."""
    rng = random.Random(SEED)
    lines = text.splitlines()
    body = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("第")]
    edited = rng.sample(body, round(EDITED_SHARE * len(body)))
    for i in edited:
        line = lines[i]
        middle = len(line) // 2
        lines[i] = line[:middle] + ("の" if line[middle] != "の" else "が") + line[middle + 1 :]
    appended = round(APPENDED_SHARE * len(body))
    chapter = sum(1 for line in lines if line.startswith("第") and "章" in line[:8])
    for n in range(appended):
        if n % LINES_PER_CHAPTER == 0:
            chapter += 1
            lines += ["", f"第{chapter}章　続編", ""]
        lines.append(_sentence(rng))
    return "\n".join(lines) + "\n", len(edited), appended


def figures(match: EditionMatch) -> str:
    summary = match.summary
    p, c = summary.paragraphs, summary.chapters
    return (
        f"paragraphs {p.unchanged} unchanged, {p.changed} changed, {p.new} new, {p.gone} gone; "
        f"chapters {c.unchanged} unchanged, {c.changed} changed, {c.new} new, {c.gone} gone"
    )


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        text = japanese_text(TARGET_BYTES)
        first, second = work / "novel.txt", work / "novel-2.txt"
        first.write_text(text, encoding="utf-8")
        edition, edited, appended = next_edition(text)
        second.write_text(edition, encoding="utf-8")
        honyaku = Honyaku.open(work / "home")
        book_id = asyncio.run(honyaku.books.import_file(first, source_lang="ja")).id
        book = asyncio.run(honyaku.books.whole(book_id))
        draft = read_book(second)
        paragraphs = sum(len(c.work_paragraphs) for c in book.chapters)
        print(
            f"8 MB TXT: {len(book.chapters)} chapters, {paragraphs} work paragraphs; "
            f"edition: {edited} edited, {appended} appended "
            f"({second.stat().st_size / MB:.1f} MB)"
        )
        seconds, match = best_time(lambda: match_edition(book, draft))
        assert isinstance(match, EditionMatch)
        print(f"match_edition (CPU s, best of {RUNS}): {seconds:.2f}")
        print(f"  found: {figures(match)}")
        summary = match.summary.paragraphs
        exact = summary.changed == edited and summary.new == appended and not summary.gone
        print(f"  exactly what was done: {'yes' if exact else 'NO'}")
        print(whole_update(honyaku, book_id, second))
    return 0


def whole_update(honyaku: Honyaku, book_id: str, second: Path) -> str:
    """``honyaku import --update`` of a library holding the book translated whole."""
    library = honyaku.stores.library
    book = library.whole_book(book_id)
    texts = {p.id: f"译{p.text}" for c in book.chapters for p in c.work_paragraphs}
    library.add_translations(book_id, texts, kind=TranslationKind.TRANSLATION)
    started = time.perf_counter()
    asyncio.run(honyaku.editions.update(book_id, second, dry_run=True))
    dry_run = time.perf_counter() - started
    started = time.perf_counter()
    asyncio.run(honyaku.editions.update(book_id, second))
    updated = time.perf_counter() - started
    stale = sum(c.stale for c in library.progress(book_id))
    return (
        f"import --update --dry-run (wall s, read + match): {dry_run:.2f}\n"
        f"import --update into SQLite (wall s, read + match + write): {updated:.2f}; "
        f"{stale} translations stale after it"
    )


if __name__ == "__main__":
    sys.exit(main())
