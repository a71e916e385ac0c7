"""The model asks the translator, through the broker, in both protocols."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from honyaku.agent.broker import (
    Answer,
    ApprovalReply,
    ApprovalRequest,
    Broker,
    PersonReply,
    PersonRequest,
    QuestionReply,
    QuestionRequest,
)
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.jobs import JobRequest
from honyaku.store import ActionKind, Stores
from honyaku.testing import FakeCall, FakeLLMServer, pseudo_translation

from .conftest import connected, engine, run_to_end

# Questions wait in this process's broker; the actions they leave are written like every
# other action, on both databases in test_jobs_over_http.py.
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.protocols("native", "xml")]

NAME_QUESTION = FakeCall(
    "ask_user",
    {
        "question": "「下人」はどう訳しますか？",
        "suggested_answers": ["仆人", "下人"],
        "allow_free_text": True,
    },
)
BATCH = FakeCall(
    "ask_user_batch",
    {
        "questions": [
            {"question": "主人公の一人称は？", "suggested_answers": ["我", "俺"]},
            {"question": "敬語はどこまで訳す？"},
            {
                "question": "地名は音訳？",
                "suggested_answers": ["音訳", "意訳"],
                "allow_free_text": False,
            },
        ]
    },
)


class Person:
    """The translator at the other end: answers each dialog with ``decide``."""

    def __init__(self, decide: Callable[[PersonRequest], PersonReply]) -> None:
        self.decide = decide
        self.dialogs: list[PersonRequest] = []
        self.open = 0

    async def ask(self, request: PersonRequest) -> PersonReply:
        self.open += 1
        assert self.open == 1, "two dialogs on screen at once"
        self.dialogs.append(request)
        await asyncio.sleep(0.005)
        self.open -= 1
        return self.decide(request)


def picks(n: int) -> Callable[[PersonRequest], PersonReply]:
    def decide(request: PersonRequest) -> PersonReply:
        assert isinstance(request, QuestionRequest)
        answers = tuple(
            Answer(i, q.suggested_answers[n], n) if q.suggested_answers else Answer(i, "自由回答")
            for i, q in enumerate(request.questions)
        )
        return QuestionReply(answers)

    return decide


@contextmanager
def answering(person: Person) -> Iterator[Broker]:
    """A broker with ``person`` at the front end while the block runs."""
    broker = Broker()
    with broker.attached(person):
        yield broker


def test_seed_003_the_person_picks_a_suggestion_and_the_model_gets_answer_and_index(
    run_job, fake_model, book_id, library
):
    fake_model.translator.asks = (NAME_QUESTION,)
    person = Person(picks(1))

    with answering(person) as broker:
        outcome, _ = run_job(fake_model, book_id, broker=broker, chapters=[1])

    assert outcome.ok
    [result] = fake_model.results_of("ask_user")
    assert result == {
        "success": True,
        "question": "「下人」はどう訳しますか？",
        "answer": "下人",
        "selected_index": 1,
    }
    [dialog] = person.dialogs
    assert isinstance(dialog, QuestionRequest)
    assert dialog.questions[0].suggested_answers == ("仆人", "下人")
    assert "chapter 1" in dialog.asker


def test_a_free_text_answer_comes_back_without_an_index(run_job, fake_model, book_id):
    fake_model.translator.asks = (NAME_QUESTION,)
    person = Person(lambda request: QuestionReply((Answer(0, "下男"),)))

    with answering(person) as broker:
        run_job(fake_model, book_id, broker=broker, chapters=[1])

    [result] = fake_model.results_of("ask_user")
    assert result["answer"] == "下男"
    assert "selected_index" not in result


def test_a_cancelled_question_is_a_result_the_model_can_read(run_job, fake_model, book_id):
    fake_model.translator.asks = (NAME_QUESTION,)
    person = Person(lambda request: QuestionReply((), cancelled=True))

    with answering(person) as broker:
        outcome, _ = run_job(fake_model, book_id, broker=broker, chapters=[1])

    [result] = fake_model.results_of("ask_user")
    assert result["success"] is False
    assert result["cancelled"] is True
    assert outcome.ok


def test_a_batch_is_one_dialog_and_its_answers_map_back_by_question_index(
    run_job, fake_model, book_id
):
    fake_model.translator.asks = (BATCH,)
    person = Person(picks(0))

    with answering(person) as broker:
        run_job(fake_model, book_id, broker=broker, chapters=[1])

    assert len(person.dialogs) == 1
    assert person.dialogs[0].batch
    [result] = fake_model.results_of("ask_user_batch")
    assert result == {
        "success": True,
        "answers": [
            {"question_index": 0, "answer": "我", "selected_index": 0},
            {"question_index": 1, "answer": "自由回答"},
            {"question_index": 2, "answer": "音訳", "selected_index": 0},
        ],
    }


def test_a_batch_cancelled_midway_returns_the_answers_given_so_far(run_job, fake_model, book_id):
    fake_model.translator.asks = (BATCH,)
    person = Person(
        lambda request: QuestionReply((Answer(0, "俺", 1), Answer(1, "全部")), cancelled=True)
    )

    with answering(person) as broker:
        run_job(fake_model, book_id, broker=broker, chapters=[1])

    [result] = fake_model.results_of("ask_user_batch")
    assert result["cancelled"] is True
    assert result["answers"] == [
        {"question_index": 0, "answer": "俺", "selected_index": 1},
        {"question_index": 1, "answer": "全部"},
    ]


def test_without_a_front_end_the_model_gets_a_readable_error_and_the_job_goes_on(
    run_job, fake_model, book_id, library
):
    fake_model.translator.asks = (NAME_QUESTION,)

    outcome, _ = run_job(fake_model, book_id, broker=Broker())

    results = fake_model.results_of("ask_user")
    assert len(results) == 1  # the book's three short chapters share one conversation
    assert all(r["success"] is False and r["error_code"] == "NO_FRONT_END" for r in results)
    assert "nobody can answer" in results[0]["error"]
    assert outcome.ok


def test_with_skip_ask_user_the_tools_are_not_offered_and_a_call_is_cancelled_unseen(
    run_job, fake_model, book_id, library, protocol
):
    library.update_settings(book_id, skip_ask_user=True)
    fake_model.translator.asks = (NAME_QUESTION, BATCH)
    person = Person(picks(0))

    with answering(person) as broker:
        outcome, _ = run_job(fake_model, book_id, broker=broker, chapters=[1])

    first = fake_model.requests[0]
    offered = [t["function"]["name"] for t in first.get("tools") or ()]
    system = first["messages"][0]["content"]
    assert "ask_user" not in offered
    assert "ask_user" not in system
    assert person.dialogs == []
    for name in ("ask_user", "ask_user_batch"):
        [result] = fake_model.results_of(name)
        assert result["cancelled"] is True
        assert result["skipped"] is True
    assert outcome.ok


@pytest.mark.parametrize("kind", list(JobKind))
def test_every_kind_of_job_offers_the_question_tools(run_job, fake_model, book_id, protocol, kind):
    if kind is not JobKind.TRANSLATION:
        run_job(fake_model, book_id, chapters=[1])
        fake_model.requests.clear()

    run_job(fake_model, book_id, kind, chapters=[1])

    first = fake_model.requests[0]
    if protocol == "native":
        offered = {t["function"]["name"]: t["function"]["description"] for t in first["tools"]}
        assert {"ask_user", "ask_user_batch"} <= set(offered)
        # When to ask is said once, by the tool itself.
        assert "blocks you" in offered["ask_user"]
    else:
        assert '<invoke name="ask_user_batch">' in first["messages"][0]["content"]


def test_two_concurrent_jobs_queue_their_questions_one_dialog_at_a_time(library, jobs, protocol):
    books = [
        library.add_book(
            BookDraft(f"本{n}", (ChapterDraft("一", ("文。",)), ChapterDraft("二", ("文。",)))),
            source_lang="ja",
            target_lang="zh-CN",
        )
        for n in range(2)
    ]
    person = Person(picks(0))
    with FakeLLMServer(latency_s=0.02) as server, answering(person) as broker:
        server.translator.asks = (NAME_QUESTION,)

        async def both() -> list:
            service = engine(Stores.over(library.database), broker)
            return await asyncio.gather(
                *(
                    run_to_end(
                        service,
                        JobRequest(book_id=book, kind=JobKind.TRANSLATION, concurrency=2),
                        connected(server, protocol),
                    )
                    for book in books
                )
            )

        outcomes = [outcome for outcome, _ in asyncio.run(both())]

    assert all(outcome.ok for outcome in outcomes)
    assert len(person.dialogs) == 2  # each book's two short chapters share one conversation
    for book in books:
        for chapter in library.whole_book(book).chapters:
            assert chapter.paragraphs[0].translation == pseudo_translation("文。")


def test_questions_and_answers_are_recorded_as_short_actions(run_job, fake_model, book_id, jobs):
    fake_model.translator.asks = (NAME_QUESTION, BATCH)
    person = Person(picks(1))

    with answering(person) as broker:
        run_job(fake_model, book_id, broker=broker, chapters=[1])

    recorded = [a.action.payload for a in jobs.actions(book_id, kinds=[ActionKind.QUESTION])]
    assert recorded == [
        {
            "tool": "ask_user",
            "questions": ["「下人」はどう訳しますか？"],
            "outcome": "answered",
            "answers": ["下人"],
        },
        {
            "tool": "ask_user_batch",
            "questions": ["主人公の一人称は？", "敬語はどこまで訳す？", "地名は音訳？"],
            "outcome": "answered",
            "answers": ["俺", "自由回答", "意訳"],
        },
    ]


# -- approvals -------------------------------------------------------------------------------------


def approves(*replies: bool) -> Callable[[PersonRequest], PersonReply]:
    queue = list(replies)

    def decide(request: PersonRequest) -> PersonReply:
        assert isinstance(request, ApprovalRequest)
        return ApprovalReply(allowed=queue.pop(0))

    return decide


def test_a_call_that_needs_approval_waits_for_it_and_a_denial_goes_back_to_the_model(
    run_job, fake_model, book_id, library, jobs
):
    library.update_settings(book_id, approve_tools=["update_chapter_title"])
    person = Person(approves(False, True))

    with answering(person) as broker:
        outcome, _ = run_job(fake_model, book_id, broker=broker, chapters=[1])

    denied, allowed = [
        a.action.payload
        for a in jobs.actions(book_id, kinds=[ActionKind.TOOL_RESULT])
        if a.action.name == "update_chapter_title"
    ]
    assert denied["error_code"] == "DENIED"
    assert "did not allow this update_chapter_title call" in denied["error"]
    assert fake_model.results_of("update_chapter_title")[0]["error_code"] == "DENIED"
    assert allowed["success"] is True
    assert person.dialogs[0].tool == "update_chapter_title"
    assert outcome.ok


def test_an_always_allowed_tool_is_never_asked_about(run_job, fake_model, book_id, library):
    library.update_settings(
        book_id, approve_tools=["update_chapter_title"], always_allow=["update_chapter_title"]
    )
    person = Person(approves())

    with answering(person) as broker:
        outcome, _ = run_job(fake_model, book_id, broker=broker, chapters=[1])

    assert person.dialogs == []
    assert outcome.ok


def test_without_a_front_end_a_call_needing_approval_is_denied_with_a_reason(
    run_job, fake_model, book_id, library
):
    library.update_settings(book_id, approve_tools=["update_chapter_title"])

    outcome, _ = run_job(fake_model, book_id, broker=Broker(), chapters=[1])

    result = fake_model.results_of("update_chapter_title")[0]
    assert result["error_code"] == "DENIED"
    assert "nobody can give it now" in result["error"]
    assert not outcome.ok
