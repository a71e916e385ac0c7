"""The invariant every job a test runs must keep: each work paragraph and chapter title of its
scope ends done, or listed with its reason, and what the job said of itself is what the
database holds.

Read from the database apart from the engine's own accounting (``JobRecords``): what a
paragraph's selected translation is, what the job wrote, and which of its parts have not
ended.
"""

from __future__ import annotations

from honyaku.domain import JobKind
from honyaku.domain.failures import NOT_TRANSLATED_YET
from honyaku.jobs import JobOutcome
from honyaku.jobs.records import JobRecords
from honyaku.store import JobStatus, Stores
from honyaku.store.chunks import ChunkStatus
from honyaku.store.jobs import ACTIVE


def assert_every_paragraph_accounted_for(stores: Stores, outcome: JobOutcome) -> None:
    """The job's scope is done or listed with reasons, and ``outcome`` agrees with the
    database."""
    job = stores.jobs.get(outcome.job.id)
    book = stores.library.whole_book(job.book_id, chapter_numbers=job.chapters)
    written = stores.jobs.paragraphs_done(job.id)
    only = None if job.paragraphs is None else set(job.paragraphs)
    scope, done = set(), set()
    for chapter in book.chapters:
        for paragraph in chapter.work_paragraphs:
            if only is not None and paragraph.id not in only:
                continue
            if job.kind not in (JobKind.TRANSLATION, JobKind.EXTRACTION) and (
                paragraph.translation is None
            ):
                continue
            scope.add(paragraph.id)
            translated = paragraph.translation is not None and not paragraph.is_stale
            if paragraph.id in written or (
                job.kind is JobKind.TRANSLATION and translated and not job.retranslate
            ):
                done.add(paragraph.id)
    listed = {item.id for item in outcome.left if item.position is not None}
    assert done | listed == scope, f"neither done nor listed: {sorted(scope - done - listed)}"
    assert not done & listed, f"done and listed as left: {sorted(done & listed)}"
    ended = job.status not in ACTIVE and not outcome.running_elsewhere
    for item in outcome.left:
        assert item.reason, item
        if ended:
            # Tried and failed, or not tried and why (the job was stopped, or stopped itself)
            assert item.reason != NOT_TRANSLATED_YET, item
    if job.status is JobStatus.FINISHED:
        # Nothing failed; what is left, another live job holds (it is being translated)
        assert all(item.failure is None for item in outcome.left)
        assert all(item.status is ChunkStatus.DONE for item in stores.chunks.items(job.id))
    if job.kind is JobKind.TRANSLATION and only is None:
        untitled = [c for c in book.chapters if c.translated_title is None]
        assert {c.id for c in untitled} <= {i.id for i in outcome.left if i.position is None}
    account = JobRecords(stores).account(job)
    assert outcome.left == account.left
    assert outcome.coverage == account.coverage
    assert outcome.paragraphs_done == len(done)
    assert outcome.paragraphs_total == len(scope)
