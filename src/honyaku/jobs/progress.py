"""A job's figures, folded from its events: the one definition every front end shows.

- paragraphs done: those the job found done when it started, and those accepted since;
  paragraphs another live job holds are left to it and counted apart, never as done;
- requests, retries and tokens: what the job has spent in all its runs, tokens as the
  provider reported them, else as honyaku estimated them (``JobCost``), in all and by the
  model of the chain that spent them (the one chosen, or a fallback);
- spent: each model's tokens at its own prices, where every model that spent has prices;
- elapsed and ETA: of the run being followed, from its pace so far;
- waiting: how long the request that has waited longest has been with the model, and how
  long the model's pace says it takes, so a slow local server is seen working.

The terminal's bar and summary, the web's pages and event stream, the assistant's
``job_progress``, the job's outcome and its action log all read these; a stored job not
running here gives the same figures (``JobProgress.of``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from honyaku.agent.loop import ToolFinished
from honyaku.domain.failures import Coverage, Failure, Left
from honyaku.domain.pricing import Prices
from honyaku.domain.workflow import JobKind
from honyaku.jobs.events import (
    ChunkEvent,
    ChunkFailure,
    ChunkFinished,
    ChunkTakenOver,
    ConversationEnded,
    JobEvent,
    JobFinished,
    JobStarted,
    ParagraphsBusy,
    ParagraphsDone,
    RoundStarted,
    Where,
)
from honyaku.llm.events import Response, Retry, Usage, Waiting
from honyaku.store.jobs import Job, JobCost, JobStatus

_BATCH_TOOL = "add_translation_batch"


def cost_of(usage: Usage) -> JobCost:
    """What one reply adds to a job's cost."""
    return JobCost(
        requests=1,
        input_chars=usage.input_chars,
        output_chars=usage.output_chars,
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cached_tokens=usage.cached_tokens or 0,
        reasoning_tokens=usage.reasoning_tokens or 0,
        estimated_input_tokens=usage.estimated_input_tokens,
        estimated_output_tokens=usage.estimated_output_tokens,
        cache_write_tokens=usage.cache_write_tokens or 0,
    )


class ModelCost(NamedTuple):
    """What an event adds to the cost of the model that spent it."""

    model: str
    cost: JobCost


def cost_change(event: JobEvent) -> ModelCost | None:
    """What an event adds to a model's cost on the job, if anything: a reply (and whether it
    carried a batch), a retry, the paragraphs a batch saved, a conversation that ended (how
    the model works through a part)."""
    match event:
        case ChunkEvent(model=model, event=Response(usage=usage, message=message)):
            batch = any(call.name == _BATCH_TOOL for call in message.tool_calls)
            return ModelCost(model, cost_of(usage) + JobCost(batch_replies=int(batch)))
        case ChunkEvent(model=model, event=Retry()):
            return ModelCost(model, JobCost(retries=1))
        case ChunkEvent(model=model, event=ToolFinished(call=call, result=result)):
            if call.name == _BATCH_TOOL and result.get("success"):
                accepted = int(result.get("accepted", 0))
                return ModelCost(model, JobCost(batched_paragraphs=accepted))
        case ConversationEnded(model=model, paragraphs=paragraphs):
            return ModelCost(model, JobCost(conversations=1, conversation_paragraphs=paragraphs))
    return None


def add_cost(costs: dict[str, JobCost], change: ModelCost) -> None:
    """Add ``change`` to ``costs`` (by model)."""
    costs[change.model] = costs.get(change.model, JobCost()) + change.cost


@dataclass
class JobProgress:
    job_id: str
    book_id: str
    kind: JobKind
    model: str
    status: JobStatus
    paragraphs_total: int
    paragraphs_done: int
    paragraphs_busy: int = 0
    cost: JobCost = field(default_factory=JobCost)
    """What every model of the job spent."""
    costs: dict[str, JobCost] = field(default_factory=dict)
    """What each model spent, by its name: the one chosen, and fallbacks that took parts."""
    prices: dict[str, Prices | None] = field(default_factory=dict)
    """Each model's prices, by its name."""
    failures: list[ChunkFailure] = field(default_factory=list)
    """The parts that failed and are not being tried again."""
    rounds: int = 1
    """The furthest round a chapter of the run has gone to (1: its first pass)."""
    left: list[Left] = field(default_factory=list)
    """Once the job has ended: each paragraph and chapter title it left, with why."""
    coverage: Coverage | None = None
    """Once the job has ended: how much of its share of the book is translated."""
    error: str | None = None
    running_here: bool = False
    """A run in this process is following the job's events."""
    workers: tuple[str, ...] = ()
    """The processes holding its chunks now, as stored (workers, other terminals)."""
    _started: float | None = None
    _done_at_start: int = 0
    _waiting: dict[Where, tuple[float, float | None]] = field(default_factory=dict)
    """Each chunk's request with the model: when it went, and how long it should take."""

    @classmethod
    def of(
        cls,
        job: Job,
        total: int,
        done: int,
        prices: Mapping[str, Prices | None] | None = None,
    ) -> JobProgress:
        """A stored job, as nothing here runs it; ``prices`` by model, where known."""
        return cls(
            job.id,
            job.book_id,
            job.kind,
            job.model,
            job.shown_status,
            total,
            done,
            cost=job.cost,
            costs=dict(job.costs),
            prices=dict(prices or {}),
            error=job.error,
        )

    @classmethod
    def starting(cls, started: JobStarted) -> JobProgress:
        """A run that has just opened its job, followed from here on."""
        progress = cls.of(
            started.job, started.paragraphs_total, started.paragraphs_done, started.prices
        )
        progress.status = JobStatus.RUNNING
        progress.error = None
        progress.running_here = True
        progress._started = time.monotonic()
        progress._done_at_start = started.paragraphs_done
        return progress

    def follow(self, event: JobEvent) -> bool:
        """Take in an event; ``True`` if the job's log grew with it."""
        self._follow_wait(event)
        if change := cost_change(event):
            self.cost += change.cost
            add_cost(self.costs, change)
            return change.cost.requests > 0
        match event:
            case ParagraphsDone(count=count):
                self.paragraphs_done += count
            case ParagraphsBusy(paragraph_ids=ids):
                self.paragraphs_busy += len(ids)
                return True
            case ChunkFinished(where=where, failure=Failure() as failure):
                self.failures.append(ChunkFailure(where, failure))
                return True
            case RoundStarted(retried=retried, round=round_):
                self.failures = [f for f in self.failures if f.where not in retried]
                self.rounds = max(self.rounds, round_)
                return True
            case JobFinished(outcome=outcome):
                self.end(outcome.job.status, outcome.job.error)
                self.left, self.coverage = outcome.left, outcome.coverage
                return True
        return False

    def _follow_wait(self, event: JobEvent) -> None:
        match event:
            case ChunkEvent(where=where, event=Waiting(expected_s=expected_s)):
                self._waiting[where] = (time.monotonic(), expected_s)
            case (
                ChunkEvent(where=where, event=Response() | Retry())
                | ChunkFinished(where=where)
                | ChunkTakenOver(where=where)
            ):
                self._waiting.pop(where, None)

    @property
    def waiting(self) -> tuple[float, float | None] | None:
        """The request with the model longest: seconds it has waited, and seconds its pace
        says it takes (``None`` before the model's pace is known); ``None`` if none waits."""
        if not self._waiting or not self.running_here:
            return None
        sent, expected_s = min(self._waiting.values(), key=lambda wait: wait[0])
        return time.monotonic() - sent, expected_s

    def end(self, status: JobStatus, error: str | None = None) -> None:
        self.status = status
        self.error = error
        self.running_here = False

    @property
    def tokens(self) -> int:
        return self.cost.tokens

    @property
    def spent(self) -> float | None:
        """What the job's tokens cost, each model's at its prices; ``None`` when a model
        that spent has none."""
        spent = [self.spent_by(model) for model in self.costs]
        if not spent and self.prices:
            return 0.0
        return None if None in spent or not spent else sum(s for s in spent if s is not None)

    def spent_by(self, model: str) -> float | None:
        """What ``model``'s tokens on the job cost at its prices; ``None`` without prices."""
        prices = self.prices.get(model)
        return None if prices is None else self.costs.get(model, JobCost()).price(prices)

    def model_figures(self) -> list[dict[str, Any]]:
        """What each model spent, for front ends that show a line per model."""
        return [
            {
                "model": model,
                "requests": cost.requests,
                "input_tokens": cost.billed_input_tokens,
                "cached_tokens": cost.cached_tokens,
                "output_tokens": cost.billed_output_tokens,
                "spent": self.spent_by(model),
            }
            for model, cost in self.costs.items()
        ]

    @property
    def elapsed_s(self) -> float | None:
        """How long the run followed here has run; ``None`` for a job not running here."""
        return None if self._started is None else time.monotonic() - self._started

    @property
    def eta_s(self) -> float | None:
        """When the run should end at its pace so far; ``None`` until it has a pace."""
        done = self.paragraphs_done - self._done_at_start
        elapsed = self.elapsed_s
        if not self.running_here or elapsed is None or done <= 0:
            return None
        left = self.paragraphs_total - self.paragraphs_done - self.paragraphs_busy
        return max(left, 0) * elapsed / done

    def failure_figures(self) -> list[dict[str, Any]]:
        return [
            {
                "chapter": f.where.chapter,
                "part": f.where.chunk,
                "failure": f.failure.kind.value,
                "said": f.failure.said,
                "reason": f.reason,
            }
            for f in self.failures
        ]

    def figures(self) -> dict[str, Any]:
        """Every figure, as the web's JSON and the assistant's results carry them."""
        cost = self.cost
        waited_s, expected_s = self.waiting or (None, None)
        return {
            "id": self.job_id,
            "book_id": self.book_id,
            "kind": self.kind.value,
            "model": self.model,
            "status": self.status.value,
            "paragraphs_total": self.paragraphs_total,
            "paragraphs_done": self.paragraphs_done,
            "paragraphs_busy": self.paragraphs_busy,
            "requests": cost.requests,
            "retries": cost.retries,
            "input_tokens": cost.billed_input_tokens,
            "cached_tokens": cost.cached_tokens,
            "output_tokens": cost.billed_output_tokens,
            "tokens": self.tokens,
            "tokens_estimated": cost.tokens_estimated,
            "spent": self.spent,
            "models": self.model_figures(),
            "elapsed_s": self.elapsed_s,
            "eta_s": self.eta_s,
            "waiting_s": waited_s,
            "waiting_expected_s": expected_s,
            "failures": self.failure_figures(),
            "rounds": self.rounds,
            "left": [
                {
                    "chapter": item.chapter,
                    "position": item.position,
                    "id": item.id,
                    "failure": item.failure.kind.value if item.failure else None,
                    "said": item.failure.said if item.failure else "",
                    "reason": item.reason,
                }
                for item in self.left
            ],
            "coverage": asdict(self.coverage) if self.coverage else None,
            "running_here": self.running_here,
            "workers": list(self.workers),
            "error": self.error,
        }
