"""Rounds that cannot lose a paragraph, run as a new user would: a short story of three
episodes (39 paragraphs) whose provider's filter refuses a few words, one of them in a
chapter's title; no fallback; twenty runs in a row at 1 to 6 chapters at once, half with two
refused words, half with three.

    .venv/bin/python bench/rounds.py [--runs 20]

For each run: the chapters at once, the words refused, what the filter refused (paragraphs
and titles), what the job left, whether it left exactly those and translated everything
else, its requests and seconds; then how many runs were exact.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.jobs import JobFinished, JobRequest
from honyaku.store import Database, Library, Stores
from honyaku.testing import ContentFilter, FakeLLMServer, pseudo_translation

STORY = (
    (
        "第一話　秋の夜",
        13,
        {4: "蟋蟀が一匹、縁側の下で鳴いている。", 9: "太刀を抜いた侍が庭に立っていた。"},
    ),
    ("第二話　梯子", 10, {3: "梯子を掛けて、男は屋根に登った。"}),
    ("第三話　朝", 16, {7: "蟋蟀はもう鳴かなかった。", 12: "太刀は蔵にしまわれた。"}),
)
WORD_SETS = ({"梯子", "太刀"}, {"蟋蟀", "梯子", "太刀"})


def story() -> BookDraft:
    chapters = []
    for title, size, special in STORY:
        lines = tuple(
            special.get(n, f"{title[:3]}の{n + 1}。秋の虫が鳴いていた。") for n in range(size)
        )
        chapters.append(ChapterDraft(title, lines))
    return BookDraft("虫の声", tuple(chapters))


def refused(library: Library, book_id: str, words: set[str]) -> set[str]:
    chapters = library.whole_book(book_id).chapters
    titles = {c.id for c in chapters if any(w in c.title for w in words)}
    return titles | {
        p.id for c in chapters for p in c.work_paragraphs if any(w in p.text for w in words)
    }


def run(honyaku: Honyaku, server: FakeLLMServer, number: int) -> dict[str, object]:
    words = WORD_SETS[number % 2]
    server.filter = ContentFilter(words=words)
    library = honyaku.stores.library
    book_id = library.add_book(story(), source_lang="ja", target_lang="zh-CN")
    concurrency = 1 + number % 6
    request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, concurrency=concurrency)
    choice = ModelChoice("fake-model", server.url, protocol=ToolProtocol.NATIVE)
    asked = len(server.requests)
    started = time.perf_counter()

    async def finished() -> JobFinished:
        events = [event async for event in honyaku.jobs.run(request, choice)]
        assert isinstance(events[-1], JobFinished)
        return events[-1]

    outcome = asyncio.run(finished()).outcome
    seconds = time.perf_counter() - started
    left = {item.id for item in outcome.left}
    book = library.whole_book(book_id)
    rest_done = all(
        p.translation == pseudo_translation(p.text)
        for c in book.chapters
        for p in c.work_paragraphs
        if p.id not in left
    ) and all(
        c.translated_title == pseudo_translation(c.title) for c in book.chapters if c.id not in left
    )
    expected = refused(library, book_id, words)
    return {
        "at once": concurrency,
        "words": len(words),
        "refused": len(expected),
        "left": len(left),
        "exact": left == expected and rest_done,
        "requests": len(server.requests) - asked,
        "seconds": round(seconds, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as home, FakeLLMServer() as server:
        honyaku = Honyaku(Stores.over(Database.open(Path(home))))
        rows = [run(honyaku, server, n) for n in range(runs)]
    print(f"{'run':>4} " + " ".join(f"{name:>9}" for name in rows[0]))
    for n, row in enumerate(rows, 1):
        print(f"{n:>4} " + " ".join(f"{value!s:>9}" for value in row.values()))
    exact = sum(1 for row in rows if row["exact"])
    print(f"{exact} of {runs} runs left exactly what the filter refused and translated the rest")


if __name__ == "__main__":
    main()
