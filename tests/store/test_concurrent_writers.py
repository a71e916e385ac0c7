"""Several OS processes writing to one database at once: versions (each text once), a batch
cut off by a kill, a claim taken over, a stop, and processes starting together on a fresh
database.

Each process is real (``writer_process.py``, or the ``honyaku`` command), so that nothing is
shared but the database: no lock of this process, no connection pool, no GIL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from honyaku.domain import JobKind, TranslationKind
from honyaku.store import (
    ChunkStatus,
    ChunkStore,
    Database,
    JobScope,
    JobStatus,
    JobStore,
    Library,
    PlannedChunk,
)
from honyaku.testing import FakeLLMServer

from ..conftest import novel

SCRIPT = Path(__file__).with_name("writer_process.py")
HONYAKU = [sys.executable, "-m", "honyaku"]
WRITERS = 4
ROUNDS = 25
CLAIM_TIMEOUT_S = 1.0
WAIT_S = 60.0


class Writer:
    """A ``writer_process.py`` running one scenario, spoken to line by line."""

    def __init__(self, scenario: str, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SCRIPT), scenario, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            assert self.process.stderr is not None
            pytest.fail(
                f"the writer exited {self.process.returncode}: {self.process.stderr.read()}"
            )
        return json.loads(line)

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def ready(self) -> None:
        assert self.read() == {"ready": True}


@contextmanager
def writers(*scenarios: tuple[str, ...]) -> Iterator[list[Writer]]:
    started = [Writer(*scenario) for scenario in scenarios]
    try:
        yield started
    finally:
        for writer in started:
            writer.process.kill()
            writer.process.communicate()


def first_chapter(library: Library, book_id: str) -> list[str]:
    return [p.id for p in library.whole_book(book_id).chapters[0].work_paragraphs]


def test_writers_of_versions_of_the_same_paragraphs_never_both_select_one(library, book_id):
    ids = first_chapter(library, book_id)

    with writers(*(("versions", book_id, str(ROUNDS), str(n)) for n in range(WRITERS))) as all_:
        for writer in all_:
            writer.ready()
        for writer in all_:
            writer.go()
        results = [writer.read() for writer in all_]

    assert results == [{"done": True}] * WRITERS
    for pid in ids:
        versions = library.versions(book_id, pid)
        assert len(versions) == WRITERS * ROUNDS
        assert sum(v.selected for v in versions) == 1


def test_writers_of_the_same_texts_at_once_add_each_text_once(library, book_id):
    ids = first_chapter(library, book_id)

    with writers(*(("same_texts", book_id, str(ROUNDS)) for _ in range(WRITERS))) as all_:
        for writer in all_:
            writer.ready()
        for writer in all_:
            writer.go()
        results = [writer.read() for writer in all_]

    assert results == [{"done": True}] * WRITERS
    for pid in ids:
        versions = library.versions(book_id, pid)
        assert sorted(v.text for v in versions) == sorted(f"第{n}稿" for n in range(ROUNDS))
        assert sum(v.selected for v in versions) == 1


def test_a_batch_whose_writer_is_killed_mid_transaction_leaves_nothing_and_no_lock(
    library, book_id
):
    ids = first_chapter(library, book_id)
    library.add_translations(book_id, dict.fromkeys(ids, "一"), kind=TranslationKind.TRANSLATION)

    with writers(("killed_batch", book_id)) as [writer]:
        writer.ready()
        writer.go()
        assert writer.read() == {"inserted": len(ids)}
        meanwhile = library.whole_book(book_id).chapters[0].work_paragraphs
        writer.process.send_signal(signal.SIGKILL)
        writer.process.wait()
    after = {pid: library.versions(book_id, pid) for pid in ids}
    library.add_translations(book_id, dict.fromkeys(ids, "二"), kind=TranslationKind.TRANSLATION)

    assert [p.translation for p in meanwhile] == ["一"] * len(ids)
    assert all([(v.text, v.selected) for v in kept] == [("一", True)] for kept in after.values())
    assert [p.translation for p in library.whole_book(book_id).chapters[0].work_paragraphs] == [
        "二"
    ] * len(ids)


def test_a_claim_taken_over_after_a_stalled_heartbeat_refuses_the_old_holders_writes(
    library, jobs, book_id, monkeypatch
):
    monkeypatch.setenv("HONYAKU_CLAIM_TIMEOUT_S", str(CLAIM_TIMEOUT_S))
    chapter = library.whole_book(book_id).chapters[0]
    ids = tuple(p.id for p in chapter.work_paragraphs)
    scope = JobScope(book_id, JobKind.TRANSLATION, [1])
    planned = [PlannedChunk(chapter.id, 1, 1, 1, ids, True)]
    job, _ = jobs.open(scope, model="m", protocol="native", planned=planned)

    with writers(("holder", job.id)) as [old]:
        assert old.read() == {"attempt": 1}
        old.ready()
        time.sleep(CLAIM_TIMEOUT_S)  # the holder stalls: no heartbeat, no write
        with writers(("taker", job.id)) as [new]:
            new.ready()
            new.go()
            took = new.read()
        old.go()
        late = old.read()

    assert took == {
        "attempt": 2,
        "batch": "written",
        "title": "written",
        "status": "written",
        "finish": "written",
        "heartbeat": "held",
    }
    for write in ("batch", "title", "status", "finish"):
        assert late[write].startswith("refused: "), write
        assert "took it over (attempt 2)" in late[write]
    assert late["heartbeat"] == "lost"
    assert all([v.text for v in library.versions(book_id, pid)] == ["新"] for pid in ids)
    assert library.chapter(book_id, chapter.id).translated_title == "新"
    [item] = ChunkStore(library.database).items(job.id)
    assert (item.status, item.attempts) == (ChunkStatus.DONE, 2)


def test_a_stop_reaches_every_process_running_the_job(library, jobs, monkeypatch):
    monkeypatch.setenv("HONYAKU_HEARTBEAT_S", "0.2")
    book_id = library.add_book(
        novel(chapters=12, paragraphs=20), source_lang="ja", target_lang="zh"
    )
    with FakeLLMServer(latency_s=0.3) as server:
        command = [
            *HONYAKU, "translate", book_id, "--model", "m", "--base-url", server.url,
            "--protocol", "native", "--concurrency", "1",
            "--chunk-chars", "200",  # two parts a chapter: none shared, a part for each
        ]  # fmt: skip
        processes = [
            subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for _ in range(3)
        ]
        try:
            job_id = _when_three_processes_run_it(library, jobs, book_id)
            jobs.request_stop(job_id)
            ended = [process.communicate(timeout=WAIT_S) for process in processes]
        finally:
            for process in processes:
                process.kill()
                process.communicate()

    assert [process.returncode for process in processes] == [130] * 3
    assert all("stopped on request" in errors for _, errors in ended)
    assert jobs.get(job_id).status is JobStatus.INTERRUPTED
    items = ChunkStore(library.database).items(job_id)
    assert ChunkStatus.RUNNING not in {item.status for item in items}
    assert ChunkStatus.PENDING in {item.status for item in items}


def _when_three_processes_run_it(library: Library, jobs: JobStore, book_id: str) -> str:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for job in jobs.for_book(book_id):
            items = ChunkStore(library.database).items(job.id)
            owners = {i.lease.owner for i in items if i.status is ChunkStatus.RUNNING}
            if len(owners) == 3:
                return job.id
        time.sleep(0.05)
    raise AssertionError("three processes never ran the job at once")


@pytest.mark.backends("postgresql")
def test_eight_processes_starting_at_once_after_one_upgrade_all_work(
    empty_database_url, tmp_path, monkeypatch
):
    monkeypatch.setenv("HONYAKU_DATABASE_URL", empty_database_url)
    refused = subprocess.run([*HONYAKU, "books"], capture_output=True, text=True)
    upgraded = subprocess.run([*HONYAKU, "db", "upgrade"], capture_output=True, text=True)
    demos = [
        subprocess.Popen(
            [*HONYAKU, "demo", "--home", str(tmp_path / f"home-{n}")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ,
        )
        for n in range(8)
    ]
    errors = [demo.communicate(timeout=WAIT_S * 2)[1] for demo in demos]

    assert refused.returncode == 2
    assert "run `honyaku db upgrade` once" in refused.stderr
    assert upgraded.returncode == 0, upgraded.stderr
    assert [demo.returncode for demo in demos] == [0] * 8, errors
    library = Library(Database.open())
    try:
        # The demo imports its sample book once: the eight share it (or a few copies of it).
        books = library.list_books()
        jobs = [job for book in books for job in JobStore(library.database).for_book(book.id)]
        versions = [
            len(library.versions(book.id, paragraph.id))
            for book in books
            for chapter in library.whole_book(book.id).chapters
            for paragraph in chapter.work_paragraphs
        ]
        assert {b.translated == b.work_paragraphs > 0 for b in books} == {True}
        assert {job.status for job in jobs} == {JobStatus.FINISHED}
        assert set(versions) == {1}
    finally:
        library.database.close()


@pytest.mark.backends("sqlite")
def test_processes_opening_an_empty_sqlite_home_at_once_migrate_it_once(tmp_path):
    environment = {**os.environ, "HONYAKU_HOME": str(tmp_path / "shared")}
    processes = [
        subprocess.Popen(
            [*HONYAKU, "books"],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    ended = [process.communicate(timeout=WAIT_S) for process in processes]

    assert [process.returncode for process in processes] == [0] * 6, ended
    database = Database.open(tmp_path / "shared", migrate=False)
    assert database.schema().up_to_date
    database.close()
