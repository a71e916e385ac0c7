"""The question queue and approvals, between tools and the person."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.agent.broker import (
    Answer,
    ApprovalPolicy,
    ApprovalReply,
    ApprovalRequest,
    Broker,
    PersonReply,
    PersonRequest,
    Question,
    QuestionReply,
    QuestionRequest,
)
from honyaku.errors import NoFrontEndError


class Person:
    """Answers after a moment's thought; remembers who asked and checks one dialog at a time."""

    def __init__(self, approvals: list[ApprovalReply] | None = None) -> None:
        self.seen: list[str] = []
        self.open = 0
        self.approvals = approvals or []

    async def ask(self, request: PersonRequest) -> PersonReply:
        self.open += 1
        assert self.open == 1, "two dialogs at once"
        self.seen.append(request.asker)
        await asyncio.sleep(0.01)
        self.open -= 1
        if isinstance(request, ApprovalRequest):
            return self.approvals.pop(0)
        return QuestionReply((Answer(0, f"answer for {request.asker}"),))


def question(asker: str) -> QuestionRequest:
    return QuestionRequest((Question("名前は？", ("甲", "乙")),), asker)


@pytest.mark.anyio
async def test_without_a_front_end_a_question_fails_at_once_with_a_reason():
    with pytest.raises(NoFrontEndError, match="nobody can answer"):
        await asyncio.wait_for(Broker().ask(question("job")), timeout=1)


@pytest.mark.anyio
async def test_questions_from_concurrent_jobs_wait_in_order_one_dialog_at_a_time():
    broker, person = Broker(), Person()

    with broker.attached(person):
        replies = await asyncio.gather(*(broker.ask(question(f"job {n}")) for n in range(4)))

    assert person.seen == ["job 0", "job 1", "job 2", "job 3"]
    assert [r.answers[0].answer for r in replies] == [f"answer for job {n}" for n in range(4)]


@pytest.mark.anyio
async def test_a_cancelled_job_withdraws_its_waiting_question():
    broker, person = Broker(), Person()

    with broker.attached(person):
        first = asyncio.create_task(broker.ask(question("first")))
        withdrawn = asyncio.create_task(broker.ask(question("withdrawn")))
        last = asyncio.create_task(broker.ask(question("last")))
        await asyncio.sleep(0)
        withdrawn.cancel()
        await asyncio.gather(first, last)

    assert person.seen == ["first", "last"]
    assert withdrawn.cancelled()


@pytest.mark.anyio
async def test_an_approval_denied_is_a_reason_and_always_allow_stops_asking():
    person = Person([ApprovalReply(allowed=False), ApprovalReply(allowed=True, always=True)])
    broker = Broker()
    policy = ApprovalPolicy(broker, required={"delete_task"})

    with broker.attached(person):
        denied = await policy.refusal("delete_task", {"task_id": "t1"}, "assistant")
        allowed = await policy.refusal("delete_task", {"task_id": "t2"}, "assistant")

    assert denied is not None
    assert 'did not allow this delete_task call: {"task_id": "t1"}' in denied
    assert allowed is None
    assert not policy.needs_approval("delete_task", marked=True)
    assert len(person.seen) == 2


@pytest.mark.anyio
async def test_an_approval_without_a_front_end_is_denied_with_a_clear_reason():
    policy = ApprovalPolicy(Broker(), required={"delete_task"})

    refusal = await policy.refusal("delete_task", {"task_id": "t1"}, "assistant")

    assert refusal == "delete_task needs the translator's approval, and nobody can give it now"
