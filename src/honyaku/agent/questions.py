"""``ask_user`` and ``ask_user_batch``: the model asks the translator.

They work in any conversation, since every tool context can reach the person: translation,
polish and proofreading jobs, and the assistant. A book can turn questions off; then
``SKIPPED_QUESTION_TOOLS`` take their place: not offered to the model, and a call made anyway,
whatever its arguments, is answered ``cancelled`` at once without asking anyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from honyaku.agent.broker import (
    Answer,
    Question,
    QuestionReply,
    QuestionRequest,
)
from honyaku.agent.registry import Result, Tool, ToolContext, tool
from honyaku.errors import NoFrontEndError, ToolError

MAX_SUGGESTIONS = 10
MAX_QUESTIONS = 20
SUMMARY_CHARS = 120
SKIPPED = (
    "the translator turned questions off for this book: nobody was asked. Decide yourself "
    "and go on."
)
QUESTION_TOOL_NAMES = ("ask_user", "ask_user_batch")


QuestionText = Annotated[str, Field(min_length=1, description="Short and clear.")]
Suggestions = Annotated[
    tuple[str, ...], Field(max_length=MAX_SUGGESTIONS, description="Likely answers, best first.")
]
FreeText = Annotated[bool, Field(description="May another answer be typed?")]


class BatchQuestion(BaseModel):
    # ask_user's fields, described in its schema: the model is not told them twice. (A
    # docstring here would go to the model as the schema's description.)
    question: Annotated[str, Field(min_length=1)]
    suggested_answers: Annotated[tuple[str, ...], Field(max_length=MAX_SUGGESTIONS)] = ()
    allow_free_text: bool = True


@tool()
async def ask_user(
    context: ToolContext,
    question: QuestionText,
    suggested_answers: Suggestions = (),
    allow_free_text: FreeText = True,
) -> Result:
    """Ask the translator and wait, only for a choice that is theirs and blocks you (a name, a
    voice, a key term). Returns the answer (selected_index for a suggestion) or cancelled."""
    asked = (_question(question, suggested_answers, allow_free_text),)
    reply = await _ask(context, QuestionRequest(asked, context.asker))
    if isinstance(reply, dict):
        return {**reply, "question": question}
    if reply.cancelled or not reply.answers:
        return _cancelled("the translator cancelled the question", question=question)
    return {"success": True, "question": question, **_answer_fields(reply.answers[0])}


@tool()
async def ask_user_batch(
    context: ToolContext,
    questions: Annotated[
        list[BatchQuestion],
        Field(min_length=1, max_length=MAX_QUESTIONS),
    ],
) -> Result:
    """Several ask_user questions in one dialog. Returns answers by question_index."""
    asked = tuple(_question(q.question, q.suggested_answers, q.allow_free_text) for q in questions)
    reply = await _ask(context, QuestionRequest(asked, context.asker, batch=True))
    if isinstance(reply, dict):
        return reply
    answers = [{"question_index": a.question_index, **_answer_fields(a)} for a in reply.answers]
    if reply.cancelled:
        return _cancelled("the translator cancelled the questions", answers=answers)
    return {"success": True, "answers": answers}


QUESTION_TOOLS: tuple[Tool, ...] = (ask_user, ask_user_batch)


class _AnyArguments(BaseModel):
    model_config = ConfigDict(extra="allow")


def _skipped(_context: ToolContext) -> Result:
    return _cancelled(SKIPPED, skipped=True)


SKIPPED_QUESTION_TOOLS: tuple[Tool, ...] = tuple(
    Tool(t.name, t.description, _AnyArguments, _skipped, ToolContext) for t in QUESTION_TOOLS
)


def _question(text: str, suggestions: tuple[str, ...], free_text: bool) -> Question:
    cleaned = tuple(dict.fromkeys(s.strip() for s in suggestions if s.strip()))
    if not cleaned and not free_text:
        raise ToolError(
            "INVALID_PARAMETER",
            "a question with no suggested_answers must allow_free_text, or it cannot be answered",
        )
    return Question(text.strip(), cleaned, free_text)


async def _ask(context: ToolContext, request: QuestionRequest) -> QuestionReply | Result:
    try:
        reply = await context.broker.ask(request)
    except NoFrontEndError as exc:
        return {"success": False, "error": str(exc), "error_code": "NO_FRONT_END"}
    assert isinstance(reply, QuestionReply)
    return reply


def _answer_fields(answer: Answer) -> dict[str, Any]:
    fields: dict[str, Any] = {"answer": answer.answer}
    if answer.selected_index is not None:
        fields["selected_index"] = answer.selected_index
    return fields


def _cancelled(error: str, **details: Any) -> Result:
    return {"success": False, "cancelled": True, "error": error, **details}


def question_summary(
    name: str, arguments: Mapping[str, Any], result: Mapping[str, Any]
) -> dict[str, Any]:
    """A question and its outcome, short enough for a log line or a chat summary."""
    asked = arguments.get("questions") or [arguments]
    questions = [_short(str(q.get("question", ""))) for q in asked if isinstance(q, Mapping)]
    if result.get("success"):
        answers = result.get("answers") or [result]
        return {
            "tool": name,
            "questions": questions,
            "outcome": "answered",
            "answers": [_short(str(a.get("answer", ""))) for a in answers],
        }
    outcome = (
        "skipped"
        if result.get("skipped")
        else ("cancelled" if result.get("cancelled") else "error")
    )
    summary = {"tool": name, "questions": questions, "outcome": outcome}
    if result.get("answers"):
        summary["answers"] = [_short(str(a.get("answer", ""))) for a in result["answers"]]
    if outcome == "error":
        summary["error"] = _short(str(result.get("error", "")))
    return summary


def _short(text: str) -> str:
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"
