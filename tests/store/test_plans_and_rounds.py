"""A job's plan as its rounds leave it: planning the chunks waiting to run again (as a run
learns, or as a chunk hands over what did not fit its window) never merges or resizes the
parts a round planned, and what a fallback's chunk hands back is planned alone."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from honyaku.domain import JobKind
from honyaku.domain.failures import Failure, FailureClass
from honyaku.domain.rounds import Part, split
from honyaku.store import (
    ChunkStatus,
    ChunkStore,
    Claim,
    JobScope,
    JobStore,
    Library,
    PlannedChunk,
    Stores,
)
from honyaku.store.chunks import HandedBack


def one_part_a_chapter(library: Library, book_id: str) -> list[PlannedChunk]:
    chapters = library.whole_book(book_id).chapters
    return [
        PlannedChunk(c.id, c.order, 1, 1, tuple(p.id for p in c.work_paragraphs), True)
        for c in chapters
    ]


def whole(chapter_id: str, ids: Sequence[str], title: bool, first: int) -> list[PlannedChunk]:
    """A plan that puts everything it is given into one chunk."""
    return [PlannedChunk(chapter_id, 1, first, first, tuple(ids), title)]


@pytest.fixture
def chunks(stores: Stores) -> ChunkStore:
    return stores.chunks


@pytest.fixture
def job_id(library: Library, jobs: JobStore, book_id: str) -> str:
    scope = JobScope(book_id, JobKind.TRANSLATION, None)
    job, _ = jobs.open(
        scope, model="m", protocol="native", planned=one_part_a_chapter(library, book_id)
    )
    return job.id


def failed_and_halved(chunks: ChunkStore, job_id: str) -> list[tuple[tuple[str, ...], int]]:
    """The first chapter's part failed and planned again in halves by round 2; its parts."""
    first = chunks.items(job_id)[0]
    claim = chunks.claim(first.pk)
    assert isinstance(claim, Claim)
    chunks.finish(claim.token, ChunkStatus.FAILED, Failure(FailureClass.FILTERED, "x"))
    part = Part(first.planned.paragraph_ids, first.planned.shows_title)
    chunks.retry(job_id, {first.pk: split(part)}, round=2)
    return parts_of(chunks, job_id, first.planned.chapter_id)


def parts_of(chunks: ChunkStore, job_id: str, chapter_id: str) -> list[tuple[tuple[str, ...], int]]:
    return [
        (item.planned.paragraph_ids, item.planned.round)
        for item in chunks.items(job_id)
        if item.planned.chapter_id == chapter_id
    ]


def test_a_run_that_learns_a_new_size_never_merges_the_halves_a_round_planned(
    chunks: ChunkStore, job_id: str
):
    # Given a chapter whose part failed and was split in halves by a round
    halves = failed_and_halved(chunks, job_id)
    assert [r for _, r in halves] == [2, 2]

    # When the run plans its waiting chunks again at a size that would merge them
    chunks.replan(job_id, whole)

    # Then the halves stand as the round planned them
    assert parts_of(chunks, job_id, chunks.items(job_id)[0].planned.chapter_id) == halves


def test_what_a_fallbacks_chunk_hands_back_is_planned_alone_the_rest_as_it_was(
    chunks: ChunkStore, job_id: str
):
    # Given a job of a part a chapter, the first part running with a fallback
    items = chunks.items(job_id)
    running, others = items[0], [(i.planned.paragraph_ids, i.planned.round) for i in items[1:]]
    claim = chunks.claim(running.pk)
    assert isinstance(claim, Claim)
    ids = running.planned.paragraph_ids
    kept, handed = ids[:2], ids[2:]

    # When it hands back what did not fit its window, alone
    back = HandedBack(claim.token, kept, handed, title=False)
    chunks.replan(job_id, whole, handed_back=back, alone=True)

    # Then what it handed back is a part of its own after it, and no other part changed
    after = chunks.items(job_id)
    mine = [
        i.planned.paragraph_ids for i in after if i.planned.chapter_id == running.planned.chapter_id
    ]
    assert mine == [kept, handed]
    assert [(i.planned.paragraph_ids, i.planned.round) for i in after[2:]] == others
