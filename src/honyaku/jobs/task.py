"""One chunk's task: its workflow status, what has been accepted, and when it is done.

``ChunkTask`` is the context every task tool works on and the goal the loop drives toward.
It never trusts the model: each move is checked against the seed-000 table, and translation
may enter ``review`` only when every work paragraph (and, on a chapter's first chunk, the
title) has been accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from honyaku.agent.broker import Broker
from honyaku.domain.batch import BatchItem, validate_batch
from honyaku.domain.book import Book, Paragraph, TranslationKind
from honyaku.domain.chunking import Chunk
from honyaku.domain.workflow import JobKind, TaskStatus, allowed_moves, is_allowed
from honyaku.errors import ToolError
from honyaku.llm.messages import AssistantMessage
from honyaku.store.library import Library

MAX_IDS_IN_MESSAGE = 20
_LOOKS_LIKE_JSON = re.compile(r"[{\[]\s*\"")


@dataclass
class ChunkTask:
    library: Library
    book: Book
    job_id: str
    kind: JobKind
    chunk: Chunk
    model: str
    broker: Broker = field(default_factory=Broker)
    status: TaskStatus = TaskStatus.PLANNING
    accepted: set[str] = field(default_factory=set)
    title_done: bool = False

    @property
    def asker(self) -> str:
        chapter = self.chunk.chapter
        return (
            f"{self.kind} of chapter {chapter.order} «{chapter.title}», chunk {self.chunk.number}"
        )

    @property
    def assigned(self) -> dict[str, Paragraph]:
        return {p.id: p for p in self.chunk.paragraphs}

    @property
    def missing_ids(self) -> list[str]:
        return [pid for pid in self.chunk.paragraph_ids if pid not in self.accepted]

    @property
    def needs_title(self) -> bool:
        return self.kind is JobKind.TRANSLATION and self.chunk.shows_title and not self.title_done

    # -- moves -----------------------------------------------------------------------------

    def move(self, target: str) -> dict[str, Any]:
        current = self.status
        try:
            wanted = TaskStatus(target)
        except ValueError:
            raise ToolError(
                "INVALID_STATUS", f"unknown status {target!r}; {self._where_you_are()}"
            ) from None
        if not is_allowed(self.kind, current, wanted):
            raise ToolError(
                "INVALID_TRANSITION",
                f"cannot move from {current} to {wanted}; {self._where_you_are()}",
                current_status=current.value,
                allowed_next=[s.value for s in allowed_moves(self.kind, current)],
            )
        if wanted is TaskStatus.REVIEW and (missing := self._what_is_missing()):
            raise ToolError("WORK_INCOMPLETE", f"cannot enter review yet: {missing}")
        self.status = wanted
        return {
            "status": wanted.value,
            "previous_status": current.value,
            "allowed_next": [s.value for s in allowed_moves(self.kind, wanted)],
        }

    def _where_you_are(self) -> str:
        allowed = ", ".join(s.value for s in allowed_moves(self.kind, self.status)) or "none"
        return f"the current status is {self.status}; allowed next: {allowed}"

    def _what_is_missing(self) -> str:
        parts = []
        if missing := self.missing_ids:
            parts.append(f"{len(missing)} paragraph(s) have no accepted text: {_ids(missing)}")
        if self.needs_title:
            parts.append(
                f"the chapter title is not translated: call update_chapter_title with "
                f'chapter_id "{self.chunk.chapter.id}"'
            )
        return "; ".join(parts)

    # -- submissions -----------------------------------------------------------------------

    def require_working(self, action: str) -> None:
        if self.status is not TaskStatus.WORKING:
            hint = (
                'move back with update_task_status("working") to revise'
                if self.status is TaskStatus.REVIEW
                else 'call update_task_status("working") first'
            )
            raise ToolError(
                "WRONG_STATUS",
                f"{action} is only allowed in working; the status is {self.status}: {hint}",
                current_status=self.status.value,
            )

    def accept_batch(self, items: list[BatchItem]) -> dict[str, Any]:
        self.require_working("add_translation_batch")
        if problems := validate_batch(items, self.assigned):
            raise ToolError(
                problems[0].code,
                " ".join(p.message for p in problems) + " Nothing was saved; fix and resend.",
                problems=[
                    {"paragraph_id": p.paragraph_id, "error_code": p.code}
                    for p in problems
                    if p.paragraph_id
                ],
            )
        texts = self._new_texts(items)
        if texts:
            self.library.add_translations(
                self.book.id,
                texts,
                kind=_VERSION_KIND[self.kind],
                model=self.model,
                job_id=self.job_id,
            )
        self.accepted.update(item.paragraph_id for item in items)
        missing = self.missing_ids
        return {
            "accepted": len(items),
            "remaining": len(missing),
            "remaining_ids": missing[:MAX_IDS_IN_MESSAGE],
        }

    def _new_texts(self, items: list[BatchItem]) -> dict[str, str]:
        """Texts worth a new version: polishing a paragraph into itself changes nothing."""
        assigned = self.assigned
        texts = {item.paragraph_id: item.translated_text.strip() for item in items}
        if self.kind is JobKind.TRANSLATION:
            return texts
        return {pid: text for pid, text in texts.items() if text != assigned[pid].translation}

    def set_title(self, chapter_id: str, translated_title: str) -> dict[str, Any]:
        self.require_working("update_chapter_title")
        if chapter_id != self.chunk.chapter.id:
            raise ToolError(
                "CHAPTER_NOT_ASSIGNED",
                f"chapter {chapter_id} is not this task's chapter; use chapter_id "
                f'"{self.chunk.chapter.id}"',
            )
        title = translated_title.strip()
        if not title or "\n" in title:
            raise ToolError("BLANK_TEXT", "translated_title must be one non-empty line")
        self.library.set_chapter_title(self.book.id, chapter_id, title)
        self.title_done = True
        return {"chapter_id": chapter_id, "translated_title": title}

    # -- the loop's goal -------------------------------------------------------------------

    def is_reached(self) -> bool:
        return self.status is TaskStatus.END

    def nudge(self, reply: AssistantMessage) -> str:
        told = []
        if _LOOKS_LIKE_JSON.search(reply.text):
            told.append(
                "Do not print JSON or results as text: nothing printed is saved. Use the tools."
            )
        told.append(f"The task is not finished: {self._where_you_are()}.")
        if self.kind is JobKind.TRANSLATION and (missing := self._what_is_missing()):
            told.append(f"Still to do: {missing}.")
        told.append(f'Finish with the tools, then update_task_status("{TaskStatus.END}").')
        return " ".join(told)


_VERSION_KIND = {
    JobKind.TRANSLATION: TranslationKind.TRANSLATION,
    JobKind.POLISH: TranslationKind.POLISH,
    JobKind.PROOFREADING: TranslationKind.PROOFREADING,
}


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:MAX_IDS_IN_MESSAGE])
    more = len(ids) - MAX_IDS_IN_MESSAGE
    return f"{shown} and {more} more" if more > 0 else shown
