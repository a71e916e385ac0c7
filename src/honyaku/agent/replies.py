"""Questions and replies as JSON: a question as every front end shows it and a queued job
keeps it, and a person's reply as a front end sends it (from a page, a terminal's answers),
checked against what was asked, the same way everywhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from honyaku.agent.broker import (
    Answer,
    ApprovalReply,
    ApprovalRequest,
    PersonReply,
    PersonRequest,
    Question,
    QuestionReply,
    QuestionRequest,
)
from honyaku.errors import UserError


def checked_reply(request: PersonRequest, reply: Mapping[str, Any]) -> PersonReply:
    """The reply a front end sent (JSON), checked against what was asked."""
    if isinstance(request, ApprovalRequest):
        return ApprovalReply(bool(reply.get("allowed")), bool(reply.get("always")))
    answers = tuple(_answer(request, given) for given in reply.get("answers") or ())
    if len({a.question_index for a in answers}) != len(answers):
        raise UserError("a question is answered twice")
    cancelled = bool(reply.get("cancelled"))
    if not cancelled and len(answers) != len(request.questions):
        raise UserError(f"answer all {len(request.questions)} questions, or cancel")
    return QuestionReply(tuple(sorted(answers, key=lambda a: a.question_index)), cancelled)


def _answer(request: QuestionRequest, given: Mapping[str, Any]) -> Answer:
    index = given.get("question_index")
    if not isinstance(index, int) or not 0 <= index < len(request.questions):
        raise UserError(f"there is no question {index!r}")
    question = request.questions[index]
    picked = given.get("selected_index")
    if picked is not None:
        if not isinstance(picked, int) or not 0 <= picked < len(question.suggested_answers):
            raise UserError(f"question {index} has no suggestion {picked!r}")
        return Answer(index, question.suggested_answers[picked], picked)
    text = str(given.get("answer") or "").strip()
    if not text or not question.allow_free_text:
        raise UserError(f"question {index} takes one of its suggestions")
    return Answer(index, text)


def request_record(request: QuestionRequest) -> dict[str, Any]:
    return {
        "asker": request.asker,
        "batch": request.batch,
        "questions": [
            {
                "question": q.text,
                "suggested_answers": list(q.suggested_answers),
                "allow_free_text": q.allow_free_text,
            }
            for q in request.questions
        ],
    }


def request_from_record(record: dict[str, Any]) -> QuestionRequest:
    questions = tuple(
        Question(q["question"], tuple(q["suggested_answers"]), q["allow_free_text"])
        for q in record["questions"]
    )
    return QuestionRequest(questions, record["asker"], record["batch"])
