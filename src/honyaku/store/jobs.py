"""Jobs, their running cost, and the actions of their conversations.

A job is opened inside an exclusive transaction: of several processes started at once over
the same scope, one creates the job and plans its chunks, and the others find it and join in,
claiming chunks of their own (``store.chunks``). Each process that runs a job renews the job's
lease; a stop asked while several run it reaches every one of them (``JobRow.stop_requests``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from honyaku.domain.chunking import describe_failed_parts
from honyaku.domain.failures import Unfinished
from honyaku.domain.pricing import Prices
from honyaku.domain.workflow import JobKind
from honyaku.errors import NotFoundError
from honyaku.store.chunks import (
    ENDED,
    ChunkStatus,
    PlannedChunk,
    add_chunks,
    failure_of_row,
    reopen_chunks,
)
from honyaku.store.database import Database
from honyaku.store.ids import fresh_id
from honyaku.store.leases import Lease, this_process
from honyaku.store.schema import (
    ActionRow,
    BookRow,
    ChapterRow,
    ChunkRow,
    JobModelCostRow,
    JobRow,
    ParagraphRow,
    RatingRow,
    TranslationRow,
    table_of,
    utc_now,
)


class JobStatus(StrEnum):
    QUEUED = "queued"
    """In the job queue: no worker has taken any of it yet."""
    RUNNING = "running"
    WAITING = "waiting"
    """Queued, with nothing left to run until a person answers its questions."""
    FINISHED = "finished"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


RESUMABLE = (
    JobStatus.QUEUED,
    JobStatus.RUNNING,
    JobStatus.WAITING,
    JobStatus.FAILED,
    JobStatus.INTERRUPTED,
)
ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.WAITING)
"""A job that some process runs, or will, or that waits for a person."""
STOPPED_AS_ASKED = "stopped"
"""The error of a job interrupted because someone asked it to stop (a front end tells it
apart from a cap reached or a process that ended)."""

Opened = Callable[[Session, "Job"], None]
"""What to do in the transaction that opens a job, once it is open (queue its work)."""


class ActionKind(StrEnum):
    """What an action records."""

    TEXT = "text"
    """What the model wrote besides its calls."""
    REASONING = "reasoning"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    QUESTION = "question"
    """A question to the translator and its outcome, in short."""
    NUDGE = "nudge"
    RETRY = "retry"
    SKIPPED = "skipped"
    """Paragraphs left to the live job that held them."""
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class JobCost:
    """What a job has spent so far; added to after every request."""

    requests: int = 0
    retries: int = 0
    input_chars: int = 0
    output_chars: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    """Of ``output_tokens``, those the model spent thinking, where the provider says."""
    estimated_input_tokens: int = 0
    """What honyaku estimated the same requests at (``domain.tokens``): set beside the tokens
    reported, the ratio refines the next estimate for the same model."""
    estimated_output_tokens: int = 0
    batch_replies: int = 0
    """Replies that carried an ``add_translation_batch`` call."""
    batched_paragraphs: int = 0
    """Paragraphs those batches saved."""
    conversations: int = 0
    """Conversations run to an end (done or failed, not handed over), however many chunks
    each held: how many replies a conversation takes is learned from them."""
    conversation_paragraphs: int = 0
    """The work paragraphs those conversations held."""
    cache_write_tokens: int = 0
    """Of ``input_tokens``, those written to an explicit prompt cache (Anthropic's)."""

    def __add__(self, other: JobCost) -> JobCost:
        return JobCost(
            *(a + b for a, b in zip(_cost_values(self), _cost_values(other), strict=True))
        )

    @property
    def tokens_estimated(self) -> bool:
        """The provider reported no tokens: the figures are honyaku's estimate."""
        return not (self.input_tokens or self.output_tokens) and bool(self.requests)

    @property
    def billed_input_tokens(self) -> int:
        """The input tokens a provider bills: those it reported, else honyaku's estimate."""
        return self.estimated_input_tokens if self.tokens_estimated else self.input_tokens

    @property
    def billed_output_tokens(self) -> int:
        return self.estimated_output_tokens if self.tokens_estimated else self.output_tokens

    @property
    def tokens(self) -> int:
        return self.billed_input_tokens + self.billed_output_tokens

    def price(self, prices: Prices) -> float:
        """What these tokens cost at ``prices``."""
        cached = min(self.cached_tokens, self.billed_input_tokens)
        written = min(self.cache_write_tokens, self.billed_input_tokens - cached)
        return prices.cost(
            self.billed_input_tokens - cached - written,
            cached,
            self.billed_output_tokens,
            written,
        )


def _cost_values(cost: JobCost) -> tuple[int, ...]:
    return tuple(getattr(cost, name) for name in JobCost.__slots__)


@dataclass(frozen=True, slots=True)
class ModelRecord:
    """What earlier jobs with one model did, for the next estimate to learn from."""

    jobs: int = 0
    requests: int = 0
    chunks: int = 0
    """Conversations it ran to an end in those jobs, done or failed: a conversation that
    short chapters shared counts once."""
    input_tokens: int = 0
    """Reported, by jobs whose provider reported tokens, beside what honyaku estimated."""
    estimated_input_tokens: int = 0
    output_tokens: int = 0
    estimated_output_tokens: int = 0
    chunk_paragraphs: int = 0
    """Work paragraphs in the conversations it ran to an end."""
    batch_replies: int = 0
    batched_paragraphs: int = 0
    written_chars: int = 0
    """Source characters of the paragraphs they wrote versions of."""


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    book_id: str
    kind: JobKind
    chapters: list[int] | None
    model: str
    protocol: str
    status: JobStatus
    error: str | None
    created_at: datetime
    cost: JobCost
    lease: Lease
    """The process that last opened it, and the last heartbeat of any process running it."""
    retranslate: bool = False
    stop_requests: int = 0
    """Stops asked so far; a run stops when the count grows past what it opened the job with."""
    paragraphs: list[str] | None = None
    """The paragraphs it works on, where it works on some only."""
    queued: bool = False
    """Run by workers from the job queue."""
    chunk_chars: int | None = None
    """The size its chunks waiting to run were last planned with."""
    finished_at: datetime | None = None
    """When it last ended, whatever its status."""
    costs: dict[str, JobCost] = field(default_factory=dict)
    """What each model of its chain spent (``cost`` is their sum), by the model's name."""

    @property
    def shown_status(self) -> JobStatus:
        """The status as a person should read it: a running job whose process died was
        interrupted, whatever the row still says; a queued one waits in the queue for a
        worker to take its work up again."""
        if self.status is JobStatus.RUNNING and not self.lease.is_live(utc_now()):
            return JobStatus.QUEUED if self.queued else JobStatus.INTERRUPTED
        return self.status


@dataclass(frozen=True, slots=True)
class Action:
    kind: ActionKind
    name: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    chapter_id: str | None = None
    chunk: int | None = None


@dataclass(frozen=True, slots=True)
class RecordedAction:
    job_id: str
    created_at: datetime
    action: Action
    chapter_number: int | None = None


@dataclass(frozen=True, slots=True)
class JobScope:
    """What a job works on; a job over the same scope is resumed rather than started anew."""

    book_id: str
    kind: JobKind
    chapters: list[int] | None
    retranslate: bool = False
    paragraphs: list[str] | None = None
    """Some paragraphs of those chapters only, by id; ``None`` for all of them."""


class JobStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def open(
        self,
        scope: JobScope,
        *,
        model: str,
        protocol: str,
        planned: Sequence[PlannedChunk],
        resume: str | None = None,
        queued: Opened | None = None,
        chunk_chars: int | None = None,
    ) -> tuple[Job, bool]:
        """The unfinished job over ``scope`` reopened (``True``), or a new one with the
        chunks ``planned`` (``False``) at ``chunk_chars``. A retranslation starts anew unless
        ``resume`` names the job to go on with. ``queued`` puts the job in the job queue, in
        the same transaction: it is ``QUEUED`` until a worker takes it."""
        status = JobStatus.QUEUED if queued else JobStatus.RUNNING
        with self.database.transaction(exclusive=True) as session:
            # The book's row is the lock where the database has row locks (PostgreSQL).
            session.execute(select(BookRow.id).where(BookRow.id == scope.book_id).with_for_update())
            if resume is not None:
                previous = session.get(JobRow, resume)
                if previous is None or previous.status not in RESUMABLE:
                    raise NotFoundError(f"no unfinished job {resume!r} to resume")
            else:
                previous = None if scope.retranslate else _resumable(session, scope)
            if previous is not None:
                _reopen(session, previous, status, model=model, protocol=protocol)
                if not session.scalar(select(ChunkRow.pk).where(ChunkRow.job_id == previous.id)):
                    add_chunks(session, previous.id, scope.book_id, planned)
                    previous.chunk_chars = chunk_chars
                reopen_chunks(session, previous.id)
                row, resumed = previous, True
            else:
                row, resumed = (
                    _new_job(session, scope, status, model=model, protocol=protocol),
                    False,
                )
                row.chunk_chars = chunk_chars
                add_chunks(session, row.id, scope.book_id, planned)
            row.queued = queued is not None
            job = _job(row)
            if queued is not None:
                queued(session, job)
            return job, resumed

    def join(self, job_id: str, stops_seen: int) -> Job | None:
        """Join a queued job as one more process running it; ``None`` if it has ended, or was
        stopped since its work was queued (its stops grew past ``stops_seen``): it is then
        marked stopped, as the process that ran its last chunk may have ended before it saw
        the stop."""
        with self.database.transaction() as session:
            row = session.scalars(
                select(JobRow).where(JobRow.id == job_id).with_for_update()
            ).first()
            if row is None or row.status not in ACTIVE:
                return None
            if row.stop_requests > stops_seen:
                # Its work was queued before the stop: the job is stopped, whoever saw it.
                _stop(row)
                return None
            row.status = JobStatus.RUNNING
            row.owner = this_process()
            row.heartbeat_at = utc_now()
            return replace(_job(row), stop_requests=stops_seen)

    def settle(self, job_id: str, stops_seen: int | None = None) -> JobStatus:
        """Once no process runs any of a queued job's chunks: finished (or failed) when every
        chunk has ended, waiting when the rest wait for a person; else running still, unless
        a stop came after ``stops_seen``. A stop asked while a worker's last chunk ran can be
        missed by its heartbeat, and the orders that would have seen it are withdrawn."""
        with self.database.transaction() as session:
            row = session.scalars(select(JobRow).where(JobRow.id == job_id).with_for_update()).one()
            chunks = session.scalars(
                select(ChunkRow)
                .where(ChunkRow.job_id == job_id)
                .order_by(ChunkRow.chapter_number, ChunkRow.number)
            ).all()
            statuses = {c.status for c in chunks}
            if row.status not in ACTIVE:
                return JobStatus(row.status)
            if statuses <= set(ENDED):
                failed = [c for c in chunks if c.status == "failed"]
                row.status = JobStatus.FAILED if failed else JobStatus.FINISHED
                row.error = _failed_chunks(failed)
                row.finished_at = utc_now()
            elif stops_seen is not None and row.stop_requests > stops_seen:
                _stop(row)
            elif statuses <= {*ENDED, "waiting"}:
                row.status = JobStatus.WAITING
            return JobStatus(row.status)

    def get(self, job_id: str) -> Job:
        with self.database.transaction() as session:
            row = session.get(JobRow, job_id)
            if row is None:
                raise NotFoundError("no job with id {job_id!r}", job_id=job_id)
            return _job(row, _costs(session, [job_id]).get(job_id, []))

    def for_book(self, book_id: str) -> list[Job]:
        with self.database.transaction() as session:
            rows = list(
                session.scalars(
                    select(JobRow).where(JobRow.book_id == book_id).order_by(JobRow.created_at)
                )
            )
            costs = _costs(session, [row.id for row in rows])
            return [_job(row, costs.get(row.id, [])) for row in rows]

    def finish(self, job_id: str, status: JobStatus, error: str | None = None) -> None:
        """Record how the job ended; a stop asked meanwhile still reaches every process."""
        with self.database.transaction() as session:
            session.execute(
                update(JobRow)
                .where(JobRow.id == job_id)
                .values(status=status, error=error, finished_at=utc_now())
            )

    def planned_with(self, job_id: str, chunk_chars: int) -> None:
        """Note the size the job's chunks waiting to run are now planned with."""
        with self.database.transaction() as session:
            session.execute(
                update(JobRow).where(JobRow.id == job_id).values(chunk_chars=chunk_chars)
            )

    def request_stop(self, job_id: str) -> None:
        """Ask every process running the job to stop; each looks at its next heartbeat."""
        with self.database.transaction() as session:
            session.execute(
                update(JobRow)
                .where(JobRow.id == job_id)
                .values(stop_requests=JobRow.stop_requests + 1)
            )

    def record(self, job_id: str, actions: Sequence[Action], costs: Mapping[str, JobCost]) -> None:
        """Add actions, and what each model spent (by its name), in one transaction."""
        with self.database.transaction() as session:
            if actions:
                now = utc_now()
                session.execute(
                    insert(table_of(ActionRow)),
                    [
                        {
                            "job_id": job_id,
                            "chapter_id": a.chapter_id,
                            "chunk": a.chunk,
                            "kind": a.kind.value,
                            "name": a.name,
                            "payload": a.payload,
                            "created_at": now,
                        }
                        for a in actions
                    ],
                )
            for model, cost in costs.items():
                _add_cost(session, job_id, model, cost)

    def actions(
        self, book_id: str, *, kinds: Sequence[ActionKind] | None = None
    ) -> list[RecordedAction]:
        with self.database.transaction() as session:
            query = (
                select(ActionRow, ChapterRow.position)
                .join(JobRow, JobRow.id == ActionRow.job_id)
                .outerjoin(
                    ChapterRow,
                    (ChapterRow.book_id == JobRow.book_id)
                    & (ChapterRow.id == ActionRow.chapter_id),
                )
                .where(JobRow.book_id == book_id)
                .order_by(ActionRow.pk)
            )
            if kinds is not None:
                query = query.where(ActionRow.kind.in_([kind.value for kind in kinds]))
            return [
                RecordedAction(
                    row.job_id,
                    row.created_at,
                    Action(ActionKind(row.kind), row.name, row.payload, row.chapter_id, row.chunk),
                    None if position is None else position + 1,
                )
                for row, position in session.execute(query)
            ]

    def rejected_calls(self, job_id: str) -> dict[str, int]:
        """How many of the job's tool calls were refused, by error code."""
        with self.database.transaction() as session:
            payloads = session.scalars(
                select(ActionRow.payload).where(
                    ActionRow.job_id == job_id, ActionRow.kind == ActionKind.TOOL_RESULT.value
                )
            ).all()
        codes = Counter(
            str(payload.get("error_code"))
            for payload in payloads
            if payload.get("success") is False
        )
        return dict(sorted(codes.items()))

    def unfinished(self, book_id: str, job_id: str | None = None) -> dict[str, Unfinished]:
        """Why the book's jobs (or the job ``job_id``) did not do what they were to do: for
        each paragraph id, and each chapter id for its title, the latest part holding it
        that has not ended done: failed, with its failure; or not tried, with why."""
        query = (
            select(ChunkRow, JobRow)
            .join(JobRow, JobRow.id == ChunkRow.job_id)
            .where(ChunkRow.book_id == book_id, ChunkRow.status != ChunkStatus.DONE)
            .order_by(ChunkRow.pk)
        )
        if job_id is not None:
            query = query.where(ChunkRow.job_id == job_id)
        found: dict[str, Unfinished] = {}
        now = utc_now()
        with self.database.transaction() as session:
            for chunk, job in session.execute(query):
                why = Unfinished(failure_of_row(chunk), _not_tried(chunk, job, now), chunk.model)
                found.update(dict.fromkeys(chunk.paragraph_ids, why))
                if chunk.shows_title:
                    found[chunk.chapter_id] = why
        return found

    def model_record(self, model: str, kind: JobKind | None = None) -> ModelRecord:
        """What ``model`` asked and was billed in the jobs (of ``kind``, if given) it worked
        on, as the one chosen or as a fallback: what it spent and wrote there, never what the
        other models of their chains did."""
        query = (
            select(JobModelCostRow)
            .join(JobRow, JobRow.id == JobModelCostRow.job_id)
            .where(JobModelCostRow.model == model, JobModelCostRow.requests > 0)
        )
        if kind is not None:
            query = query.where(JobRow.kind == kind.value)
        with self.database.transaction() as session:
            rows = list(session.scalars(query))
            written = session.scalar(
                select(func.sum(func.length(ParagraphRow.text)))
                .join(TranslationRow, TranslationRow.paragraph_pk == ParagraphRow.pk)
                .where(
                    TranslationRow.job_id.in_([row.job_id for row in rows]),
                    TranslationRow.model == model,
                )
            )
        reported = [r for r in rows if r.input_tokens and r.estimated_input_tokens]
        return ModelRecord(
            len(rows),
            sum(r.requests for r in rows),
            sum(r.conversations for r in rows),
            sum(r.input_tokens for r in reported),
            sum(r.estimated_input_tokens for r in reported),
            sum(r.output_tokens for r in reported),
            sum(r.estimated_output_tokens for r in reported),
            sum(r.conversation_paragraphs for r in rows),
            sum(r.batch_replies for r in rows),
            sum(r.batched_paragraphs for r in rows),
            written or 0,
        )

    def paragraphs_done(self, job_id: str, among: Collection[str] | None = None) -> set[str]:
        """Ids of the paragraphs (``among`` these, if given) this job is done with: those it
        wrote a version or a rating of, and every paragraph of its finished chunks. A text a
        paragraph already held writes no version (``Library.add_translations``), and a revision
        leaves right paragraphs alone: their chunk's end says they are done all the same."""
        written = (
            select(ParagraphRow.id)
            .join(TranslationRow, TranslationRow.paragraph_pk == ParagraphRow.pk)
            .where(TranslationRow.job_id == job_id)
        )
        rated = (
            select(ParagraphRow.id)
            .join(TranslationRow, TranslationRow.paragraph_pk == ParagraphRow.pk)
            .join(RatingRow, RatingRow.translation_pk == TranslationRow.pk)
            .where(RatingRow.job_id == job_id)
        )
        if among is not None:
            written = written.where(ParagraphRow.id.in_(list(among)))
            rated = rated.where(ParagraphRow.id.in_(list(among)))
        finished = select(ChunkRow.paragraph_ids).where(
            ChunkRow.job_id == job_id, ChunkRow.status == ChunkStatus.DONE.value
        )
        with self.database.transaction() as session:
            done = set(session.scalars(written)) | set(session.scalars(rated))
            done.update(pid for ids in session.scalars(finished) for pid in ids)
        return done if among is None else done & set(among)


def _resumable(session: Session, scope: JobScope) -> JobRow | None:
    """The latest job of this kind over the same chapters and paragraphs, if it is unfinished."""
    rows = session.scalars(
        select(JobRow)
        .where(JobRow.book_id == scope.book_id, JobRow.kind == scope.kind.value)
        .order_by(JobRow.created_at.desc())
    )
    latest = next(
        (
            row
            for row in rows
            if row.chapters == scope.chapters and row.paragraphs == scope.paragraphs
        ),
        None,
    )
    return latest if latest is not None and latest.status in RESUMABLE else None


def _stop(row: JobRow) -> None:
    row.status, row.error, row.finished_at = JobStatus.INTERRUPTED, STOPPED_AS_ASKED, utc_now()


def _failed_chunks(failed: Sequence[ChunkRow]) -> str | None:
    return describe_failed_parts([(c.chapter_number, str(failure_of_row(c))) for c in failed])


def _reopen(session: Session, row: JobRow, status: JobStatus, *, model: str, protocol: str) -> None:
    row.status = status
    row.error = None
    row.model = model
    row.protocol = protocol
    row.owner = this_process()
    row.heartbeat_at = utc_now()
    session.flush()


def _new_job(
    session: Session, scope: JobScope, status: JobStatus, *, model: str, protocol: str
) -> JobRow:
    row = JobRow(
        id=fresh_id(session, JobRow),
        book_id=scope.book_id,
        kind=scope.kind.value,
        chapters=scope.chapters,
        model=model,
        protocol=protocol,
        status=status,
        created_at=utc_now(),
        owner=this_process(),
        heartbeat_at=utc_now(),
        retranslate=scope.retranslate,
        stop_requests=0,
        paragraphs=scope.paragraphs,
        queued=False,
        **dict.fromkeys(JobCost.__slots__, 0),
    )
    session.add(row)
    session.flush()
    return row


def _not_tried(chunk: ChunkRow, job: JobRow, now: datetime) -> str | None:
    """Why a part that has not ended was not tried (``None`` for one that failed)."""
    if chunk.status == ChunkStatus.FAILED:
        return None
    if chunk.status == ChunkStatus.WAITING:
        return "it waits for an answer to the model's question"
    if chunk.status == ChunkStatus.RUNNING and Lease(chunk.owner, chunk.heartbeat_at).is_live(now):
        return "it is being translated"
    if job.status in (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.WAITING):
        live = job.status != JobStatus.RUNNING or Lease(job.owner, job.heartbeat_at).is_live(now)
        return "its job has not come to it yet" if live else "its job was interrupted"
    if job.error == STOPPED_AS_ASKED:
        return "its job was stopped"
    return f"its job stopped: {job.error}" if job.error else "its job stopped"


def _add_cost(session: Session, job_id: str, model: str, cost: JobCost) -> None:
    """Add ``cost`` to the job's and to its model's."""
    if cost == JobCost():
        return
    names = JobCost.__slots__
    session.execute(
        update(JobRow)
        .where(JobRow.id == job_id)
        .values({n: getattr(JobRow, n) + getattr(cost, n) for n in names})
    )
    added = session.execute(
        update(JobModelCostRow)
        .where(JobModelCostRow.job_id == job_id, JobModelCostRow.model == model)
        .values({n: getattr(JobModelCostRow, n) + getattr(cost, n) for n in names})
    )
    if not added.rowcount:  # type: ignore[attr-defined]
        session.add(JobModelCostRow(job_id=job_id, model=model, **_counters(cost)))


def _costs(session: Session, job_ids: Sequence[str]) -> dict[str, list[JobModelCostRow]]:
    """Each job's costs by model, by job id."""
    found: dict[str, list[JobModelCostRow]] = {}
    rows = session.scalars(
        select(JobModelCostRow)
        .where(JobModelCostRow.job_id.in_(job_ids))
        .order_by(JobModelCostRow.model)
    )
    for row in rows:
        found.setdefault(row.job_id, []).append(row)
    return found


def _counters(cost: JobCost) -> dict[str, int]:
    return {name: getattr(cost, name) for name in JobCost.__slots__}


def _cost(row: JobRow | JobModelCostRow) -> JobCost:
    return JobCost(*(getattr(row, name) for name in JobCost.__slots__))


def _job(row: JobRow, costs: Sequence[JobModelCostRow] = ()) -> Job:
    return Job(
        row.id,
        row.book_id,
        JobKind(row.kind),
        row.chapters,
        row.model,
        row.protocol,
        JobStatus(row.status),
        row.error,
        row.created_at,
        _cost(row),
        Lease(row.owner, row.heartbeat_at),
        bool(row.retranslate),
        row.stop_requests,
        row.paragraphs,
        bool(row.queued),
        row.chunk_chars,
        row.finished_at,
        {cost.model: _cost(cost) for cost in costs},
    )
