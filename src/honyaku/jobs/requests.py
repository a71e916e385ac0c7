"""What a front end or the job queue asks the job engine for."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from honyaku.agent.loop import LoopLimits
from honyaku.domain.rounds import PACE_WAIT_S
from honyaku.domain.workflow import JobKind

CONCURRENCY = 4


@dataclass(frozen=True, slots=True, kw_only=True)
class JobRequest:
    book_id: str
    kind: JobKind
    chapters: list[int] | None = None
    """1-based chapter numbers; ``None`` for every chapter."""
    concurrency: int = CONCURRENCY
    """Chapters worked on at once."""
    retranslate: bool = False
    limits: LoopLimits = field(default_factory=LoopLimits)
    resume: str | None = None
    """The unfinished job to go on with; by default the one over the same scope, if any."""
    max_cost: float | None = None
    """What this run may spend at the model's prices; by default the book's ``max_cost``."""
    chunk_chars: int | None = None
    """Plan chunks of this size, not the one the model is best served by (a context window
    too small for it still makes them smaller)."""
    paragraphs: list[str] | None = None
    """Only these paragraphs (by id), in whichever chapters hold them; ``None`` for every
    work paragraph of the chapters."""
    pace_wait_s: float = PACE_WAIT_S
    """How long a round first waits for a server that did not keep pace (``domain.rounds``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChapterOrder:
    """One chapter of a queued job, as the job queue hands it to a worker."""

    job_id: str
    chapter: int
    """1-based chapter number."""
    stops: int
    """The job's stops when its work was queued: one more since, and the order is void."""
    run: str
    """The queued run the order belongs to: its spending is counted together."""
    max_cost: float | None = None


class ChapterEnd(StrEnum):
    """How a queued chapter's turn on a worker ended."""

    DONE = "done"
    """Its chunks ran, or one waits for a person."""
    BLOCKED = "blocked"
    """Another live process holds one of its chunks: to be tried again later."""
    GIVEN_BACK = "given back"
    """The worker is stopping: the chunk it ran is given back, to go on elsewhere."""
    STOPPED = "stopped"
    """The job was stopped, reached its cap, or failed."""
