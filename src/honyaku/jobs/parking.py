"""Questions of queued jobs: asked of nobody at once, kept until a person answers.

A worker runs each chunk of a queued job with a front end of its own (``ParkingFrontEnd``).
Asked a question the first time, it parks the chunk (``QuestionParked``): the job's run keeps
the question with the conversation and the workflow (``store.questions``) and gives the chunk
back. Once someone answered (or the book's deadline passed), the worker that claims the chunk
takes the conversation back up: the same call runs again, and this time the front end hands
over the answer, or says that nobody gave one. Approvals are not parked: a worker has nobody
to approve a call, so such calls are refused, as anywhere without a person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from honyaku.agent.broker import (
    Answer,
    PersonReply,
    PersonRequest,
    QuestionParked,
    QuestionReply,
    QuestionRequest,
)
from honyaku.domain.book import Paragraph
from honyaku.domain.workflow import ChunkWorkflow, TaskStatus
from honyaku.errors import NoFrontEndError

NOBODY_ANSWERED = (
    "nobody answered within the time this book gives a question ({hours:g} h): decide "
    "yourself and go on; mention the doubt in your work if it matters."
)
NOBODY_TO_APPROVE = "nobody can approve calls of a queued job: its worker has no person at hand"


@dataclass
class ParkingFrontEnd:
    """One chunk's way to a person, in a worker."""

    reply: dict[str, Any] | None = None
    """The answer a parked question got (``reply_record``), to hand over once."""
    resumed: bool = False
    """The chunk's conversation was taken back up after its question was settled."""
    wait_s: float = 0.0

    async def ask(self, request: PersonRequest) -> PersonReply:
        if not isinstance(request, QuestionRequest):
            raise NoFrontEndError(NOBODY_TO_APPROVE)
        if not self.resumed:
            raise QuestionParked(request)
        self.resumed = False
        if self.reply is None:
            raise NoFrontEndError(NOBODY_ANSWERED.format(hours=self.wait_s / 3600))
        return reply_from_record(self.reply)


def reply_record(reply: QuestionReply) -> dict[str, Any]:
    return {
        "cancelled": reply.cancelled,
        "answers": [
            {
                "question_index": a.question_index,
                "answer": a.answer,
                "selected_index": a.selected_index,
            }
            for a in reply.answers
        ],
    }


def reply_from_record(record: dict[str, Any]) -> QuestionReply:
    answers = tuple(
        Answer(a["question_index"], a["answer"], a.get("selected_index")) for a in record["answers"]
    )
    return QuestionReply(answers, bool(record.get("cancelled")))


def workflow_record(workflow: ChunkWorkflow) -> dict[str, Any]:
    """Where a chunk's workflow stands, to take it back up in another process."""
    return {
        "assigned": list(workflow.assigned),
        "status": workflow.status.value,
        "accepted": sorted(workflow.accepted),
        "titles": list(workflow.titles),
        "titles_done": sorted(workflow.titles_done),
    }


def workflow_from_record(
    workflow: ChunkWorkflow, record: dict[str, Any], paragraphs: dict[str, Paragraph]
) -> ChunkWorkflow:
    """``workflow`` (made for the chunk now) as the parked one stood, over the paragraphs it
    was assigned then."""
    titles, titles_done = parked_titles(record, workflow.chapters[0])
    return ChunkWorkflow(
        workflow.kind,
        {pid: paragraphs[pid] for pid in record["assigned"] if pid in paragraphs},
        workflow.chapters,
        titles,
        status=TaskStatus(record["status"]),
        accepted=set(record["accepted"]),
        titles_done=titles_done,
    )


def parked_titles(record: dict[str, Any], chapter_id: str) -> tuple[tuple[str, ...], set[str]]:
    """The titles the parked workflow wanted and those it had; a conversation parked before
    a chunk could hold several chapters says whether its own title was wanted and done."""
    if "titles" in record:
        return tuple(record["titles"]), set(record["titles_done"])
    wanted = (chapter_id,) if record["needs_title"] else ()
    return wanted, set(wanted) if record["title_done"] else set()
