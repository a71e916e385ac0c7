"""Timing of book import and export (honyaku.formats).

Run with ``.venv/bin/python bench/formats.py``. It builds a deterministic ~8 MB Japanese-looking
text file (a heading every ~200 lines) in a temporary folder, also saved as Shift_JIS, and
times ``read_book`` of it and of the Moby-Dick fixture EPUB, then ``write_book`` of both books
to every export format. Figures are the best of a few runs.

Then the in-place EPUB export: the Moby-Dick EPUB, and a 300-chapter EPUB made from all the
paragraphs of the 8 MB text, are each imported into a library (keeping their original and
where each paragraph came from), translated whole (every paragraph and title marked 译), and
exported in place, next to the same book rebuilt from its paragraphs.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from honyaku.application import Honyaku
from honyaku.domain.book import Book, BookDraft, Chapter, ChapterDraft, Paragraph, TranslationKind
from honyaku.domain.ids import new_id
from honyaku.formats import ExportFormat, read_book, write_book
from honyaku.store import Database, Library

ROOT = Path(__file__).resolve().parents[1]
MOBY_DICK = (
    ROOT
    / "tests"
    / "fixtures"
    / "books"
    / "epub"
    / "moby-dick_en_epub3"
    / "moby-dick_en_epub3.epub"
)
TARGET_BYTES = 8 * 1024 * 1024
LINES_PER_CHAPTER = 200
SEED = 20240601
RUNS = 3
MB = 1024 * 1024
IN_PLACE_CHAPTERS = 300

KANA = (
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん"
    "がぎぐげござじずぜぞだでどばびぶべぼ"
)
KANJI = "日本人大年中出見行事時気分彼女男子言思手目前後山川海空雨風花月夜朝道家国心体話声色光音"
PUNCTUATION = "、、、。"


def japanese_text(target_bytes: int) -> str:
    """A novel-shaped text: indented lines, dialogue, blank lines, 第N章 headings."""
    rng = random.Random(SEED)
    lines: list[str] = []
    size = 0
    chapter = 0
    while size < target_bytes:
        if len(lines) % LINES_PER_CHAPTER == 0:
            chapter += 1
            lines += [f"第{chapter}章　{''.join(rng.choices(KANJI, k=4))}", ""]
        line = _sentence(rng)
        lines.append(line)
        size += len(line.encode()) + 1
        if rng.random() < 0.1:
            lines.append("")
    return "\n".join(lines) + "\n"


def _sentence(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(4, 12)):
        words.append("".join(rng.choices(KANJI, k=rng.randint(1, 2))))
        words.append("".join(rng.choices(KANA, k=rng.randint(1, 4))))
        words.append(rng.choice(PUNCTUATION) if rng.random() < 0.3 else "")
    text = "".join(words).rstrip("、") + "。"
    return f"「{text}」" if rng.random() < 0.2 else "\u3000" + text


def as_book(draft: BookDraft) -> Book:
    taken: set[str] = set()

    def fresh() -> str:
        value = new_id(taken)
        taken.add(value)
        return value

    chapters = tuple(
        Chapter(
            fresh(),
            order,
            chapter.title,
            None,
            tuple(Paragraph(fresh(), i, text) for i, text in enumerate(chapter.paragraphs)),
        )
        for order, chapter in enumerate(draft.chapters)
    )
    return Book(fresh(), draft.title, draft.author, "ja", "zh-CN", chapters=chapters)


def best_time(action: Callable[[], object]) -> float:
    timings = []
    for _ in range(RUNS):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return min(timings)


def row(name: str, seconds: float, size_bytes: int) -> str:
    return f"{name:<34} {seconds:>8.3f} {size_bytes / MB:>9.2f} {size_bytes / MB / seconds:>9.1f}"


def main() -> int:
    print(f"{'operation':<34} {'seconds':>8} {'MB':>9} {'MB/s':>9}")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        text = japanese_text(TARGET_BYTES)
        sources = {
            "8 MB TXT (UTF-8)": work / "novel.txt",
            "8 MB TXT (Shift_JIS)": work / "novel.sjis.txt",
        }
        sources["8 MB TXT (UTF-8)"].write_text(text, encoding="utf-8")
        sources["8 MB TXT (Shift_JIS)"].write_bytes(text.encode("cp932"))
        sources["Moby-Dick EPUB"] = MOBY_DICK
        books = {}
        for name, path in sources.items():
            seconds = best_time(lambda path=path: read_book(path))
            print(row(f"read_book {name}", seconds, path.stat().st_size))
            books[name] = as_book(read_book(path))
        for name in ("8 MB TXT (UTF-8)", "Moby-Dick EPUB"):
            for fmt in ExportFormat:
                out = work / f"out.{fmt.value}"
                book = books[name]
                seconds = best_time(lambda book=book, out=out, fmt=fmt: write_book(book, out, fmt))
                print(
                    row(
                        f"write_book {name.split(' (')[0]} -> {fmt.value}",
                        seconds,
                        out.stat().st_size,
                    )
                )
        for name in ("8 MB TXT (UTF-8)", "Moby-Dick EPUB"):
            print(whole_import_and_export(work, name, sources[name]))
        draft = read_book(sources["8 MB TXT (UTF-8)"])
        paragraphs = sum(len(c.paragraphs) for c in draft.chapters)
        novel_epub = work / "novel-300.epub"
        write_book(as_book(regrouped(draft, IN_PLACE_CHAPTERS)), novel_epub, ExportFormat.EPUB)
        print()
        print(in_place_export(work, "Moby-Dick EPUB", MOBY_DICK))
        print(in_place_export(work, f"{IN_PLACE_CHAPTERS}-chapter EPUB", novel_epub))
        print(f"\n8 MB TXT: {len(draft.chapters)} chapters, {paragraphs} paragraphs")
    return 0


def regrouped(draft: BookDraft, chapters: int) -> BookDraft:
    """All of ``draft``'s paragraphs in ``chapters`` chapters of about the same length."""
    paragraphs = [p for chapter in draft.chapters for p in chapter.paragraphs if p]
    size = -(-len(paragraphs) // chapters)
    return BookDraft(
        draft.title,
        tuple(
            ChapterDraft(f"第{n + 1}章", tuple(paragraphs[n * size : (n + 1) * size]))
            for n in range(chapters)
        ),
    )


def in_place_export(work: Path, name: str, path: Path) -> str:
    """Import an EPUB, translate it whole, and export it in place and rebuilt."""
    library = Library(Database.open(work / f"home-in-place-{path.stem}"))
    started = time.perf_counter()
    book_id = library.add_book(read_book(path), source_lang="ja", target_lang="zh-CN")
    imported = time.perf_counter() - started
    book = library.whole_book(book_id)
    texts = {p.id: f"译{p.text}" for c in book.chapters for p in c.work_paragraphs}
    library.add_translations(book_id, texts, kind=TranslationKind.TRANSLATION)
    for chapter in book.chapters:
        library.set_chapter_title(book_id, chapter.id, f"译{chapter.title}")
    in_place, rebuilt = work / "in-place.epub", work / "rebuilt.epub"

    def export_in_place() -> None:
        sources = library.sources(book_id)
        write_book(library.whole_book(book_id), in_place, ExportFormat.EPUB, sources=sources)

    in_place_s = best_time(export_in_place)
    rebuilt_s = best_time(
        lambda: write_book(library.whole_book(book_id), rebuilt, ExportFormat.EPUB)
    )
    size = path.stat().st_size
    return "\n".join(
        [
            f"{name}: {len(book.chapters)} chapters, {len(texts)} translated paragraphs",
            row(f"import {name} into SQLite", imported, size),
            row("export in place (original kept)", in_place_s, in_place.stat().st_size),
            row("export rebuilt (--rebuild)", rebuilt_s, rebuilt.stat().st_size),
        ]
    )


def whole_import_and_export(work: Path, name: str, path: Path) -> str:
    """What ``honyaku import`` and ``honyaku export`` do: read and store; load and write."""
    honyaku = Honyaku.open(work / f"home-{path.stem}")
    started = time.perf_counter()
    book_id = asyncio.run(honyaku.books.import_file(path, source_lang="ja")).id
    imported = time.perf_counter() - started
    started = time.perf_counter()
    asyncio.run(honyaku.books.export(book_id, work / "whole.epub", ExportFormat.EPUB))
    exported = time.perf_counter() - started
    short = name.split(" (")[0]
    return "\n".join(
        [
            row(f"import {short} into SQLite", imported, path.stat().st_size),
            row(
                f"export {short} from SQLite -> epub",
                exported,
                (work / "whole.epub").stat().st_size,
            ),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
