"""What a run of a job reads and writes in the library: the one place a run touches the database.

Every method is a coroutine whose database work runs in a worker thread (the rule of
``honyaku.store``), so a run's other chapters stream on while one waits for a write. The few
writes a run makes as it is being stopped are the exception and say so (``…_now``): a
cancelled task cannot wait for a thread, and they are short.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from honyaku.agent.broker import ApprovalPolicy, Broker
from honyaku.domain.book import Book, Chapter, Paragraph
from honyaku.domain.chunking import REVISIONS, describe_failed_parts
from honyaku.domain.failures import Coverage, Failure, Left
from honyaku.domain.rating import judge_note
from honyaku.domain.rounds import Part
from honyaku.domain.workflow import JobKind
from honyaku.errors import UserError
from honyaku.jobs.approvals import book_approvals
from honyaku.jobs.events import ChunkFailure, Where
from honyaku.jobs.planning import is_done, still_to_do, title_wanted
from honyaku.jobs.requests import JobRequest
from honyaku.store.chunks import (
    ChunkItem,
    ChunkStatus,
    Claim,
    ClaimToken,
    HandedBack,
    Heartbeat,
    PlannedChunk,
    Replan,
)
from honyaku.store.glossary import BookGlossary
from honyaku.store.jobs import Action, Job, JobCost, JobScope, JobStatus, ModelRecord, Opened
from honyaku.store.library import Library
from honyaku.store.questions import ParkedConversation
from honyaku.store.stores import Stores

T = TypeVar("T")


async def in_thread(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work`` run in a worker thread: the event loop never waits on the database."""
    return await asyncio.to_thread(work, *args, **kwargs)


class JobRecords:
    """A job's rows and the library they work on, for one run (or, before the job is open,
    for opening it)."""

    def __init__(self, stores: Stores, job_id: str = "") -> None:
        self.stores = stores
        self.job_id = job_id

    def of(self, job: Job) -> JobRecords:
        return JobRecords(self.stores, job.id)

    # -- opening ---------------------------------------------------------------------------

    async def book(self, book_id: str, chapters: Collection[int] | None) -> Book:
        return await in_thread(self.stores.library.whole_book, book_id, chapter_numbers=chapters)

    async def scope(self, request: JobRequest) -> JobScope:
        return await in_thread(job_scope, self.stores.library, request)

    def open_job(
        self,
        scope: JobScope,
        planned: list[PlannedChunk],
        *,
        model: str,
        protocol: str,
        resume: str | None,
        chunk_chars: int,
        queued: Opened | None = None,
    ) -> tuple[Job, bool]:
        """Open the job over ``scope`` (or the one to resume), called in a thread; a queued
        one has its work queued (``queued``) in the same transaction."""
        return self.stores.jobs.open(
            scope,
            model=model,
            protocol=protocol,
            planned=planned,
            resume=resume,
            queued=queued,
            chunk_chars=chunk_chars,
        )

    async def join(self, job_id: str, stops_seen: int) -> Job | None:
        return await in_thread(self.stores.jobs.join, job_id, stops_seen)

    async def model_record(self, model: str, kind: JobKind) -> ModelRecord:
        return await in_thread(self.stores.jobs.model_record, model, kind)

    async def has_glossary(self, book_id: str) -> bool:
        """Whether the book has glossary entries: its jobs are offered the glossary tools."""
        return await in_thread(lambda: bool(BookGlossary(self.stores.glossary, book_id).entries()))

    async def approvals(self, broker: Broker, book_id: str) -> ApprovalPolicy:
        return await in_thread(book_approvals, broker, self.stores.library, book_id)

    async def to_do(self, job: Job, book: Book) -> tuple[int, set[str]]:
        """The job's work paragraphs in all, and the ids of those not done; for glossary
        extraction, which writes no versions, those its chunks not done plan."""

        def to_do() -> tuple[int, set[str]]:
            written = self.stores.jobs.paragraphs_done(job.id)
            only = None if job.paragraphs is None else set(job.paragraphs)
            paragraphs, left = still_to_do(
                book, job.kind, retranslate=job.retranslate, written=written, only=only
            )
            if job.kind is JobKind.EXTRACTION:
                left = {
                    pid
                    for item in self.stores.chunks.items(job.id)
                    if item.status is not ChunkStatus.DONE
                    for pid in item.planned.paragraph_ids
                }
            return len(paragraphs), left

        return await in_thread(to_do)

    # -- chunks ----------------------------------------------------------------------------

    async def items(self) -> list[ChunkItem]:
        return await in_thread(self.stores.chunks.items, self.job_id)

    async def next_item(self, chapter: int, after: int) -> ChunkItem | None:
        return await in_thread(self.stores.chunks.next_item, self.job_id, chapter, after)

    def claim_in_thread(self, pk: int) -> Claim | ChunkStatus | None:
        """Claim chunk ``pk``: called in a worker thread already (``Claims.take``)."""
        return self.stores.chunks.claim(pk)

    async def work(
        self, claim: Claim, job: Job, to_do: Collection[str]
    ) -> tuple[Chapter, list[Paragraph], int]:
        """The claimed chunk's chapter, its paragraphs still to do, and how many of those it
        was planned with were done meanwhile (by another job or process)."""

        def work() -> tuple[Chapter, list[Paragraph], int]:
            library = self.stores.library
            chapter = library.chapter(job.book_id, claim.item.planned.chapter_id)
            found = library.paragraphs(job.book_id, claim.free)
            written = self.stores.jobs.paragraphs_done(job.id, among=claim.free)
            left = [
                found[pid]
                for pid in claim.free
                if not is_done(found[pid], job.kind, retranslate=job.retranslate, written=written)
            ]
            ids = {p.id for p in left}
            gone = sum(1 for pid in claim.free if pid in to_do and pid not in ids)
            if job.kind in REVISIONS:
                left = self._with_judge_notes(job.book_id, left)
            return chapter, left, gone

        return await in_thread(work)

    def _with_judge_notes(self, book_id: str, paragraphs: list[Paragraph]) -> list[Paragraph]:
        """The paragraphs, each carrying the note of the latest rating of its translation."""
        rated = self.stores.ratings.rated(book_id, paragraph_ids=[p.id for p in paragraphs])
        notes = {r.paragraph_id: judge_note(r.score, r.issues, r.comment) for r in rated}
        return [replace(p, judged=notes.get(p.id)) for p in paragraphs]

    async def chapter_with(
        self, book_id: str, chapter_id: str, paragraph_ids: Sequence[str]
    ) -> tuple[Chapter, dict[str, Paragraph]]:
        """A chapter, and those of its paragraphs found among ``paragraph_ids``."""
        library = self.stores.library

        def read() -> tuple[Chapter, dict[str, Paragraph]]:
            return library.chapter(book_id, chapter_id), library.paragraphs(book_id, paragraph_ids)

        return await in_thread(read)

    async def finish_chunk(
        self, token: ClaimToken, status: ChunkStatus, failure: Failure | None, model: str
    ) -> None:
        await in_thread(self.stores.chunks.finish, token, status, failure, model=model)

    async def failed_parts(self, job: Job, chapter: int) -> list[tuple[ChunkItem, Part]] | None:
        """The chapter's failed chunks, each with what it has left to do; ``None`` while the
        chapter has chunks still to run, held elsewhere or waiting for a person. A failed
        chunk whose work was done meanwhile is marked done."""

        def failed() -> list[tuple[ChunkItem, Part]] | None:
            items = [
                i for i in self.stores.chunks.items(job.id) if i.planned.chapter_number == chapter
            ]
            if any(i.status not in (ChunkStatus.DONE, ChunkStatus.FAILED) for i in items):
                return None
            found = [(i, self._left(job, i)) for i in items if i.status is ChunkStatus.FAILED]
            done: dict[int, list[Part]] = {i.pk: [] for i, part in found if part.is_empty}
            if done:
                self.stores.chunks.retry(job.id, done)
            return [(i, part) for i, part in found if not part.is_empty]

        return await in_thread(failed)

    def _left(self, job: Job, item: ChunkItem) -> Part:
        """What a chunk has left: its paragraphs not done, and its title if it is not."""
        library, planned = self.stores.library, item.planned
        ids = planned.paragraph_ids
        found = library.paragraphs(job.book_id, ids)
        written = self.stores.jobs.paragraphs_done(job.id, among=ids)
        left = tuple(
            pid
            for pid in ids
            if pid in found
            and not is_done(found[pid], job.kind, retranslate=job.retranslate, written=written)
        )
        title = planned.shows_title and title_wanted(
            library.chapter(job.book_id, planned.chapter_id), job.kind, retranslate=False
        )
        return Part(left, title)

    async def retry(self, parts: Mapping[int, Sequence[Part]], round: int) -> None:
        """Plan failed chunks to run again in ``round`` as ``parts``."""
        await in_thread(self.stores.chunks.retry, self.job_id, parts, round=round)

    async def replan(
        self,
        split: Replan,
        chunk_chars: int | None,
        handed_back: HandedBack | None = None,
        *,
        alone: bool = False,
    ) -> None:
        """Plan the chunks waiting to run again with ``split`` (and what ``handed_back``
        gives, ``alone`` if asked), at ``chunk_chars`` (``None``: the plan's size is not
        changed)."""
        await in_thread(
            self.stores.chunks.replan, self.job_id, split, handed_back=handed_back, alone=alone
        )
        if chunk_chars is not None:
            await in_thread(self.stores.jobs.planned_with, self.job_id, chunk_chars)

    async def beat(self, tokens: Collection[ClaimToken], stops_seen: int) -> Heartbeat:
        return await in_thread(self.stores.chunks.beat, self.job_id, list(tokens), stops_seen)

    def release_now(self, tokens: Collection[ClaimToken]) -> None:
        self.stores.chunks.release(tokens)

    # -- questions and the action log ------------------------------------------------------

    async def park(self, token: ClaimToken, **parked: Any) -> None:
        await in_thread(self.stores.questions.park, token, **parked)

    async def take_parked(self, pk: int) -> ParkedConversation | None:
        return await in_thread(self.stores.questions.take_parked, pk)

    async def record(self, actions: Sequence[Action], costs: Mapping[str, JobCost]) -> None:
        await in_thread(self.record_now, actions, costs)

    def record_now(self, actions: Sequence[Action], costs: Mapping[str, JobCost]) -> None:
        self.stores.jobs.record(self.job_id, actions, costs)

    # -- the job's end ---------------------------------------------------------------------

    def finish_now(self, status: JobStatus, reason: str | None) -> None:
        self.stores.jobs.finish(self.job_id, status, reason)

    async def settle(self, stops_seen: int | None = None) -> JobStatus:
        return await in_thread(self.stores.jobs.settle, self.job_id, stops_seen)

    async def end(self, job: Job, *, stopped: bool = False) -> Ending:
        """Write how the job ended, once no chunk is left running here (unless the run was
        ``stopped``, which wrote it already): finished, or failed with the parts it could
        not do, unless another process still runs chunks of it or one waits for a person.
        How it ended, and what it left."""

        def end() -> Ending:
            chunks, jobs = self.stores.chunks, self.stores.jobs
            items = chunks.items(job.id)
            failed = [i for i in items if i.failure is not None]
            failures = [ChunkFailure(Where.of(i.planned), i.failure) for i in failed if i.failure]
            elsewhere = chunks.live_elsewhere(job.id)
            waiting = any(i.status is ChunkStatus.WAITING for i in items)
            if stopped:
                pass
            elif not elsewhere and not waiting:
                left = [i for i in items if i.status is not ChunkStatus.DONE]
                reasons = [(f.where.chapter, f.reason) for f in failures]
                status = JobStatus.FAILED if left else JobStatus.FINISHED
                jobs.finish(job.id, status, describe_failed_parts(reasons, len(left)))
            elif not elsewhere:
                jobs.settle(job.id)
            account = self.account_in_thread(job)
            return Ending(jobs.get(job.id), elsewhere, failures, account.left, account.coverage)

        return await in_thread(end)

    def account_in_thread(self, job: Job) -> Account:
        """What the job has done of its scope, and each work paragraph and chapter title of
        it that it has not, with why, as the database has it."""
        library, jobs = self.stores.library, self.stores.jobs
        book = library.whole_book(job.book_id, chapter_numbers=job.chapters)
        only = None if job.paragraphs is None else set(job.paragraphs)
        written = jobs.paragraphs_done(job.id)
        paragraphs, to_do = still_to_do(
            book, job.kind, retranslate=job.retranslate, written=written, only=only
        )
        ours, anyones = jobs.unfinished(job.book_id, job.id), jobs.unfinished(job.book_id)
        left, titles, titles_done = [], 0, 0
        for chapter in book.chapters:
            if job.kind is JobKind.TRANSLATION and only is None:
                titles += 1
                if title_wanted(chapter, job.kind, retranslate=False):
                    why = ours.get(chapter.id) or anyones.get(chapter.id)
                    left.append(Left(chapter.order, None, chapter.id, why, chapter.title))
                else:
                    titles_done += 1
            left += [
                Left(chapter.order, p.index + 1, p.id, ours.get(p.id) or anyones.get(p.id), p.text)
                for p in chapter.paragraphs
                if p.id in to_do
            ]
        done = len(paragraphs) - len(to_do)
        return Account(left, Coverage(done, len(paragraphs), titles_done, titles))


@dataclass(frozen=True, slots=True)
class Account:
    """What a job has done of its scope, and what it has left, with why."""

    left: list[Left]
    coverage: Coverage


@dataclass(frozen=True, slots=True)
class Ending:
    """How a job stands once a run ended: the job, the chunks of it still running elsewhere,
    the parts that failed, each paragraph and title it left, and how much it covered."""

    job: Job
    running_elsewhere: int
    failures: list[ChunkFailure]
    left: list[Left]
    coverage: Coverage


def job_scope(library: Library, request: JobRequest) -> JobScope:
    """What the job works on: for some paragraphs only, those (once each, sorted, so that the
    same choice finds the same job to resume) and the chapters that hold them."""
    chapters, paragraphs = request.chapters, request.paragraphs
    if paragraphs is not None:
        if not paragraphs:
            raise UserError("choose at least one paragraph")
        paragraphs = sorted(set(paragraphs))
        chapters = library.chapter_numbers_of(request.book_id, paragraphs)
    return JobScope(request.book_id, request.kind, chapters, request.retranslate, paragraphs)


def scope_of(job: Job) -> JobScope:
    return JobScope(job.book_id, job.kind, job.chapters, job.retranslate, job.paragraphs)
