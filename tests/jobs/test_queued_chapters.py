"""A queued job's chapter, as a worker runs it (``JobService.run_chapter``), in this process:
a question parks its chunk with the conversation, an answer takes the conversation back up
with the answer reaching the model, a deadline gives nobody's answer, and a spending cap is
kept in the database's ledger. The job queue itself, with worker processes, is tested in
``tests/queue``."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.domain import JobKind
from honyaku.domain.pricing import Prices
from honyaku.jobs import JobRequest, JobService
from honyaku.jobs.service import ChapterEnd, ChapterOrder
from honyaku.llm.models import ModelChoice
from honyaku.store import ChunkStatus, JobStatus, QuestionStatus, Stores
from honyaku.testing import FakeCall, FakeLLMServer

from .conftest import assert_translated_in_place, connected, engine, handed

# What a job writes, claims and resumes, on both databases.
pytestmark = pytest.mark.backends("sqlite", "postgresql")

NAME_QUESTION = FakeCall(
    "ask_user",
    {"question": "「下人」はどう訳しますか？", "suggested_answers": ["仆人", "下人"]},
)


def open_queued(
    stores: Stores, book_id: str, prices: Prices | None = None, **request: object
) -> tuple[JobService, str]:
    service = engine(stores)
    job = service.open_queued(
        JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, **request),  # type: ignore[arg-type]
        ModelChoice("fake", prices=prices),
        lambda _session, _job: None,
    )
    return service, job.id


def run_chapter(
    service: JobService,
    job_id: str,
    chapter: int,
    server: FakeLLMServer,
    prices: Prices | None = None,
) -> ChapterEnd:
    async def run() -> ChapterEnd:
        model = connected(server, "native")
        try:
            order = ChapterOrder(
                job_id=job_id, chapter=chapter, stops=0, run="run-1", max_cost=None
            )
            return await service.run_chapter(order, handed(service, model, prices))
        finally:
            await model.provider.aclose()

    return asyncio.run(run())


def test_a_question_parks_its_chunk_and_the_answer_reaches_the_model_when_it_goes_on(
    stores, book_id, fake_model
):
    # Given a queued job on one chapter whose model asks the translator first
    service, job_id = open_queued(stores, book_id, chapters=[1])
    fake_model.translator.asks = (NAME_QUESTION,)

    # When a worker runs the chapter
    parked = run_chapter(service, job_id, 1, fake_model)

    # Then the question waits, its chunk parked and no process holding it, the job waiting
    [question] = stores.questions.waiting()
    assert parked is ChapterEnd.DONE
    assert question.request["questions"][0]["question"] == "「下人」はどう訳しますか？"
    assert "chapter 1" in question.asker
    assert [item.status for item in stores.chunks.items(job_id)] == [ChunkStatus.WAITING]
    assert stores.jobs.get(job_id).status is JobStatus.WAITING
    asked_so_far = len(fake_model.requests)

    # When the translator picks the second suggestion, and a worker runs the chapter again
    reply = {"answers": [{"question_index": 0, "answer": "下人", "selected_index": 1}]}
    requeued: list[tuple[str, int]] = []
    stores.questions.answer(
        question.id, reply, lambda _s, job, chapter: requeued.append((job, chapter))
    )
    went_on = run_chapter(service, job_id, 1, fake_model)

    # Then the chapter was queued again, the same conversation went on with the answer as the
    # call's result, and the chapter is translated
    assert requeued == [(job_id, 1)]
    assert went_on is ChapterEnd.DONE
    asked, going_on = fake_model.requests[asked_so_far - 1 : asked_so_far + 1]
    assert going_on["messages"][:2] == asked["messages"]
    assert going_on["messages"][2]["tool_calls"][0]["function"]["name"] == "ask_user"
    [result] = fake_model.results_of("ask_user", latest=True)
    assert result == {
        "success": True,
        "question": "「下人」はどう訳しますか？",
        "answer": "下人",
        "selected_index": 1,
    }
    assert stores.questions.get(question.id).status is QuestionStatus.RESUMED
    assert stores.jobs.get(job_id).status is JobStatus.FINISHED
    book = stores.library.whole_book(book_id)
    assert all(p.translation for p in book.chapters[0].work_paragraphs)


def test_a_question_past_its_deadline_gives_the_model_nobodys_answer(stores, book_id, fake_model):
    stores.library.update_settings(book_id, question_wait_hours=0.0001)
    service, job_id = open_queued(stores, book_id, chapters=[2])
    fake_model.translator.asks = (NAME_QUESTION,)
    run_chapter(service, job_id, 2, fake_model)

    asyncio.run(asyncio.sleep(0.5))
    expired = stores.questions.expire(lambda _s, _job, _chapter: None)
    run_chapter(service, job_id, 2, fake_model)

    assert len(expired) == 1
    [result] = fake_model.results_of("ask_user", latest=True)
    assert result["success"] is False
    assert "nobody answered within" in result["error"]
    assert stores.jobs.get(job_id).status is JobStatus.FINISHED


def test_with_questions_off_a_queued_job_parks_nothing(stores, book_id, fake_model):
    stores.library.update_settings(book_id, skip_ask_user=True)
    service, job_id = open_queued(stores, book_id)
    fake_model.translator.asks = (NAME_QUESTION,)

    for chapter in (1, 2, 3):
        run_chapter(service, job_id, chapter, fake_model)

    assert stores.questions.waiting() == []
    assert stores.jobs.get(job_id).status is JobStatus.FINISHED
    assert_translated_in_place(stores.library, book_id)


def test_a_queued_run_keeps_one_cap_for_all_its_chapters(stores, book_id, fake_model):
    # Given a queued job on a book whose cap pays for about one chapter
    prices = Prices(2.0, 8.0)
    stores.library.update_settings(book_id, max_cost=0.004)
    service, job_id = open_queued(stores, book_id, prices)

    # When its three chapters run one after another, as three workers would, all under the
    # same run
    ends = [
        run_chapter(service, job_id, chapter, fake_model, prices=prices) for chapter in (1, 2, 3)
    ]

    # Then the ledger stopped the run before it passed the cap: not every chapter was done
    assert ChapterEnd.STOPPED in ends
    assert stores.spending.spent(f"{job_id}:run-1") <= 0.004
    assert stores.jobs.get(job_id).status is JobStatus.INTERRUPTED
    assert "of the cap of 0.004 spent" in (stores.jobs.get(job_id).error or "")
