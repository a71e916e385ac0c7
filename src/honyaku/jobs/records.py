"""What a run of a job reads and writes in the library: the one door a run, its chunks and
their tools go through to the database.

Every method does its database work as it is called, in whatever thread calls it: the tools
run in a worker thread already; async code goes through ``JobRecords.run``, the one thread
hop (as datasette's ``execute_fn``), so a run's other chapters stream on while one waits for
a write. The few writes a run makes as it is being stopped are called on the event loop
itself, and say so where they are: a cancelled task cannot wait for a thread, and they are
short.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ParamSpec, TypeVar

from honyaku.agent.broker import ApprovalPolicy, Broker
from honyaku.domain.book import Book, Chapter, Paragraph, TranslationKind
from honyaku.domain.chunking import REVISIONS, describe_failed_parts
from honyaku.domain.failures import Coverage, Failure, Left
from honyaku.domain.forms_of_address import FormOfAddress
from honyaku.domain.glossary import GlossaryEntry
from honyaku.domain.placeholders import PlacedMark
from honyaku.domain.quality import QualityWarning
from honyaku.domain.rating import RatingItem, judge_note
from honyaku.domain.rounds import Part
from honyaku.domain.workflow import JobKind
from honyaku.errors import UserError
from honyaku.jobs.approvals import book_approvals
from honyaku.jobs.events import ChunkFailure, Where
from honyaku.jobs.planning import is_done, still_to_do, title_wanted
from honyaku.jobs.requests import JobRequest
from honyaku.store.batches import JobBatch, KeptConversation
from honyaku.store.chunks import (
    ChunkItem,
    ChunkStatus,
    Claim,
    ClaimToken,
    HandedBack,
    Heartbeat,
    Held,
    PlannedChunk,
    Replan,
)
from honyaku.store.glossary import BookGlossary
from honyaku.store.jobs import Action, Job, JobCost, JobScope, JobStatus, ModelRecord, Opened
from honyaku.store.library import Library
from honyaku.store.memory import TranslationMemory
from honyaku.store.questions import ParkedConversation
from honyaku.store.stores import Stores

T = TypeVar("T")
P = ParamSpec("P")


class JobRecords:
    """A job's rows and the library they work on, for one run (or, before the job is open,
    for opening it)."""

    def __init__(self, stores: Stores, job_id: str = "") -> None:
        self.stores = stores
        self.job_id = job_id

    async def run(self, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``work`` (one of these records' methods) in a worker thread: the event loop never
        waits on the database."""
        return await asyncio.to_thread(work, *args, **kwargs)

    @property
    def library(self) -> Library:
        """The book's paragraphs and versions, for a tool that reads around a paragraph."""
        return self.stores.library

    @property
    def memory(self) -> TranslationMemory:
        """The series' translation memory, for the references a chunk is shown."""
        return self.stores.memory

    def of(self, job: Job) -> JobRecords:
        return JobRecords(self.stores, job.id)

    # -- opening ---------------------------------------------------------------------------

    def book(self, book_id: str, chapters: Collection[int] | None) -> Book:
        return self.stores.library.whole_book(book_id, chapter_numbers=chapters)

    def scope(self, request: JobRequest) -> JobScope:
        return job_scope(self.stores.library, request)

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
        """Open the job over ``scope`` (or the one to resume); a queued one has its work
        queued (``queued``) in the same transaction."""
        return self.stores.jobs.open(
            scope,
            model=model,
            protocol=protocol,
            planned=planned,
            resume=resume,
            queued=queued,
            chunk_chars=chunk_chars,
        )

    def join(self, job_id: str, stops_seen: int) -> Job | None:
        return self.stores.jobs.join(job_id, stops_seen)

    def model_record(self, model: str, kind: JobKind) -> ModelRecord:
        return self.stores.jobs.model_record(model, kind)

    def has_glossary(self, book_id: str) -> bool:
        """Whether the book has glossary entries: its jobs are offered the glossary tools."""
        return bool(self.book_glossary(book_id).entries())

    def book_glossary(self, book_id: str) -> BookGlossary:
        return BookGlossary(self.stores.glossary, book_id)

    def approvals(self, broker: Broker, book_id: str) -> ApprovalPolicy:
        return book_approvals(broker, self.stores.library, book_id)

    def to_do(self, job: Job, book: Book) -> tuple[int, set[str]]:
        """The job's work paragraphs in all, and the ids of those not done; for glossary
        extraction, which writes no versions, those its chunks not done plan."""
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

    # -- chunks ----------------------------------------------------------------------------

    def items(self) -> list[ChunkItem]:
        return self.stores.chunks.items(self.job_id)

    def next_item(self, chapter: int, after: int) -> ChunkItem | None:
        return self.stores.chunks.next_item(self.job_id, chapter, after)

    def claim(self, pk: int) -> Claim | ChunkStatus | None:
        return self.stores.chunks.claim(pk)

    def work(
        self, claim: Claim, job: Job, to_do: Collection[str]
    ) -> tuple[Chapter, list[Paragraph], int]:
        """The claimed chunk's chapter, its paragraphs still to do, and how many of those it
        was planned with were done meanwhile (by another job or process)."""
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

    def _with_judge_notes(self, book_id: str, paragraphs: list[Paragraph]) -> list[Paragraph]:
        """The paragraphs, each carrying the note of the latest rating of its translation."""
        rated = self.stores.ratings.rated(book_id, paragraph_ids=[p.id for p in paragraphs])
        notes = {r.paragraph_id: judge_note(r.score, r.issues, r.comment) for r in rated}
        return [replace(p, judged=notes.get(p.id)) for p in paragraphs]

    def chapter_with(
        self, book_id: str, chapter_id: str, paragraph_ids: Sequence[str]
    ) -> tuple[Chapter, dict[str, Paragraph]]:
        """A chapter, and those of its paragraphs found among ``paragraph_ids``."""
        library = self.stores.library
        return library.chapter(book_id, chapter_id), library.paragraphs(book_id, paragraph_ids)

    def finish_chunk(
        self, token: ClaimToken, status: ChunkStatus, failure: Failure | None, model: str
    ) -> None:
        self.stores.chunks.finish(token, status, failure, model=model)

    def failed_parts(self, job: Job, chapter: int) -> list[tuple[ChunkItem, Part]] | None:
        """The chapter's failed chunks, each with what it has left to do; ``None`` while the
        chapter has chunks still to run, held elsewhere or waiting for a person. A failed
        chunk whose work was done meanwhile is marked done."""
        items = [i for i in self.stores.chunks.items(job.id) if i.planned.chapter_number == chapter]
        if any(i.status not in (ChunkStatus.DONE, ChunkStatus.FAILED) for i in items):
            return None
        found = [(i, self._left(job, i)) for i in items if i.status is ChunkStatus.FAILED]
        done: dict[int, list[Part]] = {i.pk: [] for i, part in found if part.is_empty}
        if done:
            self.stores.chunks.retry(job.id, done)
        return [(i, part) for i, part in found if not part.is_empty]

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

    def retry(self, parts: Mapping[int, Sequence[Part]], round: int) -> None:
        """Plan failed chunks to run again in ``round`` as ``parts``."""
        self.stores.chunks.retry(self.job_id, parts, round=round)

    def replan(
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
        self.stores.chunks.replan(self.job_id, split, handed_back=handed_back, alone=alone)
        if chunk_chars is not None:
            self.stores.jobs.planned_with(self.job_id, chunk_chars)

    def beat(self, tokens: Collection[ClaimToken], stops_seen: int) -> Heartbeat:
        return self.stores.chunks.beat(self.job_id, list(tokens), stops_seen)

    def release(self, tokens: Collection[ClaimToken]) -> None:
        self.stores.chunks.release(tokens)

    # -- what a chunk's tools write, under its claim ---------------------------------------

    def move(self, claim: Held, status: str) -> None:
        """Note the workflow status the chunk's conversation reached."""
        self.stores.chunks.record_workflow(claim, status)

    def save_title(self, book_id: str, chapter_id: str, title: str, claim: Held | None) -> None:
        self.stores.library.set_chapter_title(book_id, chapter_id, title, claim=claim)

    def save_versions(
        self,
        book_id: str,
        texts: Mapping[str, str],
        *,
        kind: TranslationKind,
        model: str,
        flags: Mapping[str, Sequence[QualityWarning]],
        claim: Held | None,
        marks: Mapping[str, Sequence[PlacedMark]] | None = None,
    ) -> set[str]:
        """Make each text its paragraph's selected version, with its inline ``marks``, in one
        transaction; the paragraphs that held the text already (``Library.add_translations``)."""
        return self.stores.library.add_translations(
            book_id,
            texts,
            kind=kind,
            model=model,
            job_id=self.job_id,
            flags=flags,
            claim=claim,
            marks=marks,
        )

    def save_ratings(
        self, book_id: str, ratings: Sequence[RatingItem], *, model: str, claim: Held | None
    ) -> None:
        self.stores.ratings.add(book_id, ratings, job_id=self.job_id, model=model, claim=claim)

    def save_terms(
        self, book_id: str, entries: Sequence[GlossaryEntry], *, origin: str, claim: Held | None
    ) -> None:
        """Into the book's home glossary: its series', else its own."""
        glossary = self.stores.glossary
        glossary.add(glossary.home_glossary(book_id), entries, origin=origin, claim=claim)

    def save_forms(
        self, book_id: str, forms: Sequence[FormOfAddress], *, origin: str, claim: Held | None
    ) -> None:
        """Forms of address, into the book's home glossary's address book."""
        glossary = self.stores.glossary
        glossary.addresses.add(glossary.home_glossary(book_id), forms, origin=origin, claim=claim)

    # -- batch mode ------------------------------------------------------------------------

    def open_conversation(self, chunk_pk: int) -> str:
        """A new batch conversation for the chunk: its key."""
        return self.stores.conversations.open(self.job_id, chunk_pk)

    def keep_conversation(
        self, key: str, conversation: list[dict[str, Any]], workflow: dict[str, Any], line: str
    ) -> None:
        self.stores.conversations.keep(key, conversation, workflow, line)

    def kept_conversation(self, chunk_pk: int) -> KeptConversation | None:
        return self.stores.conversations.of_chunk(chunk_pk)

    def batch_holding(self, custom_id: str) -> JobBatch | None:
        return self.stores.batches.holding(self.job_id, custom_id)

    def batch_sending(self, provider: str, model: str, lines: list[list[Any]]) -> JobBatch:
        return self.stores.batches.sending(self.job_id, provider, model, lines)

    def batch_submitted(self, id: str, handle: dict[str, Any], status: dict[str, Any]) -> None:
        self.stores.batches.submitted(id, handle, status["state"], status)

    def batch_polled(self, id: str, status: dict[str, Any], *, ended: bool) -> None:
        self.stores.batches.update(id, status["state"], status, ended=ended)

    def batches(self) -> list[JobBatch]:
        return self.stores.batches.of_job(self.job_id)

    # -- questions and the action log ------------------------------------------------------

    def park(self, token: ClaimToken, **parked: Any) -> None:
        self.stores.questions.park(token, **parked)

    def take_parked(self, pk: int) -> ParkedConversation | None:
        return self.stores.questions.take_parked(pk)

    def record(self, actions: Sequence[Action], costs: Mapping[str, JobCost]) -> None:
        self.stores.jobs.record(self.job_id, actions, costs)

    # -- the job's end ---------------------------------------------------------------------

    def finish(self, status: JobStatus, reason: str | None) -> None:
        self.stores.jobs.finish(self.job_id, status, reason)

    def settle(self, stops_seen: int | None = None) -> JobStatus:
        return self.stores.jobs.settle(self.job_id, stops_seen)

    def end(self, job: Job, *, stopped: bool = False) -> Ending:
        """Write how the job ended, once no chunk is left running here (unless the run was
        ``stopped``, which wrote it already): finished, or failed with the parts it could
        not do, unless another process still runs chunks of it or one waits for a person.
        How it ended, and what it left."""
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
        account = self.account(job)
        return Ending(jobs.get(job.id), elsewhere, failures, account.left, account.coverage)

    def account(self, job: Job) -> Account:
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
