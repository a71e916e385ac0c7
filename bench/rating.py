"""What rating a translation costs beside translating it: each book is translated over real
HTTP by the fake model (every call of a step in one reply), then rated by the fake judge
(``demo_rating``), and both jobs' bills are set side by side per 10,000 source characters.

    .venv/bin/python bench/rating.py [--books rashomon,kusamakura]

honyaku believes it talks to ``gpt-4o`` and the server reports o200k usage, as in
``bench/cost.py``; billed units are uncached + 0.25 × cached + 4 × output tokens. A judge reads
the source and the translation of each paragraph and writes a score, its issues and a short
comment: it reads about twice what a translator reads, and writes far less.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from jobs import real_books

from honyaku.application import Honyaku, ModelChoice
from honyaku.domain import BookDraft, JobKind
from honyaku.jobs import JobFinished, JobRequest
from honyaku.store import Database, Stores
from honyaku.testing import FakeLLMServer, ScriptedTranslator, hanzi_translation

PER_CHARS = 10_000
BOOKS = {"rashomon": "羅生門 (short story)", "kusamakura": "草枕 (novel, EPUB)"}


def bills(draft: BookDraft) -> dict[str, dict[str, float]]:
    """Each job's bill over ``draft``, per ``PER_CHARS`` source characters."""
    chars = sum(len(p) for c in draft.chapters for p in c.paragraphs)
    with (
        tempfile.TemporaryDirectory() as home,
        FakeLLMServer(translator=ScriptedTranslator(translate=hanzi_translation)) as server,
    ):
        stores = Stores.over(Database.open(Path(home)))
        book_id = stores.library.add_book(draft, source_lang="ja", target_lang="zh-CN")
        model = ModelChoice("gpt-4o", server.url)
        return {
            kind.value: _per_chars(asyncio.run(_run(Honyaku(stores), book_id, kind, model)), chars)
            for kind in (JobKind.TRANSLATION, JobKind.RATING)
        }


async def _run(honyaku: Honyaku, book_id: str, kind: JobKind, model: ModelChoice) -> JobFinished:
    request = JobRequest(book_id=book_id, kind=kind)
    events = [event async for event in honyaku.jobs.run(request, model)]
    finished = events[-1]
    assert isinstance(finished, JobFinished)
    assert finished.outcome.ok, finished
    return finished


def _per_chars(finished: JobFinished, chars: int) -> dict[str, float]:
    cost = finished.outcome.job.cost
    uncached = cost.billed_input_tokens - cost.cached_tokens
    figures = {
        "requests": cost.requests,
        "uncached": uncached,
        "cached": cost.cached_tokens,
        "output": cost.billed_output_tokens,
        "billed": uncached + 0.25 * cost.cached_tokens + 4 * cost.billed_output_tokens,
    }
    return {name: value * PER_CHARS / chars for name, value in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", default=",".join(BOOKS))
    chosen = parser.parse_args().books.split(",")
    real = real_books()
    print(f"per {PER_CHARS:,} source characters")
    print(
        f"{'book':<11} {'job':<12} {'requests':>8} {'uncached':>9} {'cached':>8} "
        f"{'output':>7} {'billed':>8}"
    )
    for name in chosen:
        found = bills(real[BOOKS[name]])
        for job, figures in found.items():
            print(
                f"{name:<11} {job:<12} {figures['requests']:>8.1f} {figures['uncached']:>9.0f} "
                f"{figures['cached']:>8.0f} {figures['output']:>7.0f} {figures['billed']:>8.0f}"
            )
        ratio = found["rating"]["billed"] / found["translation"]["billed"]
        print(f"{name:<11} rating costs {ratio:.2f}× the translation")


if __name__ == "__main__":
    main()
