"""What a running job tells whoever watches it: a stream of typed events.

The loop's events inside ``ChunkEvent`` (a reply, a retry, text, a tool's call and result)
are named here too, so a front end reads the whole stream from this one vocabulary.

A job's stream opens with ``JobStarted`` and closes with ``JobFinished``. In between, each
chunk's conversation reports ``ChunkStarted``, its loop's own events wrapped in ``ChunkEvent``
(``Waiting`` as each request goes, text and reasoning deltas, retries, responses with their
usage, tools started and finished, nudges), ``ParagraphsDone`` as batches are accepted, and
``ChunkFinished`` (with what it handed over, when its conversation did not fit the model's
context), ``ChunkTakenOver``, or in a queued job ``ChunkParked``; a conversation that ran to
its end says so once (``ConversationEnded``), whatever parts it held. When a chapter's parts have
failed, ``RoundStarted`` says they are tried again, smaller or by the next model. The
terminal's progress bar, the action log, cost accounting and the web app's SSE all consume
this stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from honyaku.agent.broker import QuestionRequest
from honyaku.agent.loop import LoopEvent, ToolFinished, ToolStarted
from honyaku.domain.failures import Coverage, Failure, Left
from honyaku.domain.pricing import Prices
from honyaku.domain.workflow import ChunkWorkflow
from honyaku.llm.events import ReasoningDelta, Response, Retry, TextDelta, Waiting
from honyaku.llm.messages import Message
from honyaku.store.chunks import PlannedChunk
from honyaku.store.jobs import Job

__all__ = [
    "ChunkEvent",
    "ChunkFailure",
    "ChunkFinished",
    "ChunkParked",
    "ChunkStarted",
    "ConversationEnded",
    "JobEvent",
    "JobFinished",
    "JobOutcome",
    "JobStarted",
    "LoopEvent",
    "ParagraphsBusy",
    "ParagraphsDone",
    "ReasoningDelta",
    "Response",
    "Retry",
    "RoundStarted",
    "TextDelta",
    "ToolFinished",
    "ToolStarted",
    "Waiting",
    "Where",
]


@dataclass(frozen=True, slots=True)
class Where:
    """Which chunk an event comes from."""

    chapter: int
    """1-based chapter number."""
    chunk: int
    """1-based among the chapter's chunks in the job's plan."""
    chapter_id: str

    @classmethod
    def of(cls, planned: PlannedChunk) -> Where:
        return cls(planned.chapter_number, planned.number, planned.chapter_id)


@dataclass(frozen=True, slots=True)
class ChunkFailure:
    """A part of the job that did not get done, and why."""

    where: Where
    failure: Failure

    @property
    def reason(self) -> str:
        return str(self.failure)


@dataclass(frozen=True, slots=True)
class JobOutcome:
    """How a job stands at the end of its run."""

    job: Job
    failures: list[ChunkFailure]
    paragraphs_total: int
    paragraphs_done: int
    busy: int = 0
    """Paragraphs left to another live job that was working on them."""
    running_elsewhere: int = 0
    """Chunks of this job that another process is still running."""
    left: list[Left] = field(default_factory=list)
    """Each paragraph and chapter title the parts that failed left, with why."""
    coverage: Coverage | None = None
    """How much of the job's share of the book is translated now."""
    prices: dict[str, Prices | None] = field(default_factory=dict)
    """The prices of each model of the run's chain, by name."""

    @property
    def ok(self) -> bool:
        return not self.failures

    def spent_by(self, model: str) -> float | None:
        """What ``model`` spent on the job, at its prices; ``None`` without them."""
        prices, cost = self.prices.get(model), self.job.costs.get(model)
        return None if prices is None or cost is None else cost.price(prices)

    @property
    def spent(self) -> float | None:
        """What the job spent, each model at its prices; ``None`` when one has none."""
        spent = [self.spent_by(model) for model in self.job.costs]
        return None if not spent or None in spent else sum(s for s in spent if s is not None)


@dataclass(frozen=True, slots=True)
class JobStarted:
    """A run opened its job: how much of it is done already, and what it has left."""

    job: Job
    paragraphs_total: int
    paragraphs_done: int
    chunks: int
    """Chunks left to run."""
    resumed: bool
    prices: dict[str, Prices | None] = field(default_factory=dict)
    """The prices of each model of the run's chain, by the name its costs are kept under."""


@dataclass(frozen=True, slots=True)
class ChunkStarted:
    """A chunk's conversation begins, with ``paragraphs`` to do."""

    where: Where
    paragraphs: int


@dataclass(frozen=True, slots=True)
class ChunkEvent:
    """Something the chunk's conversation did, with ``model``."""

    where: Where
    event: LoopEvent
    model: str
    """The model the conversation talks to: the one chosen, or a fallback."""


@dataclass(frozen=True, slots=True)
class ParagraphsDone:
    """``count`` more of the chunk's paragraphs are done: saved by its batches, done
    meanwhile elsewhere, or left as they were by proofreading."""

    where: Where
    count: int


@dataclass(frozen=True, slots=True)
class ParagraphsBusy:
    """A live chunk of another job holds these paragraphs: this job leaves them to it."""

    where: Where
    paragraph_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HandOver:
    """What a chunk gave back unfinished, to be planned again in chunks that fit: its request
    or its reply did not fit the model's context window."""

    paragraph_ids: tuple[str, ...]
    titles: tuple[str, ...]
    """The chapters (by id) whose title is not done either."""
    reason: str


@dataclass(frozen=True, slots=True)
class ChunkFinished:
    where: Where
    failure: Failure | None
    """Why the chunk failed; ``None`` when it reached its end, or handed its rest over."""
    handed_over: HandOver | None = None
    left: tuple[str, ...] = ()
    """What its conversation left undone: paragraph ids, and chapter ids for titles."""


@dataclass(frozen=True, slots=True)
class ConversationEnded:
    """A conversation ran to its end, done or failed (not handed over, not given back): how
    many replies a model takes for how many paragraphs is learned from these, one for each
    conversation, however many chapters' parts it held."""

    where: Where
    model: str
    paragraphs: int
    """The work paragraphs it was given."""


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A chapter's failed parts are tried again: split smaller, or by the next model."""

    chapter: int
    round: int
    """The chapter's first pass is round 1: this is 2 or more."""
    model: str
    """The model that tries them."""
    retried: tuple[Where, ...]
    """The parts that failed, tried again now."""
    parts: int
    """What they are tried as: halves of them, or themselves for another model."""


@dataclass(frozen=True, slots=True)
class ChunkTakenOver:
    """Another process took the chunk over (this one's heartbeat had stalled): this process
    wrote nothing more of it, and leaves the rest of its chapter to the new holder."""

    where: Where
    reason: str


@dataclass(frozen=True, slots=True)
class ChunkParked:
    """The model of a queued job asked the translator: the chunk waits for the answer, its
    conversation kept (``store.questions``), and its chapter waits with it."""

    where: Where
    request: QuestionRequest
    conversation: tuple[Message, ...]
    """The messages so far, the reply that asked last, its earlier calls answered."""
    workflow: ChunkWorkflow


@dataclass(frozen=True, slots=True)
class JobFinished:
    outcome: JobOutcome


JobEvent = (
    JobStarted
    | ChunkStarted
    | ChunkEvent
    | ParagraphsDone
    | ParagraphsBusy
    | ChunkFinished
    | ConversationEnded
    | RoundStarted
    | ChunkTakenOver
    | ChunkParked
    | JobFinished
)
