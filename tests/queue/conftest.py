"""The job queue as a deployment runs it: workers are real OS processes (``python -m honyaku
worker``) on the test's own PostgreSQL database, the fake model server runs in this process,
and jobs are queued, stopped and answered as the front ends do it.

Claims and worker heartbeats are short here (a claim goes stale after ``CLAIM_TIMEOUT_S``),
so that a killed worker's chunk is taken over within seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from typer.testing import CliRunner

from honyaku.application import Honyaku
from honyaku.cli import app as cli
from honyaku.store import ChunkItem, ChunkStatus, JobStatus, Library, Stores
from honyaku.testing import FakeLLMServer, pseudo_translation
from honyaku.testing.server import BackgroundServer
from honyaku.web import Workbench, create_app
from honyaku.web.front_end import WebFrontEnd

from ..conftest import novel

CLAIM_TIMEOUT_S = 3.0
HEARTBEAT_S = 0.5
WORKER_START_S = 30.0
JOB_WAIT_S = 90.0


@pytest.fixture(autouse=True)
def short_claims(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short claims and beats, for this process and the workers it starts."""
    monkeypatch.setenv("HONYAKU_CLAIM_TIMEOUT_S", str(CLAIM_TIMEOUT_S))
    monkeypatch.setenv("HONYAKU_HEARTBEAT_S", str(HEARTBEAT_S))


@dataclass
class Workers:
    """``honyaku worker`` processes, each writing to a log of its own."""

    logs: Path
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)

    def start(self, *options: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
        """A worker, once it takes work; its environment is this process's, with ``env``."""
        log = self.logs / f"worker-{len(self.started) + 1}.log"
        with log.open("wb") as output:
            process = subprocess.Popen(
                [sys.executable, "-m", "honyaku", "worker", *options],
                stdout=output,
                stderr=subprocess.STDOUT,
                env={
                    **os.environ,
                    "PYTHONUNBUFFERED": "1",
                    "PYTHONFAULTHANDLER": "1",
                    "COLUMNS": "200",
                    **(env or {}),
                },
            )
        self.started.append(process)
        wait_until(lambda: "takes jobs" in self.output(process), WORKER_START_S, "a worker")
        self.names[process.pid] = self.output(process).split("Worker ", 1)[1].split()[0]
        return process

    def output(self, process: subprocess.Popen[bytes]) -> str:
        return (self.logs / f"worker-{self.started.index(process) + 1}.log").read_text()

    def name(self, process: subprocess.Popen[bytes]) -> str:
        return self.names[process.pid]

    def kill_all(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            process.wait()


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Workers]:
    started = Workers(tmp_path)
    yield started
    started.kill_all()
    for process in started.started:
        assert "Traceback" not in started.output(process), started.output(process)


@pytest.fixture
def queued_book(library: Library) -> str:
    """Four chapters of two chunks each."""
    book_id = library.add_book(novel(chapters=4), source_lang="ja", target_lang="zh-CN")
    library.update_settings(book_id, chunk_chars=200)
    return book_id


def honyaku(*args: str) -> str:
    """The ``honyaku`` command in this process; what it printed. It runs on a thread of its
    own, as a test with a browser has an event loop running on this one."""
    with ThreadPoolExecutor(1) as thread:
        done = thread.submit(CliRunner().invoke, cli, list(args), catch_exceptions=False).result()
    assert done.exit_code == 0, done.output
    return done.output


def queue(book_id: str, model: str | FakeLLMServer, *options: str) -> str:
    """``honyaku translate BOOK --queue`` with a saved profile or the fake model; the job's
    id, which it prints last."""
    chosen = ["--model", model] if isinstance(model, str) else model_flags(model)
    printed = honyaku("translate", book_id, *chosen, "--queue", *options)
    return printed.strip().splitlines()[-1]


def model_flags(server: FakeLLMServer) -> list[str]:
    return ["--model", "fake-translator", "--base-url", server.url]


def wait_until(done: Callable[[], object], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:g} s for {what}")
        time.sleep(0.05)


def wait_for_end(stores: Stores, job_id: str) -> JobStatus:
    ended = (JobStatus.FINISHED, JobStatus.FAILED, JobStatus.INTERRUPTED)
    wait_until(lambda: stores.jobs.get(job_id).status in ended, JOB_WAIT_S, f"job {job_id}")
    return stores.jobs.get(job_id).status


def running_chunks(stores: Stores, job_id: str) -> list[ChunkItem]:
    return [i for i in stores.chunks.items(job_id) if i.status is ChunkStatus.RUNNING]


def assert_translated_once(library: Library, book_id: str) -> None:
    """Every paragraph holds its own translation, written once: nothing lost or doubled."""
    for chapter in library.whole_book(book_id).chapters:
        assert chapter.translated_title == pseudo_translation(chapter.title)
        for paragraph in chapter.work_paragraphs:
            assert paragraph.translation == pseudo_translation(paragraph.text), paragraph
            assert len(library.versions(book_id, paragraph.id)) == 1, paragraph


@contextmanager
def workbench(honyaku: Honyaku) -> Iterator[str]:
    """The workbench over ``honyaku`` served on loopback: its address."""
    hosts: set[str] = set()
    bench = Workbench(honyaku, WebFrontEnd(grace_s=1.0))
    with BackgroundServer(create_app(bench, hosts=hosts)) as server:
        hosts.update({f"127.0.0.1:{server.port}", f"localhost:{server.port}"})
        yield server.origin


@pytest.fixture
def page(browser: Browser, honyaku_queued: Honyaku) -> Iterator[Page]:
    """A page of a workbench over the test's database that queues its jobs."""
    with workbench(honyaku_queued) as origin:
        context = browser.new_context(base_url=origin)
        opened = context.new_page()
        errors: list[str] = []
        opened.on("pageerror", lambda error: errors.append(str(error)))
        yield opened
        context.close()
    assert errors == [], errors


@pytest.fixture
def honyaku_queued(stores: Stores) -> Honyaku:
    """The application as a front end of a deployment with workers uses it."""
    return Honyaku(stores, queued=True)
