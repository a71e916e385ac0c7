"""Scaling out: 1, 2 and 4 worker processes (``honyaku worker``) on loopback, on one PostgreSQL
database (a throwaway cluster, as the tests start; it needs ``pip install -e
'.[test,postgres]'`` and PostgreSQL's server binaries) and one fake model server that takes 1 s
per reply and allows 120 requests a minute (past them: 429 with Retry-After).

    .venv/bin/python bench/scale.py [--books 8] [--workers 1,2,4] [--latency 1] [--rpm 120]

Eight books are queued at once with a model profile saved with the server's limit, which
honyaku keeps for every worker together (in the database); each worker runs one chapter at a
time. For each number of workers: the wall time from queuing to the last job's end, the
requests, the most requests in any minute and the mean per minute, the speed-up over one
worker, and the 429s the server answered. One worker sends about 60 requests a minute, two
reach the cap, and from there the cap takes over: more workers only wait for it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# The throwaway cluster is the tests' own (tests/support/postgres.py), found from the repository.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from honyaku.application import Honyaku
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.domain.model_profile import ModelProfile
from honyaku.jobs import JobRequest
from honyaku.store import Database, Stores
from honyaku.store.jobs import ACTIVE
from honyaku.testing import FakeLLMServer
from tests.support.postgres import Cluster, throwaway_cluster

CHAPTERS = 6
PARAGRAPHS = 24
CHUNK_CHARS = 200
PROFILE = "limited"


def book(number: int) -> BookDraft:
    """Six chapters of three chunks each."""
    return BookDraft(
        f"拡張の物語 {number}",
        tuple(
            ChapterDraft(
                f"第{c}章",
                tuple(f"第{c}章の{i}番目の段落。彼は歩いた。" for i in range(PARAGRAPHS)),
            )
            for c in range(1, CHAPTERS + 1)
        ),
    )


@contextmanager
def workers(count: int, environment: dict[str, str]) -> Iterator[None]:
    """``count`` worker processes, each once it takes work; stopped with SIGTERM after."""
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "honyaku", "worker", "--concurrency", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=environment,
        )
        for _ in range(count)
    ]
    try:
        for process in started:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert "takes jobs" in line, line + process.stdout.read()
        yield
    finally:
        for process in started:
            process.send_signal(signal.SIGTERM)
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


async def queue_books(stores: Stores, books: int, url: str, rpm: int) -> list[str]:
    honyaku = Honyaku(stores, queued=True)
    profile = ModelProfile(
        name=PROFILE,
        model="fake-translator",
        base_url=url,
        protocol="native",
        requests_per_minute=rpm,
    )
    await honyaku.models.save(profile)
    choice = await honyaku.models.saved(PROFILE)
    jobs = []
    for number in range(books):
        book_id = stores.library.add_book(book(number), source_lang="ja", target_lang="zh-CN")
        stores.library.update_settings(book_id, chunk_chars=CHUNK_CHARS)
        jobs.append(
            await honyaku.jobs.start(JobRequest(book_id=book_id, kind=JobKind.TRANSLATION), choice)
        )
    return jobs


def most_in_a_minute(arrivals: list[float]) -> int:
    most, first = 0, 0
    for last, arrived in enumerate(arrivals):
        while arrivals[first] <= arrived - 60:
            first += 1
        most = max(most, last - first + 1)
    return most


def run(cluster: Cluster, count: int, args: argparse.Namespace) -> dict[str, float]:
    with (
        cluster.database() as database_url,
        FakeLLMServer(latency_s=args.latency, requests_per_minute=args.rpm) as model,
    ):
        environment = {**os.environ, "HONYAKU_DATABASE_URL": database_url}
        database = Database.open(url=database_url)
        stores = Stores.over(database)
        try:
            with workers(count, environment):
                began = time.monotonic()
                jobs = asyncio.run(queue_books(stores, args.books, model.url, args.rpm))
                while any(stores.jobs.get(job).status in ACTIVE for job in jobs):
                    time.sleep(0.2)
                wall = time.monotonic() - began
            failed = [job for job in jobs if stores.jobs.get(job).status.value != "finished"]
            assert not failed, f"jobs that did not finish: {failed}"
        finally:
            database.close()
        arrivals = sorted(model.arrivals)
        return {
            "wall_s": wall,
            "requests": len(arrivals),
            "most_in_a_minute": most_in_a_minute(arrivals),
            "per_minute": len(arrivals) / wall * 60,
            "rate_limited": model.rate_limited,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", type=int, default=8)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per reply")
    parser.add_argument("--rpm", type=int, default=120, help="the server's and profile's limit")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    print(
        f"{args.books} books of {CHAPTERS}×3 chunks, a model at {args.latency:g} s per reply "
        f"allowing {args.rpm} requests a minute; one chapter at a time per worker"
    )
    print(
        f"{'workers':>7}  {'wall':>7}  {'requests':>8}  {'max/min':>7}  {'mean/min':>8}  "
        f"{'speed-up':>8}  {'429s':>4}"
    )
    with throwaway_cluster() as cluster:
        first: float | None = None
        for count in counts:
            figures = run(cluster, count, args)
            first = first or figures["wall_s"] * counts[0]
            speed_up = first / figures["wall_s"]
            print(
                f"{count:>7}  {figures['wall_s']:>6.1f}s  {figures['requests']:>8}  "
                f"{figures['most_in_a_minute']:>7}  {figures['per_minute']:>8.1f}  "
                f"{speed_up:>7.2f}×  {figures['rate_limited']:>4}",
                flush=True,
            )


if __name__ == "__main__":
    main()
