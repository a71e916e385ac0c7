"""Benchmarks for translation jobs against the fake model, over real HTTP on 127.0.0.1.

    .venv/bin/python bench/jobs.py [--database sqlite|postgresql|both]

1. Throughput: paragraphs per second with a zero-latency model (aim ≥ 1,000/s), on the
   embedded SQLite file and on PostgreSQL (a throwaway cluster, as the tests start; it needs
   ``pip install -e '.[test,postgres]'`` and PostgreSQL's server binaries) side by side.
2. Scheduling: wall time against the critical-path ideal with 200 ms per reply at
   concurrency 8. The ideal is the larger of the longest chapter's chain of replies and the
   total replies spread over 8 workers. The same job with replies at once times the work done
   on honyaku's side (plans, checks, writes), which no schedule hides: the wall time against
   the larger of the two says how well replies and that work overlap (aim ≤ 1.05×; a part's
   own writes come between its replies, so long replies add some of them to each chain).
3. Cost: requests per chunk, and input characters a provider could not serve from its prefix
   cache (not shared with any earlier request) per source character (aim ≤ 1.2).
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import math
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path

# The throwaway cluster is the tests' own (tests/support/postgres.py), found from the repository.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx2

from honyaku.agent import Broker
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.formats import read_book
from honyaku.jobs import ChunkEvent, JobEvent, JobFinished, JobRequest, JobService, RunDeps
from honyaku.llm.events import Response
from honyaku.llm.models import ConnectedModel, ModelChoice, ModelOpener, ToolProtocol
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.retry import RetryingProvider
from honyaku.store import Database, Library, Stores
from honyaku.testing import FakeLLMServer
from honyaku.testing.billing import common_prefix

DIALOGUE = (
    "「そうだね」と彼女は笑った。",
    "「行こうか」",
    "「待って、まだ話は終わってないよ！」",
    "「……本当に、それでいいの？」",
)
NARRATION = (
    "山路を登りながら、こう考えた。智に働けば角が立つ。情に棹させば流される。",
    "雨はまだ止まない。窓の外では、濡れた石畳が街灯の光を鈍く返していた。",
    "意地を通せば窮屈だ。とかくに人の世は住みにくい。住みにくさが高じると、安い所へ引き越したくなる。"
    "どこへ越しても住みにくいと悟った時、詩が生れて、画が出来る。",
    "彼は鞄を肩に掛け直し、誰もいない駅のホームをゆっくりと歩き出した。",
)


def light_novel(chapters: int, paragraphs: int, *, vary: bool = False) -> BookDraft:
    """Dialogue and narration with blank lines between scenes, as in web novels (about 35
    characters a paragraph); ``vary`` makes chapter lengths uneven."""
    drafts = []
    for c in range(chapters):
        count = paragraphs * (1 + c % 4) // 2 if vary else paragraphs
        lines = tuple(_line(c, i) for i in range(count))
        drafts.append(ChapterDraft(f"第{c + 1}話", lines))
    return BookDraft("ベンチマーク", tuple(drafts))


def _line(chapter: int, index: int) -> str:
    if index % 12 == 11:
        return ""
    pool = DIALOGUE if (chapter + index) % 3 else NARRATION
    return pool[(chapter * 7 + index) % len(pool)]


@contextmanager
def model_process(latency_s: float, delta_chars: int = 256) -> Iterator[str]:
    """The fake model in a process of its own, as a real model server would be."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "honyaku.testing",
        "--port",
        str(port),
        "--latency",
        str(latency_s),
        "--delta-chars",
        str(delta_chars),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(200):
            try:
                httpx2.get(f"{url}/models", timeout=1)
                break
            except httpx2.HTTPError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait()


async def _run(
    library: Library,
    url: str,
    book_id: str,
    concurrency: int,
    report: Callable[[JobEvent], None] = lambda event: None,
) -> float:
    provider = RetryingProvider(OpenAICompatibleProvider(model="fake", base_url=url))
    model = ConnectedModel(provider, ToolProtocol.NATIVE)
    request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, concurrency=concurrency)
    started = time.perf_counter()
    service = JobService(RunDeps(Stores.over(library.database), Broker(), opening(model)))
    try:
        async for event in service.run(request, ModelChoice("fake")):
            report(event)
            if isinstance(event, JobFinished):
                assert event.outcome.ok, event.outcome.failures
    finally:
        await provider.aclose()
    return time.perf_counter() - started


def opening(model: ConnectedModel) -> ModelOpener:
    """Opens ``model`` whatever is chosen: the bench measures the job engine, not the opening."""

    @asynccontextmanager
    async def opened(choice: ModelChoice, *, language: str) -> AsyncIterator[ConnectedModel]:
        yield model

    return opened


def _fresh(home: Path, draft: BookDraft) -> tuple[Library, str]:
    library = Library(Database.open(home))
    return library, library.add_book(draft, source_lang="ja", target_lang="zh-CN")


def throughput(library: Library) -> dict[str, float]:
    draft = light_novel(chapters=24, paragraphs=600)
    book_id = library.add_book(draft, source_lang="ja", target_lang="zh-CN")
    work = sum(1 for c in draft.chapters for p in c.paragraphs if p)
    with model_process(latency_s=0) as url:
        seconds = asyncio.run(_run(library, url, book_id, concurrency=4))
    return {"paragraphs": work, "seconds": seconds, "paragraphs_per_s": work / seconds}


def scheduling(home: Path, chunk_chars: int, latency_s: float = 0.2) -> dict[str, float]:
    concurrency = 8
    draft = light_novel(chapters=20, paragraphs=240, vary=True)
    library, book_id = _fresh(home / f"scheduling-{chunk_chars}-{latency_s}", draft)
    library.update_settings(book_id, chunk_chars=chunk_chars)
    replies: Counter[int] = Counter()

    def count(event: JobEvent) -> None:
        if isinstance(event, ChunkEvent) and isinstance(event.event, Response):
            replies[event.where.chapter] += 1

    with model_process(latency_s) as url:
        seconds = asyncio.run(_run(library, url, book_id, concurrency, count))
    # The same job with a model that answers at once: the work honyaku does on its side
    # (plans, checks, writes), which no schedule of replies can hide.
    again, again_id = _fresh(home / f"scheduling-{chunk_chars}-{latency_s}-0", draft)
    again.update_settings(again_id, chunk_chars=chunk_chars)
    with model_process(0) as url:
        working = asyncio.run(_run(again, url, again_id, concurrency))
    chains = list(replies.values())
    bound = latency_s * max(max(chains), math.ceil(sum(chains) / concurrency))
    schedule = latency_s * _longest_first_makespan(chains, concurrency)
    return {
        "requests": sum(chains),
        "seconds": seconds,
        "critical_path_bound_seconds": bound,
        "ratio_to_bound": seconds / bound,
        "same_schedule_no_overhead_seconds": schedule,
        "ratio_to_schedule": seconds / schedule,
        "seconds_with_replies_at_once": working,
        "ratio_to_the_larger": seconds / max(working, schedule),
    }


def _longest_first_makespan(chains: list[int], workers: int) -> int:
    """Replies in a row for chapters run longest first on ``workers``, with no overhead."""
    free_at = [0] * workers
    for chain in sorted(chains, reverse=True):
        start = heapq.heappop(free_at)
        heapq.heappush(free_at, start + chain)
    return max(free_at)


def cost(home: Path, name: str, draft: BookDraft) -> dict[str, float]:
    library, book_id = _fresh(home / f"cost-{name}", draft)
    with FakeLLMServer() as server:
        asyncio.run(_run(library, server.url, book_id, concurrency=1))
        requests = server.requests
    source_chars = sum(len(p) for c in draft.chapters for p in c.paragraphs)
    work = [p for c in draft.chapters for p in c.paragraphs if p.strip()]
    chunks = len({body["messages"][1]["content"] for body in requests})
    first = len(_as_text(requests[0])) - len(requests[0]["messages"][1]["content"])
    new = _new_input_chars(requests)
    return {
        "chars_per_paragraph": source_chars / len(work),
        "requests_per_chunk": len(requests) / chunks,
        "new_input_chars_per_source_char": new / source_chars,
        "  without the job's first prompt": (new - first) / source_chars,
        "first prompt (system + tools) chars": first,
    }


def real_books() -> dict[str, BookDraft]:
    books = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "books"
    return {
        "草枕 (novel, EPUB)": read_book(
            books / "epub/kusamakura_ja_epub3/kusamakura_ja_epub3.epub"
        ),
        "羅生門 (short story)": read_book(books / "rashomon_akutagawa/127_15260.utf8.html"),
        "古事記 (Aozora TXT)": read_book(books / "kojiki/03gendaigoyaku_kojiki.utf8.txt"),
    }


def _new_input_chars(requests: list[dict]) -> int:
    """Characters of each request past its longest prefix shared with an earlier request."""
    seen: list[str] = []
    new = 0
    for body in requests:
        text = _as_text(body)
        shared = max((common_prefix(text, earlier) for earlier in seen[-50:]), default=0)
        new += len(text) - shared
        seen.append(text)
    return new


def _as_text(body: dict) -> str:
    """The request as the model reads it: tool schemas, then each message's content."""
    parts = [json.dumps(body.get("tools"), ensure_ascii=False)]
    for message in body["messages"]:
        calls = (
            json.dumps(message.get("tool_calls"), ensure_ascii=False)
            if message.get("tool_calls")
            else ""
        )
        parts.append(f"{message['role']}\n{message.get('content') or ''}{calls}")
    return "\n".join(parts)


@contextmanager
def databases(choice: str, home: Path) -> Iterator[dict[str, Library]]:
    """An empty library on each database ``choice`` names."""
    with ExitStack() as stack:
        libraries = {}
        if choice in ("sqlite", "both"):
            libraries["sqlite"] = Library(Database.open(home / "throughput"))
        if choice in ("postgresql", "both"):
            try:
                url = stack.enter_context(_postgresql_database())
            except (ImportError, RuntimeError) as exc:
                if choice == "postgresql":
                    raise
                print(f"postgresql: not measured ({exc}); pip install -e '.[test,postgres]'")
            else:
                libraries["postgresql"] = Library(Database.open(url=url))
        try:
            yield libraries
        finally:
            for library in libraries.values():
                library.database.close()


@contextmanager
def _postgresql_database() -> Iterator[str]:
    # Imported here: it needs the test extras, which the SQLite figures do not.
    from tests.support.postgres import throwaway_cluster

    with throwaway_cluster() as cluster, cluster.database() as url:
        yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgresql", "both"),
        default="both",
        help="the databases the throughput runs on (default: both, side by side)",
    )
    choice = parser.parse_args().database
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        with databases(choice, home) as libraries:
            by_database = {name: throughput(library) for name, library in libraries.items()}
        _print_side_by_side("throughput (zero latency, concurrency 4)", by_database)
        rows = {
            "scheduling, 8000-char chunks (200 ms replies, concurrency 8)": scheduling(home, 8000),
            "scheduling, 2000-char chunks (200 ms replies, concurrency 8)": scheduling(home, 2000),
            "scheduling, 2000-char chunks (1 s replies, concurrency 8)": scheduling(
                home, 2000, latency_s=1.0
            ),
            "cost, web-novel text (one chunk after another)": cost(
                home, "web-novel", light_novel(chapters=8, paragraphs=600)
            ),
        }
        for name, draft in real_books().items():
            rows[f"cost, {name}"] = cost(home, name, draft)
    for name, figures in rows.items():
        print(name)
        for key, value in figures.items():
            print(f"  {key:36} {value:10.3f}")


def _print_side_by_side(name: str, by_database: dict[str, dict[str, float]]) -> None:
    print(name)
    print(f"  {'':36}" + "".join(f" {database:>12}" for database in by_database))
    for key in next(iter(by_database.values())):
        print(f"  {key:36}" + "".join(f" {f[key]:12.3f}" for f in by_database.values()))


if __name__ == "__main__":
    main()
