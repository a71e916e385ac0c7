"""A claimed chunk, run to its end under its claim.

The driver reads what the chunk has left to do, talks to the model (``chunk_run``) under the
run's spending cap, and writes the chunk's end under its claim: done, failed, parked on a
question for a person, or handed over in smaller chunks when the context window could not hold
it. A chunk another process takes over meanwhile ends here with ``ChunkTakenOver``.

One conversation may hold one chunk, or the first chunks of short chapters: each claimed,
every write made under all their claims. Each then ends on its own: done if its paragraphs
and its title were; else, alone, failed with the conversation's failure (for the chapter's
rounds) or what it handed over planned again; shared, given back whole, to be tried alone
with nothing held against it (an innocent chapter is never counted as failed with the one
that was refused).
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
from honyaku.domain.pricing import Prices
from honyaku.domain.workflow import ChunkWorkflow
from honyaku.errors import ClaimLost
from honyaku.jobs.chunk_run import ChunkTalk, run_chunk
from honyaku.jobs.claims import Claims
from honyaku.jobs.events import (
    ChunkFinished,
    ChunkParked,
    ChunkTakenOver,
    ConversationEnded,
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


@dataclass(frozen=True, slots=True)
class ChunkDeps:
    """What every chunk of a run works with, whichever model it talks to."""

    records: JobRecords
    """The run's one door to the database, for the driver and its chunks' tools."""
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
    prices: Prices | None

    @property
    def name(self) -> str:
        """The name its versions and costs are kept under."""
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

    async def run(self, claims: Sequence[Claim]) -> AsyncIterator[JobEvent]:
        """The conversation over the claimed chunks (one, or the first parts of short
        chapters), then each one's end written under its claim (with what it handed over
        planned again); or, for each claim another process takes over meanwhile,
        ``ChunkTakenOver``, the others given back."""
        async for event in self._holding(claims, self._conversation(claims)):
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

    async def _conversation(self, claims: Sequence[Claim]) -> AsyncIterator[JobEvent]:
        """The claimed chunks' conversation, each chapter a section of it, then each
        chunk's end."""
        records = self.deps.records
        works = [await records.run(records.work, claim, self.job, self.to_do) for claim in claims]
        each = [work for _, work, _ in works]
        if parked := await self._parked(claims):
            async for event in self._ended(claims, self._resumed(claims[0], parked), each):
                yield event
            return
        sections = []
        for claim, (chapter, work, gone) in zip(claims, works, strict=True):
            for event in _before(claim, gone):
                yield event
            if section := self._chunk(claim, chapter, work):
                sections.append(section)
        talk = self._opened(claims, sections) if sections else _nothing()
        async for event in self._ended(claims, talk, each):
            yield event

    async def _parked(self, claims: Sequence[Claim]) -> ParkedConversation | None:
        """The conversation a question parked, for a queued job's chunk that has one."""
        if len(claims) > 1 or self.deps.question_wait_s is None:
            return None
        records = self.deps.records
        return await records.run(records.take_parked, claims[0].item.pk)

    def _opened(self, claims: Sequence[Claim], sections: list[Chunk]) -> AsyncIterator[JobEvent]:
        """The conversation over ``sections``, as the model is first told of them."""
        chunk = replace(sections[0], joined=tuple(sections[1:]))
        tokens = tuple(claim.token for claim in claims)
        context = self._context(chunk, tokens[0] if len(tokens) == 1 else tokens)
        in_chapter = claims[0].item.planned.chunks_in_chapter if len(claims) == 1 else 1
        return run_chunk(context, self._talk(context), chunks_in_chapter=in_chapter)

    async def _ended(
        self,
        claims: Sequence[Claim],
        talk: AsyncIterator[JobEvent],
        works: Sequence[list[Paragraph]],
    ) -> AsyncIterator[JobEvent]:
        """``talk``'s events, then how it ended: parked on a question, or each claimed chunk
        ended (``_end``), and the conversation counted once where it ran to its end."""
        finished, parked, seen = None, None, JobCost()
        async for event in talk:
            if change := cost_change(event):
                seen += change.cost
            if isinstance(event, ChunkFinished):
                finished = event
                continue
            if isinstance(event, ChunkParked):
                parked = event
            yield event
        if parked is not None:
            token = claims[0].token
            self.deps.claims.settled(token)
            await self._park(token, parked)
            self.deps.claims.parked.add(token)
            return
        for claim, work in zip(claims, works, strict=True):
            yield await self._end(claim, work, finished, alone=len(claims) == 1)
        if finished is not None and finished.handed_over is None:
            paragraphs = sum(len(work) for work in works)
            yield ConversationEnded(Where.of(claims[0].item.planned), self.model.name, paragraphs)
            if finished.failure is None:
                await self.model.replanner.learn(paragraphs, seen)

    async def _end(
        self, claim: Claim, work: list[Paragraph], finished: ChunkFinished | None, *, alone: bool
    ) -> ChunkFinished:
        """A claimed chunk ends as its conversation ``finished``: done, unless it has
        something left; failed as the conversation failed, or, if it shared the
        conversation with other chapters, given back to be tried alone; what it handed over
        planned again, or given back likewise."""
        where, token = Where.of(claim.item.planned), claim.token
        left = finished is not None and (alone or _has_left(claim, work, finished))
        over = finished.handed_over if finished and left else None
        failure = finished.failure if finished and left else None
        if (over or failure) and not alone:
            await self.deps.claims.give_back(token)
            return ChunkFinished(where, None)
        if over is not None:
            failure = await self.model.replanner.hand_over(claim, work, over)
        # From here the claim is ended, not given back: its end is written in a thread that
        # runs on even if the run is stopped meanwhile.
        self.deps.claims.settled(token)
        status = ChunkStatus.FAILED if failure else ChunkStatus.DONE
        records = self.deps.records
        await records.run(records.finish_chunk, token, status, failure, self.model.name)
        return ChunkFinished(where, failure, None if failure else over)

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

    async def _resumed(self, claim: Claim, parked: ParkedConversation) -> AsyncIterator[JobEvent]:
        """The conversation a question parked, taken back up with its answer (or none)."""
        planned = claim.item.planned
        assigned = parked.workflow["assigned"]
        records = self.deps.records
        chapter, found = await records.run(
            records.chapter_with, self.book.id, planned.chapter_id, assigned
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
        records = self.deps.records
        await records.run(
            records.park,
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
            self.deps.records,
            self.book,
            self.job.id,
            self.model.name,
            chunk,
            workflow,
            self.deps.glossary,
            claim,
        )


def _has_left(claim: Claim, work: list[Paragraph], finished: ChunkFinished) -> bool:
    """Whether the chunk's paragraphs or title are among what its conversation left."""
    left = set(finished.left)
    if finished.handed_over is not None:
        left |= {*finished.handed_over.paragraph_ids, *finished.handed_over.titles}
    return bool(left & ({p.id for p in work} | {claim.item.planned.chapter_id}))


async def _nothing() -> AsyncIterator[JobEvent]:
    """A conversation with nothing to say: its chunks' work was done meanwhile."""
    return
    yield


def _before(claim: Claim, gone: int) -> list[JobEvent]:
    """What a claimed chunk says before it talks: paragraphs another job holds, paragraphs
    done since it was planned."""
    where = Where.of(claim.item.planned)
    busy: list[JobEvent] = [ParagraphsBusy(where, claim.busy)] if claim.busy else []
    return busy + ([ParagraphsDone(where, gone)] if gone else [])
