"""Front ends on the database, workers elsewhere: a job started in the workbench is queued
for them, a question waits for a person in the workbench or the terminal while its chunk is
parked, a job page follows a worker's job live, and a job stops and resumes from whichever
front end."""

from __future__ import annotations

import re
from collections import deque

import httpx2
import pytest
from playwright.sync_api import Page, expect

from honyaku.application import Honyaku
from honyaku.llm.demo import FakeCall
from honyaku.store import ChunkStatus, JobStatus, Library, QuestionStatus, Stores
from honyaku.testing import FakeLLMServer, Fault, FaultKind

from ..conftest import novel
from .conftest import (
    Workers,
    assert_translated_once,
    honyaku,
    queue,
    running_chunks,
    wait_for_end,
    wait_until,
    workbench,
)

NAME_QUESTION = FakeCall(
    "ask_user",
    {"question": "「下人」はどう訳しますか？", "suggested_answers": ["仆人", "下人"]},
)


@pytest.fixture
def one_chunk_book(library: Library) -> str:
    return library.add_book(novel(chapters=1), source_lang="ja", target_lang="zh-CN")


def test_a_job_started_in_a_deployments_workbench_waits_in_the_queue_for_a_worker(
    stores: Stores,
    library: Library,
    queued_book: str,
    workers: Workers,
    monkeypatch: pytest.MonkeyPatch,
):
    # Given a workbench started as a deployment's (HONYAKU_QUEUE), and a saved model
    monkeypatch.setenv("HONYAKU_QUEUE", "1")
    with FakeLLMServer(latency_s=0.3) as model:
        honyaku("models", "add", "local", "--model", "fake-translator", "--base-url", model.url)
        with workbench(Honyaku.open()) as origin:
            # When the translator starts a job there while no worker runs
            started = httpx2.post(
                f"{origin}/api/books/{queued_book}/jobs",
                json={"kind": "translation", "model": "local"},
                timeout=30,
            )
            job_id = started.json()["id"]

            # Then it waits in the queue, and nothing has been asked of the model
            assert started.status_code == 201, started.text
            assert stores.jobs.get(job_id).status is JobStatus.QUEUED
            assert model.requests == []

            # When a worker starts, it takes the job, and the terminal lists it with that worker
            # (its name, host:pid:…, cut to the terminal's width) while it runs a chunk: between
            # two chunks no process holds any
            worker = workers.start("--concurrency", "1")

            def listed_with_its_worker() -> bool:
                listed = honyaku("jobs")
                return job_id in listed and f":{worker.pid}" in listed

            wait_until(listed_with_its_worker, 30, "the job listed with the worker running it")
            status = wait_for_end(stores, job_id)

    # Then the worker translated the book, once
    assert status is JobStatus.FINISHED
    assert_translated_once(library, queued_book)


def test_a_question_answered_in_the_workbench_goes_on_on_a_worker_with_the_answer(
    stores: Stores, library: Library, one_chunk_book: str, workers: Workers, page: Page
):
    # Given a worker, and a queued job whose model asks the translator first
    with FakeLLMServer() as model:
        model.translator.asks = (NAME_QUESTION,)
        workers.start("--concurrency", "1")
        job_id = queue(one_chunk_book, model)

        # When the question reaches the workbench, its chunk parked and the job waiting
        page.goto("/")
        dialog = page.locator("#person-dialog")
        expect(dialog).to_contain_text("「下人」はどう訳しますか？")
        # The question is kept before the worker marks the job waiting: a moment apart.
        wait_until(
            lambda: stores.jobs.get(job_id).status is JobStatus.WAITING, 10, "the job to wait"
        )
        assert running_chunks(stores, job_id) == []
        assert [i.status for i in stores.chunks.items(job_id)] == [ChunkStatus.WAITING]

        # And the translator picks the second suggestion there
        dialog.get_by_role("button", name="下人").click()
        expect(dialog).to_be_hidden()
        status = wait_for_end(stores, job_id)

    # Then a worker took the same conversation up, the answer reached the model as the
    # question's result, and the chapter is translated
    assert status is JobStatus.FINISHED
    [result] = model.results_of("ask_user", latest=True)
    assert result == {
        "success": True,
        "question": "「下人」はどう訳しますか？",
        "answer": "下人",
        "selected_index": 1,
    }
    assert stores.questions.waiting() == []
    assert_translated_once(library, one_chunk_book)


def test_a_question_nobody_answers_before_its_deadline_lets_the_model_decide_alone(
    stores: Stores, library: Library, one_chunk_book: str, workers: Workers
):
    # Given a book whose questions wait two seconds, and a model that asks
    library.update_settings(one_chunk_book, question_wait_hours=2 / 3600)
    with FakeLLMServer() as model:
        model.translator.asks = (NAME_QUESTION,)
        workers.start("--concurrency", "1")
        job_id = queue(one_chunk_book, model)

        # When the question waits, listed in the terminal, and nobody answers it
        wait_until(lambda: stores.questions.waiting(), 30, "the question")
        [question] = stores.questions.waiting()
        assert "「下人」はどう訳しますか？" in honyaku("questions")
        status = wait_for_end(stores, job_id)

    # Then past the deadline the model was told nobody answered, and the job went on
    assert status is JobStatus.FINISHED
    [result] = model.results_of("ask_user", latest=True)
    assert result["success"] is False
    assert "nobody answered within" in result["error"]
    assert stores.questions.get(question.id).status is not QuestionStatus.WAITING
    assert_translated_once(library, one_chunk_book)


def test_a_question_answered_in_the_terminal_reaches_the_model(
    stores: Stores, library: Library, one_chunk_book: str, workers: Workers
):
    with FakeLLMServer() as model:
        model.translator.asks = (NAME_QUESTION,)
        workers.start("--concurrency", "1")
        job_id = queue(one_chunk_book, model)
        wait_until(lambda: stores.questions.waiting(), 30, "the question")
        [question] = stores.questions.waiting()

        honyaku("questions", "answer", str(question.id), "召使")
        status = wait_for_end(stores, job_id)

    assert status is JobStatus.FINISHED
    [result] = model.results_of("ask_user", latest=True)
    assert result["answer"] == "召使"


def test_a_job_page_follows_a_workers_job_live_and_it_stops_there_and_resumes_from_the_terminal(
    stores: Stores, library: Library, workers: Workers, page: Page, monkeypatch: pytest.MonkeyPatch
):
    # Given a saved model, a worker, and a job queued from the terminal
    monkeypatch.setenv("HONYAKU_QUEUE", "1")
    queued_book = library.add_book(novel(chapters=8), source_lang="ja", target_lang="zh-CN")
    # The model answers its first two requests and holds the third, so the job is midway
    # while the page looks and Stop is pressed, however slow the machine.
    held = [Fault(FaultKind.SLOW_FIRST_BYTE)] * 2 + [Fault(FaultKind.SLOW_FIRST_BYTE, 60)]
    with FakeLLMServer(faults=deque(held)) as model:
        honyaku("models", "add", "local", "--model", "fake-translator", "--base-url", model.url)
        worker = workers.start("--concurrency", "1")
        job_id = queue(queued_book, "local")

        # When the workbench's page of the job is open
        page.goto(f"/jobs/{job_id}")

        # Then it follows the job the worker runs: its progress and its worker, live
        expect(page.locator("[data-field=status]")).to_have_text("running")
        expect(page.locator("[data-field=workers]")).to_have_text(workers.name(worker))
        expect(page.locator("[data-field=paragraphs]")).not_to_have_text(re.compile(r"^0/"))

        # When it is stopped there
        page.get_by_role("button", name="Stop").click()

        # Then the worker gives its chunk back, and the page shows the job stopped
        expect(page.locator("[data-field=status]")).to_have_text("stopped")
        wait_until(lambda: not running_chunks(stores, job_id), 30, "the chunk to be given back")
        stopped = stores.jobs.get(job_id)
        assert stopped.status is JobStatus.INTERRUPTED
        done_when_stopped = sum(c.translated for c in library.progress(queued_book))
        assert 0 < done_when_stopped < 8 * 10

        # When it is resumed from the terminal, it goes on on the worker to its end
        assert job_id in honyaku("jobs", "resume", job_id)
        status = wait_for_end(stores, job_id)
        page.reload()
        expect(page.locator("[data-field=status]")).to_have_text("finished")

    assert status is JobStatus.FINISHED
    assert_translated_once(library, queued_book)
    assert len(stores.jobs.for_book(queued_book)) == 1
