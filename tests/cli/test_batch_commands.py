"""Batch mode as a person runs it: a job left while its batch waits at the provider, and
picked up by the same command run again; what is refused in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from honyaku.store import Database, Stores
from honyaku.testing import BatchScript, FakeLLMServer, ScriptedTranslator, pseudo_translation

from .conftest import RASHOMON, honyaku, imported

CLAIM_TIMEOUT_S = 1.0


def model_flags(server: FakeLLMServer) -> list[str]:
    return ["--model", "fake-translator", "--base-url", server.url]


def test_a_batch_job_killed_while_its_batch_waits_is_finished_by_the_next_run_sending_nothing_twice(
    home, monkeypatch
):
    monkeypatch.setenv("HONYAKU_CLAIM_TIMEOUT_S", str(CLAIM_TIMEOUT_S))
    monkeypatch.setenv("HONYAKU_HEARTBEAT_S", "0.2")
    monkeypatch.setenv("HONYAKU_BATCH_POLL_S", "0.02")
    book = imported(RASHOMON)
    script = BatchScript(polls=1_000_000)  # the first batch waits until the test lets it end
    stores = Stores.over(Database.open(home))
    with FakeLLMServer(translator=ScriptedTranslator.careful(), batch_script=script) as server:
        command = [
            sys.executable, "-m", "honyaku", "translate", book, *model_flags(server),
            "--chunk-chars", "1500", "--batch",
        ]  # fmt: skip
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ
        )
        deadline = time.monotonic() + 60
        while not _recorded(stores, book) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # polled a few times, with nothing answered yet
        process.send_signal(signal.SIGKILL)
        process.wait()
        left = honyaku("jobs")
        first = next(iter(server.batches.batches.values()))
        script.polls = 0  # the provider answers it now, whoever asks
        time.sleep(CLAIM_TIMEOUT_S)  # the dead process's claims go silent, then free

        resumed = honyaku(*command[3:])  # the same command, run again

    parts = len(first.lines)
    assert parts >= 2
    assert f"waits for the provider: 1 batch(es), 0/{parts} requests answered" in left.stdout
    assert "Resuming translation job" in resumed.stdout
    answered = server.batches.answered
    assert len(answered) == len(set(answered)), "a request was answered twice"
    assert {custom_id for custom_id, _ in first.lines} <= set(answered)
    later = [b for b in server.batches.batches.values() if b is not first]
    assert later, "a careful model takes more than one step a part"
    sent_again = {cid for b in later for cid, _ in b.lines} & {cid for cid, _ in first.lines}
    assert not sent_again, "the first batch's requests were sent again"
    job = stores.jobs.for_book(book)[0]
    assert job.status == "finished"
    for chapter in stores.library.whole_book(book).chapters:
        for paragraph in chapter.work_paragraphs:
            assert paragraph.translation == pseudo_translation(paragraph.text)


def _recorded(stores: Stores, book: str) -> bool:
    """The job's first batch was taken, and kept with its provider's id."""
    jobs = stores.jobs.for_book(book)
    return bool(jobs) and any(b.batch_id for b in stores.batches.of_job(jobs[0].id))


def test_batch_mode_is_refused_in_one_line_where_it_cannot_run(fake_model):
    book = imported(RASHOMON)

    demo = honyaku("translate", book, "--model", "demo", "--batch", check=False)
    xml = honyaku(
        "translate", book, *model_flags(fake_model), "--protocol", "xml", "--batch", check=False
    )

    assert demo.returncode == 2
    assert "error: demo has no Batch API: batch mode needs" in demo.stderr
    assert xml.returncode == 2
    assert "batch mode needs native tool calls" in xml.stderr
    for done in (demo, xml):
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
