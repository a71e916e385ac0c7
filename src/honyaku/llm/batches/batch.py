"""What every Batch API client takes and gives: neutral requests with the caller's custom ids,
a handle that finds the batch again from any process, its status, and each line's result as
the same ``Response`` a streamed reply folds into.

A handle and a status are plain data (``record`` / ``from_record``, JSON all through), so a
job can keep them in its database and any later process can poll and fetch the batch.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from honyaku.errors import ConfigError, ProviderError, TransientProviderError
from honyaku.llm.events import Response, Usage
from honyaku.llm.messages import ChatRequest

CUSTOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The custom ids every provider takes (Anthropic's rule, the strictest)."""


@dataclass(frozen=True, slots=True)
class BatchRequest:
    """One request of a batch: the same ``ChatRequest`` a streaming provider takes."""

    custom_id: str
    """The caller's id for this line, unique in the batch (``CUSTOM_ID``)."""
    request: ChatRequest
    conversation: str = ""
    """The caller's key for the conversation the request carries on, kept in the handle."""


class BatchState(StrEnum):
    IN_PROGRESS = "in_progress"
    """Taken, being validated or answered."""
    CANCELING = "canceling"
    ENDED = "ended"
    """Every line answered, failed, expired or cancelled: the results can be fetched."""
    FAILED = "failed"
    """The provider refused the batch as a whole (its input file, say): no line was answered."""


@dataclass(frozen=True, slots=True)
class BatchCounts:
    total: int
    succeeded: int = 0
    errored: int = 0
    expired: int = 0
    canceled: int = 0

    @property
    def processing(self) -> int:
        return max(0, self.total - self.succeeded - self.errored - self.expired - self.canceled)


@dataclass(frozen=True, slots=True)
class BatchLine:
    custom_id: str
    conversation: str = ""
    turn: int = 0
    """The request's turn (``ChatRequest.turn``): call ids made for its reply need it."""


@dataclass(frozen=True, slots=True)
class BatchHandle:
    """Everything needed to find a batch again and map its lines back: plain data."""

    provider: str
    """``openai``, ``anthropic`` or ``gemini``."""
    batch_id: str
    """The provider's id (``batch_…``, ``msgbatch_…``, ``batches/…``)."""
    model: str
    submitted_at: datetime
    lines: tuple[BatchLine, ...]
    input_file_id: str | None = None
    """The uploaded input file, where the provider takes one (OpenAI)."""

    @property
    def conversations(self) -> dict[str, str]:
        """Each custom id's conversation key."""
        return {line.custom_id: line.conversation for line in self.lines}

    def turn_of(self, custom_id: str) -> int:
        return next((line.turn for line in self.lines if line.custom_id == custom_id), 0)

    def record(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "batch_id": self.batch_id,
            "model": self.model,
            "submitted_at": self.submitted_at.isoformat(),
            "lines": [[line.custom_id, line.conversation, line.turn] for line in self.lines],
            "input_file_id": self.input_file_id,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> BatchHandle:
        return cls(
            record["provider"],
            record["batch_id"],
            record["model"],
            datetime.fromisoformat(record["submitted_at"]),
            tuple(BatchLine(*line) for line in record["lines"]),
            record.get("input_file_id"),
        )


@dataclass(frozen=True, slots=True)
class BatchStatus:
    state: BatchState
    counts: BatchCounts
    provider_state: str
    """The provider's own word (``validating``, ``finalizing``, ``JOB_STATE_RUNNING``…)."""

    @property
    def ended(self) -> bool:
        return self.state in (BatchState.ENDED, BatchState.FAILED)

    def record(self) -> dict[str, Any]:
        counts = self.counts
        return {
            "state": self.state.value,
            "provider_state": self.provider_state,
            "total": counts.total,
            "succeeded": counts.succeeded,
            "errored": counts.errored,
            "expired": counts.expired,
            "canceled": counts.canceled,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> BatchStatus:
        counts = BatchCounts(
            record["total"],
            record["succeeded"],
            record["errored"],
            record["expired"],
            record["canceled"],
        )
        return cls(BatchState(record["state"]), counts, record["provider_state"])


class LineState(StrEnum):
    SUCCEEDED = "succeeded"
    """Answered: ``response`` holds the reply (which may be cut, ``Response.cut``)."""
    ERRORED = "errored"
    """Not answered: ``error`` says why (a filter's refusal, a server error, a bad request)."""
    EXPIRED = "expired"
    """The batch's window closed before the line was answered."""
    CANCELED = "canceled"


@dataclass(frozen=True, slots=True)
class BatchResult:
    """One line of an ended batch, as a streamed reply would have ended."""

    custom_id: str
    state: LineState
    response: Response | None = None
    error: ProviderError | None = None
    usage: Usage | None = field(default=None, compare=False)
    """What the line was billed, where the provider said (a refused reply is billed too)."""

    @property
    def resend(self) -> bool:
        """Worth sending again in the next batch: not answered for no fault of its own."""
        if self.state in (LineState.EXPIRED, LineState.CANCELED):
            return True
        return isinstance(self.error, TransientProviderError)


class BatchClient(Protocol):
    """One provider's Batch API: submit, poll, fetch the results, cancel."""

    provider: str
    max_requests: int
    """The most requests one batch may hold."""

    async def submit(self, requests: Sequence[BatchRequest]) -> BatchHandle: ...

    async def poll(self, handle: BatchHandle) -> BatchStatus: ...

    async def results(self, handle: BatchHandle) -> list[BatchResult]:
        """Every line of an ended batch, in no promised order: map them by ``custom_id``."""
        ...

    async def cancel(self, handle: BatchHandle) -> BatchStatus: ...

    async def aclose(self) -> None: ...


def checked_lines(requests: Sequence[BatchRequest], most: int) -> tuple[BatchLine, ...]:
    """The handle's lines for ``requests``, refused in one line if the batch cannot be sent."""
    if not requests:
        raise ConfigError("a batch needs at least one request")
    if len(requests) > most:
        raise ConfigError(f"a batch holds at most {most:,} requests, not {len(requests):,}")
    seen: set[str] = set()
    for request in requests:
        if not CUSTOM_ID.fullmatch(request.custom_id):
            raise ConfigError(
                f"batch custom id {request.custom_id!r}: use 1 to 64 letters, digits, _ or -"
            )
        if request.custom_id in seen:
            raise ConfigError(f"batch custom id {request.custom_id!r} is given twice")
        seen.add(request.custom_id)
    return tuple(BatchLine(r.custom_id, r.conversation, r.request.turn) for r in requests)
