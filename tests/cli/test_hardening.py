"""What a hostile but fair user tried (issue 9), through the real command: bad addresses,
unset keys, dead servers, a big chunk with a cautious model, a killed job."""

from __future__ import annotations

import socket
import time
from datetime import timedelta

import pytest

from honyaku.store import Database, JobStore
from honyaku.testing import FakeGeminiServer, FakeLLMServer

from .conftest import KOJIKI, RASHOMON, honyaku, imported


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://127.0.0.1:99999/v1", "Port out of range"),
        ("http://[::1/v1", "Invalid IPv6 URL"),
        ("http://127.0.0.1:abc/v1", "Port could not be cast"),
        ("not a url", "must start with http"),
        ("ftp://example.com/v1", "must start with http"),
        ("http://", "names no host"),
        ("http://user:SECRET@example.com/v1", "will not store"),
    ],
)
def test_a_bad_base_url_is_one_line_before_any_request(url, problem):
    book = imported(RASHOMON)

    done = honyaku("translate", book, "--model", "m", "--base-url", url, check=False)

    assert done.returncode == 2
    assert problem in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "SECRET" not in done.stdout + done.stderr


def test_an_unset_key_variable_is_one_line_before_any_request(fake_model):
    book = imported(RASHOMON)

    done = honyaku(
        "translate", book, "--model", "m", "--base-url", fake_model.url,
        "--api-key-env", "NO_SUCH_VAR", check=False,
    )  # fmt: skip

    assert done.returncode == 2
    assert "the environment variable NO_SUCH_VAR is not set" in done.stderr
    assert fake_model.requests == []


def test_a_server_that_refuses_connections_ends_the_job_at_once_saying_so_once():
    book = imported(KOJIKI)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    started = time.monotonic()

    done = honyaku(
        "translate", book, "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1",
        "--protocol", "native", check=False,
    )  # fmt: skip

    assert done.returncode == 1
    assert time.monotonic() - started < 15
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert f"127.0.0.1:{port}" in errors[0]
    assert "retry" not in done.stdout


def test_a_refused_key_during_the_protocol_probe_is_not_taken_for_a_model_without_tools(
    home, monkeypatch
):
    monkeypatch.setenv("GEMINI_API_KEY", "the-wrong-key")
    book = imported(RASHOMON)
    with FakeGeminiServer(api_key="the-right-key") as server:
        done = honyaku(
            "translate", book, "--model", "gemini-fake", "--provider", "gemini",
            "--base-url", server.url, "--api-key-env", "GEMINI_API_KEY", "--protocol", "auto",
            check=False,
        )  # fmt: skip

    assert done.returncode == 1
    assert "refused the API key" in done.stderr
    with Database.open(home).engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT * FROM learned_protocols").all() == []


def test_a_big_chunk_with_a_model_that_sends_three_paragraphs_a_reply_still_finishes(tmp_path):
    novel = tmp_path / "novel.txt"
    novel.write_text("\n\n".join(f"{n}番目の段落です。" for n in range(120)), encoding="utf-8")
    book = imported(novel)
    with FakeLLMServer() as server:
        server.translator.batch_size = 3
        server.translator.calls_per_reply = 1
        done = honyaku(
            "translate", book, "--model", "m", "--base-url", server.url, "--protocol", "native"
        )

        replies = len(server.requests)
    assert "paragraphs  120/120" in done.stdout
    assert replies > 40


def test_a_job_whose_process_went_silent_shows_as_interrupted(home, book_id_in_home):
    jobs = JobStore(Database.open(home))
    job = _running_job_of_a_silent_process(jobs, book_id_in_home)

    shown = honyaku("show", book_id_in_home).stdout

    assert job in shown
    assert "interrupted" in shown
    assert "running" not in shown


@pytest.fixture
def book_id_in_home() -> str:
    return imported(RASHOMON)


def _running_job_of_a_silent_process(jobs: JobStore, book_id: str) -> str:
    from honyaku.domain import JobKind
    from honyaku.store import JobScope
    from honyaku.store.leases import CLAIM_TIMEOUT_S
    from honyaku.store.schema import JobRow, utc_now

    job, _ = jobs.open(
        JobScope(book_id, JobKind.TRANSLATION, None), model="m", protocol="p", planned=()
    )
    with jobs.database.transaction() as session:
        row = session.get(JobRow, job.id)
        row.owner = f"{socket.gethostname()}:999999:abcdef"
        row.heartbeat_at = utc_now() - timedelta(seconds=CLAIM_TIMEOUT_S + 1)
    return job.id
