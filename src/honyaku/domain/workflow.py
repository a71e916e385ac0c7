"""The task workflow of seed 000: which status moves each job kind allows."""

from __future__ import annotations

from enum import StrEnum


class JobKind(StrEnum):
    TRANSLATION = "translation"
    POLISH = "polish"
    PROOFREADING = "proofreading"


class TaskStatus(StrEnum):
    PLANNING = "planning"
    WORKING = "working"
    REVIEW = "review"
    END = "end"


_S = TaskStatus
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
}


def allowed_moves(kind: JobKind, current: TaskStatus) -> list[TaskStatus]:
    """The statuses ``current`` may move to, in the table's order."""
    return sorted(TRANSITIONS[kind][current], key=list(TaskStatus).index)


def is_allowed(kind: JobKind, current: TaskStatus, target: TaskStatus) -> bool:
    return target in TRANSITIONS[kind][current]
