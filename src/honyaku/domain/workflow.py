"""The task workflow: which status moves each job kind allows, and one chunk's way
through it.

``ChunkWorkflow`` never trusts the model: each move is checked against the table, and
translation may enter ``review`` only when every work paragraph (and the title of each
chapter the chunk begins) has been accepted, and a rating may end only when every paragraph
is rated. It holds no library and writes nothing: a tool checks with it, writes, then tells
it what was accepted.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from honyaku.domain.batch import BatchItem, BatchProblem, validate_batch
from honyaku.domain.book import Paragraph
from honyaku.domain.placeholders import MarkedText
from honyaku.domain.rating import RatingItem, validate_ratings
from honyaku.errors import ToolError


class JobKind(StrEnum):
    TRANSLATION = "translation"
    POLISH = "polish"
    PROOFREADING = "proofreading"
    EXTRACTION = "extraction"
    """Glossary extraction: the model reads chapters and proposes names and terms."""
    RATING = "rating"
    """The model (a judge) scores each paragraph's selected translation (``domain.rating``)."""


class TaskStatus(StrEnum):
    PLANNING = "planning"
    WORKING = "working"
    REVIEW = "review"
    END = "end"


_S = TaskStatus
_ORDER = list(TaskStatus)
TRANSITIONS: dict[JobKind, dict[TaskStatus, frozenset[TaskStatus]]] = {
    JobKind.TRANSLATION: {
        _S.PLANNING: frozenset({_S.WORKING}),
        _S.WORKING: frozenset({_S.REVIEW}),
        _S.REVIEW: frozenset({_S.WORKING, _S.END}),
        _S.END: frozenset(),
    },
    JobKind.POLISH: {
        _S.PLANNING: frozenset({_S.WORKING}),
        _S.WORKING: frozenset({_S.END}),
        _S.END: frozenset(),
    },
    JobKind.PROOFREADING: {
        _S.PLANNING: frozenset({_S.WORKING}),
        _S.WORKING: frozenset({_S.END}),
        _S.END: frozenset(),
    },
    JobKind.EXTRACTION: {
        _S.PLANNING: frozenset({_S.WORKING}),
        _S.WORKING: frozenset({_S.END}),
        _S.END: frozenset(),
    },
    JobKind.RATING: {
        _S.PLANNING: frozenset({_S.WORKING}),
        _S.WORKING: frozenset({_S.END}),
        _S.END: frozenset(),
    },
}

TOGETHER = "in one reply"
"""How a result invites the calls it names to be made together: each reply resends the whole
conversation, so calls that need not wait for a result should not wait for one."""
MAX_IDS_IN_MESSAGE = 20
MAX_IDS_IN_RESULT = 5
"""Where to go on, not the whole list: a result goes back in every later request."""
_LOOKS_LIKE_JSON = re.compile(r"[{\[]\s*\"")


def allowed_moves(kind: JobKind, current: TaskStatus) -> list[TaskStatus]:
    """The statuses ``current`` may move to, in the table's order."""
    return sorted(TRANSITIONS[kind][current], key=list(TaskStatus).index)


def is_allowed(kind: JobKind, current: TaskStatus, target: TaskStatus) -> bool:
    return target in TRANSITIONS[kind][current]


@dataclass
class ChunkWorkflow:
    """One chunk's status, what has been accepted, and whether the goal is reached."""

    kind: JobKind
    assigned: Mapping[str, Paragraph]
    """The chunk's work paragraphs by id, in chapter order."""
    chapters: tuple[str, ...]
    """The ids of the chapters the chunk holds: its own, then the short chapters that share
    its conversation."""
    titles: tuple[str, ...] = ()
    """Those whose title a translation must have accepted before review."""
    status: TaskStatus = TaskStatus.PLANNING
    accepted: set[str] = field(default_factory=set)
    titles_done: set[str] = field(default_factory=set)
    furthest: TaskStatus = TaskStatus.PLANNING
    """The furthest status reached: a move back to ``working`` to revise goes no further."""

    def progress(self) -> tuple[int, int, int]:
        """What the chunk has got done: paragraphs accepted, titles, the furthest status.
        Text sent again, a revision or a move back is no progress."""
        return len(self.accepted), len(self.titles_done), _ORDER.index(self.furthest)

    @property
    def missing_ids(self) -> list[str]:
        return [pid for pid in self.assigned if pid not in self.accepted]

    @property
    def missing_titles(self) -> list[str]:
        """The chapters whose title is wanted and not accepted yet."""
        return [chapter for chapter in self.titles if chapter not in self.titles_done]

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
        if self._needs_all_done(wanted) and (missing := self._what_is_missing()):
            raise ToolError("WORK_INCOMPLETE", f"cannot enter {wanted} yet: {missing}")
        self.status = wanted
        if _ORDER.index(wanted) > _ORDER.index(self.furthest):
            self.furthest = wanted
        return {"status": wanted.value, **self.next_step()}

    def _where_you_are(self) -> str:
        allowed = ", ".join(s.value for s in allowed_moves(self.kind, self.status)) or "none"
        return f"the current status is {self.status}; allowed next: {allowed}"

    def _needs_all_done(self, wanted: TaskStatus) -> bool:
        """A translation is reviewed, and a rating ends, only once every paragraph is done."""
        return wanted is TaskStatus.REVIEW or (
            wanted is TaskStatus.END and self.kind is JobKind.RATING
        )

    def _what_is_missing(self) -> str:
        parts = []
        if (missing := self.missing_ids) and self.kind is JobKind.RATING:
            parts.append(f"{len(missing)} paragraph(s) are not rated: {_ids(missing)}")
        elif missing:
            parts.append(f"{len(missing)} paragraph(s) have no accepted text: {_ids(missing)}")
        if self.kind is JobKind.TRANSLATION and (titles := self.missing_titles):
            parts.append(f"{_titles(titles)} not translated: call {_title_calls(titles)}")
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

    def check_batch(
        self,
        items: Sequence[BatchItem],
        in_book: Container[str] = frozenset(),
        markup: Mapping[str, MarkedText] | None = None,
    ) -> None:
        """Raise the batch's every problem at once; return only if it may be written whole.
        ``in_book``: the unassigned ids named that are the book's paragraphs (no hint for them);
        ``markup``: the work lines whose placeholders the texts must keep."""
        self.require_working("add_translation_batch")
        _refuse(validate_batch(items, self.assigned, in_book=in_book, markup=markup))

    def check_ratings(self, items: Sequence[RatingItem]) -> None:
        """Raise the call's every problem at once; return only if it may be written whole."""
        self.require_working("rate_paragraphs")
        _refuse(validate_ratings(items, self.assigned))

    def accept(
        self, paragraph_ids: Iterable[str], *, stored: Container[str] | None = None
    ) -> dict[str, Any]:
        """Take a saved batch; ``stored``: those of its paragraphs given a new version (by
        default all). The batch's result: how many paragraphs it ``accepted`` anew, those
        ``already_saved`` (accepted before and sent again with a text they hold, as by a
        model that lost track: nothing changed, no progress), what is left and what next."""
        ids = list(paragraph_ids)
        already = [
            pid for pid in ids if pid in self.accepted and stored is not None and pid not in stored
        ]
        self.accepted.update(ids)
        result: dict[str, Any] = {"accepted": len(ids) - len(already)}
        if already:
            result |= {
                "already_saved": len(already),
                "already_saved_ids": already[:MAX_IDS_IN_RESULT],
            }
        missing = self.missing_ids
        shown = {"remaining_ids": missing[:MAX_IDS_IN_RESULT]} if missing else {}
        return {**result, "remaining": len(missing), **shown, **self.next_step()}

    def check_title(self, chapter_id: str, translated_title: str) -> str:
        """The title to write, one clean line; raises if the call cannot be accepted."""
        self.require_working("update_chapter_title")
        if chapter_id not in self.chapters:
            shown = ", ".join(f'"{chapter}"' for chapter in self.chapters)
            raise ToolError(
                "CHAPTER_NOT_ASSIGNED",
                f"chapter {chapter_id} is not in this task; its chapter_id: {shown}",
            )
        title = translated_title.strip()
        if not title or "\n" in title:
            raise ToolError("BLANK_TEXT", "translated_title must be one non-empty line")
        return title

    def accept_title(self, chapter_id: str) -> dict[str, Any]:
        """Take a saved title; what next."""
        self.titles_done.add(chapter_id)
        return self.next_step()

    def next_step(self) -> dict[str, str]:
        """What the model should call next, in a few words, for a result to end with: a model
        told what comes next does not spend a reply asking, and one told that the title is
        still missing does not try ``review`` first. Calls that may go together are invited
        ``TOGETHER``: the title with a batch, ``review`` with ``end`` once nothing is left
        (after the last batch's result, whose warnings may ask for a fix first). Nothing once
        the task has ended."""
        match self.status:
            case TaskStatus.PLANNING:
                step = 'update_task_status("working")'
            case TaskStatus.WORKING if self.kind is JobKind.RATING:
                step = self._rating_step()
            case TaskStatus.WORKING if self.kind is not JobKind.TRANSLATION:
                step = 'add_translation_batch with your changes, then update_task_status("end")'
            case TaskStatus.WORKING if titles := self.missing_titles:
                return {"title_missing": ", ".join(titles), "next": self._translation_step()}
            case TaskStatus.WORKING:
                step = self._translation_step()
            case TaskStatus.REVIEW:
                step = 'update_task_status("end"), or "working" to revise'
            case _:
                return {}
        return {"next": step}

    def _rating_step(self) -> str:
        if missing := len(self.missing_ids):
            return f"rate_paragraphs with the {missing} paragraph(s) left"
        return 'update_task_status("end")'

    def _translation_step(self) -> str:
        title = _title_calls(self.missing_titles) if self.missing_titles else ""
        if missing := len(self.missing_ids):
            batch = f"add_translation_batch with the {missing} paragraph(s) left"
            return f"{batch}, and {title}, {TOGETHER}" if title else batch
        moves = 'update_task_status("review") and update_task_status("end")'
        return f"{title}, {moves}, {TOGETHER}" if title else f"{moves}, {TOGETHER}"

    # -- the loop's goal -------------------------------------------------------------------

    def is_reached(self) -> bool:
        return self.status is TaskStatus.END

    def nudge(self, reply_text: str) -> str:
        """What to tell a model that stopped calling tools before the end."""
        told = []
        if _LOOKS_LIKE_JSON.search(reply_text):
            told.append(
                "Do not print JSON or results as text: nothing printed is saved. Use the tools."
            )
        told.append(f"The task is not finished: {self._where_you_are()}.")
        whole = self.kind in (JobKind.TRANSLATION, JobKind.RATING)
        if whole and (missing := self._what_is_missing()):
            told.append(f"Still to do: {missing}.")
        told.append(f'Finish with the tools, then update_task_status("{TaskStatus.END}").')
        return " ".join(told)


def _refuse(problems: Sequence[BatchProblem]) -> None:
    """A call with ``problems`` saves nothing: the model is told each of them at once."""
    if problems:
        raise ToolError(
            problems[0].code,
            " ".join(p.message for p in problems) + " Nothing was saved; fix and resend.",
            problems=[
                {"paragraph_id": p.paragraph_id, "error_code": p.code}
                for p in problems
                if p.paragraph_id
            ],
        )


def _titles(chapters: list[str]) -> str:
    return "the chapter title is" if len(chapters) == 1 else f"{len(chapters)} chapter titles are"


def _title_calls(chapters: list[str]) -> str:
    shown = ", ".join(f'"{chapter}"' for chapter in chapters)
    return f"update_chapter_title with chapter_id {shown}" + (
        ", one call each" if len(chapters) > 1 else ""
    )


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:MAX_IDS_IN_MESSAGE])
    more = len(ids) - MAX_IDS_IN_MESSAGE
    return f"{shown} and {more} more" if more > 0 else shown
