"""Why a part of a job did not get done, or why a whole job stopped: one definition each, the
same words in every front end.

A part fails for its own reason (the provider's filter, the model's refusal, a workflow it
could not finish, a context window too small, a server that could not keep pace, a reply that
went round in a loop, a fallback model that could not start): a smaller part, or another
model, may get past it. A job stops at once
for a reason every part would meet (a refused key, a missing model, the spending cap).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from honyaku.errors import (
    AuthError,
    ContentFilteredError,
    ContextOverflowError,
    DegenerateReplyError,
    FatalProviderError,
    HonyakuError,
    LoopError,
    ModelUnavailableError,
    RefusedInWordsError,
    SpendingCapReached,
    TransientProviderError,
)


class FailureClass(StrEnum):
    FILTERED = "filtered"
    REFUSED = "refused"
    WORKFLOW = "workflow"
    CONTEXT = "context"
    PACE = "pace"
    LOOP = "loop"
    KEY = "key"
    MODEL = "model"
    CAP = "cap"
    SERVER = "server"
    FALLBACK = "fallback"

    @property
    def words(self) -> str:
        return FAILURE_WORDS[self]

    @property
    def is_job_wide(self) -> bool:
        """Every part would meet it: the job stops, and nothing is tried again."""
        return self in JOB_WIDE


FAILURE_WORDS = {
    FailureClass.FILTERED: "refused by the provider's filter",
    FailureClass.REFUSED: "refused by the model in words",
    FailureClass.WORKFLOW: "the model could not finish the workflow",
    FailureClass.CONTEXT: "too long for the model's context window",
    FailureClass.PACE: "the server did not keep pace",
    FailureClass.LOOP: "the model's reply went round in a loop",
    FailureClass.KEY: "the API key was refused",
    FailureClass.MODEL: "the model is not there",
    FailureClass.CAP: "the spending cap was reached",
    FailureClass.SERVER: "the model's server refused the work",
    FailureClass.FALLBACK: "the fallback model could not start",
}
JOB_WIDE = frozenset({FailureClass.KEY, FailureClass.MODEL, FailureClass.CAP, FailureClass.SERVER})


@dataclass(frozen=True, slots=True)
class Failure:
    kind: FailureClass
    detail: str
    """What the model or its server said, in its own words."""

    @property
    def said(self) -> str:
        """What only this failure says: its detail without its class's words, which a front
        end shows in the reader's language."""
        if not self.detail.startswith(self.kind.words):
            return self.detail
        return self.detail.removeprefix(self.kind.words).strip(" :()")

    def __str__(self) -> str:
        if self.detail.startswith(self.kind.words):  # an error that names its class itself
            return self.detail
        return f"{self.kind.words}: {self.detail}" if self.detail else self.kind.words


def failure_of(error: HonyakuError) -> Failure:
    """The failure an error is, with the error's own line as its detail."""
    return Failure(_class_of(error), str(error))


def _class_of(error: HonyakuError) -> FailureClass:
    match error:
        case ContentFilteredError():
            return FailureClass.FILTERED
        case RefusedInWordsError():
            return FailureClass.REFUSED
        case LoopError():
            return FailureClass.WORKFLOW
        case ContextOverflowError():
            return FailureClass.CONTEXT
        case DegenerateReplyError():
            return FailureClass.LOOP
        case TransientProviderError():
            return FailureClass.PACE
        case AuthError():
            return FailureClass.KEY
        case ModelUnavailableError():
            return FailureClass.MODEL
        case SpendingCapReached():
            return FailureClass.CAP
        case FatalProviderError() if error.status_code == 404:
            return FailureClass.MODEL
        case _:
            return FailureClass.SERVER


@dataclass(frozen=True, slots=True)
class Unfinished:
    """Why a job did not do a paragraph, or a chapter's title, it was to do: it failed at
    it, or it was not tried, and why (the job was stopped, another process has it…)."""

    failure: Failure | None
    not_tried: str | None = None
    """Why it was not tried, where it was not."""
    model: str | None = None
    """The model that left it, where one tried it."""

    @property
    def reason(self) -> str:
        if self.failure is not None:
            return str(self.failure)
        return f"not tried: {self.not_tried}" if self.not_tried else NOT_TRANSLATED_YET


NOT_TRANSLATED_YET = "not translated yet"


@dataclass(frozen=True, slots=True)
class Left:
    """A paragraph, or a chapter's title, not translated yet, and why."""

    chapter: int
    """The chapter's number, from 1."""
    position: int | None
    """The paragraph's position in its chapter, from 1; ``None`` for the chapter's title."""
    id: str
    """The paragraph's id, or the chapter's for its title."""
    why: Unfinished | None
    """Why a job left it; ``None`` where no job was to do it."""
    text: str = ""
    """Its source text, where the one who lists it has it at hand."""

    @property
    def failure(self) -> Failure | None:
        return self.why.failure if self.why else None

    @property
    def reason(self) -> str:
        return self.why.reason if self.why else NOT_TRANSLATED_YET


@dataclass(frozen=True, slots=True)
class Coverage:
    """How much of a book, or of a job's share of it, is translated."""

    paragraphs_done: int
    paragraphs: int
    titles_done: int = 0
    titles: int = 0

    @property
    def whole(self) -> bool:
        return self.paragraphs_done == self.paragraphs and self.titles_done == self.titles

    def __str__(self) -> str:
        line = f"{self.paragraphs_done} of {self.paragraphs} paragraphs"
        if self.titles:
            line += f" and {self.titles_done} of {self.titles} chapter titles"
        return line
