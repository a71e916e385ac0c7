"""What a running job reports to whoever shows its progress."""

from __future__ import annotations

from dataclasses import dataclass

from honyaku.llm.events import Usage
from honyaku.store.jobs import Job


@dataclass(frozen=True, slots=True)
class JobStarted:
    job: Job
    paragraphs_total: int
    paragraphs_done: int
    chunks: int
    resumed: bool


@dataclass(frozen=True, slots=True)
class ChunkStarted:
    chapter: int
    chunk: int
    paragraphs: int


@dataclass(frozen=True, slots=True)
class ParagraphsDone:
    count: int


@dataclass(frozen=True, slots=True)
class RequestFinished:
    chapter: int
    chunk: int
    usage: Usage


@dataclass(frozen=True, slots=True)
class RetryScheduled:
    chapter: int
    chunk: int
    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True, slots=True)
class ToolRan:
    chapter: int
    chunk: int
    name: str
    outcome: str


@dataclass(frozen=True, slots=True)
class ChunkFinished:
    chapter: int
    chunk: int
    error: str | None


JobEvent = (
    JobStarted
    | ChunkStarted
    | ParagraphsDone
    | RequestFinished
    | RetryScheduled
    | ToolRan
    | ChunkFinished
)
