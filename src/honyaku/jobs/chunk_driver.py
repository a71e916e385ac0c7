"""A claimed chunk, run to its end under its claim.

The driver reads what the chunk has left to do, talks to the model (``chunk_run``) under the
run's spending cap, and writes the chunk's end under its claim: done, failed, parked on a
question for a person, or handed over in smaller chunks when the context window could not hold
it. A chunk another process takes over meanwhile ends here with ``ChunkTakenOver``.

The chunks of short chapters may share one conversation (``run_together``): each claimed,
every write made under all their claims. Each then ends on its own: done if its paragraphs
and its title were, else failed with the conversation's failure (the chapter's rounds try
it again alone), or given back to run alone if the conversation did not fit the model's
window.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from functools import partial

from honyaku.agent.broker import Broker
from honyaku.agent.replies import request_record
from honyaku.domain.book import Book, Chapter, Paragraph
from honyaku.domain.chunking import Chunk
from honyaku.domain.workflow import ChunkWorkflow
from honyaku.errors import ClaimLost
from honyaku.jobs.chunk_run import ChunkTalk, run_chunk
from honyaku.jobs.claims import Claims
from honyaku.jobs.events import (
    ChunkFinished,
    ChunkParked,
    ChunkTakenOver,
    JobEvent,
    ParagraphsBusy,
    ParagraphsDone,
    Where,
)
from honyaku.jobs.parking import (
    ParkingFrontEnd,
    parked_titles,
    workflow_from_record,
    workflow_record,
)
from honyaku.jobs.planning import title_wanted
from honyaku.jobs.progress import cost_change
from honyaku.jobs.records import JobRecords
from honyaku.jobs.replanning import Replanner
from honyaku.jobs.spending import CappedProvider, Purse, reply_bound
from honyaku.jobs.tools import ChunkContext
from honyaku.llm.messages import message_from_record, message_record
from honyaku.store.chunks import ChunkStatus, Claim, ClaimToken, Held
from honyaku.store.glossary import BookGlossary
from honyaku.store.jobs import Job, JobCost
from honyaku.store.questions import ParkedConversation
from honyaku.store.stores import Stores


@dataclass(frozen=True, slots=True)
class ChunkDeps:
    """What every chunk of a run works with, whichever model it talks to."""

    stores: Stores
    records: JobRecords
    claims: Claims
    broker: Broker
    glossary: BookGlossary
    question_wait_s: float | None
    """A queued job's run: a question parks its chunk for a person, for this long at most
    (``jobs.parking``); ``None``: questions reach the broker's front end."""


@dataclass(frozen=True, slots=True)
class ModelDeps:
    """The model a chunk talks to, and what goes with it: its plan's sizing, its prices."""

    talk: ChunkTalk
    replanner: Replanner
    spending: Purse | None

    @property
    def name(self) -> str:
        return self.talk.provider.model


class ChunkDriver:
    def __init__(
        self, deps: ChunkDeps, model: ModelDeps, job: Job, book: Book, to_do: set[str]
    ) -> None:
        self.deps = deps
        self.model = model
        self.job = job
        self.book = book
        self.to_do = to_do
        """The ids of the job's paragraphs left when the run began."""

    async def run(self, claim: Claim) -> AsyncIterator[JobEvent]:
        """The claimed chunk's events, then its end written under its claim (with what it
        handed over planned again); or, if another process takes the chunk over meanwhile,
        ``ChunkTakenOver``."""
        async for event in self._holding([claim], self._to_its_end(claim)):
            yield event

    async def run_together(self, claims: Sequence[Claim]) -> AsyncIterator[JobEvent]:
        """The claimed chunks of short chapters in one conversation, then each one's end
        written under its claim. One taken over by another process ends the conversation:
        the others are given back."""
        async for event in self._holding(claims, self._together(claims)):
            yield event

    async def _holding(
        self, claims: Sequence[Claim], events: AsyncIterator[JobEvent]
    ) -> AsyncIterator[JobEvent]:
        """``events``, run while ``claims`` are held; ``ChunkTakenOver`` for each one lost."""
        held, lane = self.deps.claims, asyncio.current_task()
        tokens = [claim.token for claim in claims]
        for token in tokens:
            held.running(token, lane)
        lost_chunk = None
        try:
            async for event in events:
                yield event
            return
        except ClaimLost as lost:
            reason, lost_chunk = str(lost), lost.chunk
        except asyncio.CancelledError:
            if not any(held.is_lost(token) for token in tokens) or lane is None:
                raise  # a stop: a claim still held is given back
            lane.uncancel()
            reason = "the heartbeat found the chunk taken over by another process"
        for token, claim in zip(tokens, claims, strict=True):
            if len(claims) == 1 or held.is_lost(token) or token.chunk == lost_chunk:
                held.lose(token)
                yield ChunkTakenOver(Where.of(claim.item.planned), reason)
            else:
                await held.give_back(token)

    async def _to_its_end(self, claim: Claim) -> AsyncIterator[JobEvent]:
        deps, token = self.deps, claim.token
        chapter, work, gone = await deps.records.work(claim, self.job, self.to_do)
        finished, parked, seen = None, None, JobCost()
        async for event in self._talk_through(claim, chapter, work, gone):
            seen += cost_change(event) or JobCost()
            if isinstance(event, ChunkFinished):
                finished = event
            elif isinstance(event, ChunkParked):
                parked = event
            yield event
        failure = finished.failure if finished else None
        if finished and finished.handed_over:
            failure = await self.model.replanner.hand_over(claim, work, finished.handed_over)
        # From here the claim is ended, not given back: its end is written in a thread that
        # runs on even if the run is stopped meanwhile.
        deps.claims.settled(token)
        if parked is not None:
            await self._park(token, parked)
            deps.claims.parked.add(token)
            return
        status = ChunkStatus.FAILED if failure else ChunkStatus.DONE
        await deps.records.finish_chunk(token, status, failure)
        if finished and not finished.handed_over and not failure:
            await self.model.replanner.learn(len(work), seen)

    async def _talk_through(
        self, claim: Claim, chapter: Chapter, work: list[Paragraph], gone: int
    ) -> AsyncIterator[JobEvent]:
        planned = claim.item.planned
        if self.deps.question_wait_s is not None and (
            taken := await self.deps.records.take_parked(claim.item.pk)
        ):
            async for event in self._resumed(claim, taken):
                yield event
            return
        for event in _before(claim, gone):
            yield event
        if chunk := self._chunk(claim, chapter, work):
            context = self._context(chunk, claim.token)
            async for event in run_chunk(
                context, self._talk(context), chunks_in_chapter=planned.chunks_in_chapter
            ):
                yield event

    def _chunk(self, claim: Claim, chapter: Chapter, work: list[Paragraph]) -> Chunk | None:
        """What the claimed chunk has to do: its work paragraphs and, if it is wanted, its
        chapter's title; ``None`` for nothing."""
        planned = claim.item.planned
        shows_title = (
            planned.shows_title
            and not claim.busy
            and title_wanted(chapter, self.job.kind, retranslate=self.job.retranslate)
        )
        if work or shows_title:
            return Chunk(chapter, planned.number, tuple(work), shows_title)
        return None

    async def _together(self, claims: Sequence[Claim]) -> AsyncIterator[JobEvent]:
        """The claimed chunks' conversation, each chapter a section of it; each chunk's end."""
        records = self.deps.records
        works = [await records.work(claim, self.job, self.to_do) for claim in claims]
        sections = []
        for claim, (chapter, work, gone) in zip(claims, works, strict=True):
            for event in _before(claim, gone):
                yield event
            if section := self._chunk(claim, chapter, work):
                sections.append(section)
        finished, seen = None, JobCost()
        left: set[str] = set()
        if sections:
            chunk = replace(sections[0], joined=tuple(sections[1:]))
            context = self._context(chunk, tuple(claim.token for claim in claims))
            async for event in run_chunk(context, self._talk(context), chunks_in_chapter=1):
                seen += cost_change(event) or JobCost()
                if isinstance(event, ChunkFinished):
                    finished = event
                else:
                    yield event
            left = {*context.workflow.missing_ids, *context.workflow.missing_titles}
        for claim, (_, work, _) in zip(claims, works, strict=True):
            mine = {p.id for p in work} | {claim.item.planned.chapter_id}
            yield await self._end_together(claim, finished if mine & left else None)
        if finished and finished.failure is None and finished.handed_over is None:
            await self.model.replanner.learn(sum(len(work) for _, work, _ in works), seen)

    async def _end_together(self, claim: Claim, finished: ChunkFinished | None) -> JobEvent:
        """A chunk of a shared conversation ends: done, unless it has something left
        (``finished``: how the conversation ended then), failed as the conversation failed
        or given back if it did not fit."""
        where, token = Where.of(claim.item.planned), claim.token
        failure = finished.failure if finished else None
        if finished and finished.handed_over:
            await self.deps.claims.give_back(token)
            return ChunkFinished(where, None)
        self.deps.claims.settled(token)
        status = ChunkStatus.FAILED if failure else ChunkStatus.DONE
        await self.deps.records.finish_chunk(token, status, failure)
        return ChunkFinished(where, failure)

    async def _resumed(self, claim: Claim, parked: ParkedConversation) -> AsyncIterator[JobEvent]:
        """The conversation a question parked, taken back up with its answer (or none)."""
        planned = claim.item.planned
        assigned = parked.workflow["assigned"]
        chapter, found = await self.deps.records.chapter_with(
            self.book.id, planned.chapter_id, assigned
        )
        paragraphs = tuple(found[pid] for pid in assigned if pid in found)
        titles, _ = parked_titles(parked.workflow, chapter.id)
        chunk = Chunk(chapter, planned.number, paragraphs, chapter.id in titles)
        front_end = ParkingFrontEnd(parked.reply, resumed=True, wait_s=self._wait_s)
        context = self._context(chunk, claim.token, front_end)
        context.workflow = workflow_from_record(context.workflow, parked.workflow, found)
        history = [message_from_record(record) for record in parked.conversation]
        async for event in run_chunk(
            context,
            self._talk(context),
            chunks_in_chapter=planned.chunks_in_chapter,
            resumed=history,
        ):
            yield event

    async def _park(self, token: ClaimToken, parked: ChunkParked) -> None:
        await self.deps.records.park(
            token,
            asker=parked.request.asker,
            request=request_record(parked.request),
            conversation=[message_record(m) for m in parked.conversation],
            workflow=workflow_record(parked.workflow),
            wait_s=self._wait_s,
        )

    @property
    def _wait_s(self) -> float:
        return self.deps.question_wait_s or 0.0

    def _talk(self, context: ChunkContext) -> ChunkTalk:
        """How the chunk talks to the model: under the run's cap, where it has one."""
        talk, spending = self.model.talk, self.model.spending
        if spending is None:
            return talk
        titles = {chapter.id: chapter.title for chapter in context.chunk.titles}
        bound = partial(reply_bound, context.workflow, titles)
        return replace(talk, provider=CappedProvider(talk.provider, spending, bound))

    def _context(
        self, chunk: Chunk, claim: Held, front_end: ParkingFrontEnd | None = None
    ) -> ChunkContext:
        chapter, kind = chunk.chapter, self.job.kind
        where = f"chapter {chapter.order} «{chapter.title}», part {chunk.number}"
        if chunk.joined:
            where = f"chapters {chapter.order}–{chunk.joined[-1].chapter.order}"
        asker = f"{kind} of «{self.book.title}», {where}"
        workflow = ChunkWorkflow(
            kind,
            {p.id: p for p in chunk.all_paragraphs},
            tuple(section.chapter.id for section in chunk.sections),
            tuple(title.id for title in chunk.titles),
        )
        broker = self.deps.broker
        if self.deps.question_wait_s is not None:
            broker = Broker(front_end or ParkingFrontEnd(wait_s=self._wait_s))
        return ChunkContext(
            broker,
            asker,
            self.deps.stores,
            self.book,
            self.job.id,
            self.model.name,
            chunk,
            workflow,
            self.deps.glossary,
            claim,
        )


def _before(claim: Claim, gone: int) -> list[JobEvent]:
    """What a claimed chunk says before it talks: paragraphs another job holds, paragraphs
    done since it was planned."""
    where = Where.of(claim.item.planned)
    busy: list[JobEvent] = [ParagraphsBusy(where, claim.busy)] if claim.busy else []
    return busy + ([ParagraphsDone(where, gone)] if gone else [])
