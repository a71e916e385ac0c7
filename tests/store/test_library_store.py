"""The library and job tables, directly: ids, versions, neighbours, jobs and their owners."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta

import pytest
from sqlalchemy import update

from honyaku.domain import BookDraft, ChapterDraft, JobKind, TranslationKind
from honyaku.errors import NotFoundError, UserError
from honyaku.store import (
    Action,
    ActionKind,
    ChunkStatus,
    ChunkStore,
    JobCost,
    JobScope,
    JobStatus,
    PlannedChunk,
)
from honyaku.store.leases import CLAIM_TIMEOUT_S
from honyaku.store.schema import JobRow, utc_now

CLAIM_TIMEOUT = timedelta(seconds=CLAIM_TIMEOUT_S)


def test_a_book_is_found_by_its_id_or_an_unambiguous_prefix(library, book_id):
    assert library.resolve(book_id) == book_id
    assert library.resolve(book_id[:4]) == book_id
    with pytest.raises(NotFoundError, match="no book"):
        library.resolve(book_id[:3])


def test_a_short_prefix_shared_by_several_books_is_called_ambiguous(library):
    # Seventeen ids over sixteen hex digits: two of them share their first character.
    draft = BookDraft("短い本", (ChapterDraft("第一章", ("本文。",)),))
    ids = [library.add_book(draft, source_lang="ja", target_lang="zh-CN") for _ in range(17)]
    shared = Counter(book_id[0] for book_id in ids).most_common(1)[0][0]

    with pytest.raises(NotFoundError, match="ambiguous") as refused:
        library.resolve(shared)

    assert "at least 4 characters" in str(refused.value)
    assert "no book" not in str(refused.value)


@pytest.mark.parametrize("ref", ["____", "%", "zzzz", "1a2b3c4d5e"])
def test_anything_but_hex_is_not_a_book_id(library, book_id, ref):
    with pytest.raises(NotFoundError):
        library.resolve(ref)


def test_a_batch_naming_an_unknown_paragraph_writes_nothing(library, book_id):
    first = library.whole_book(book_id).chapters[0].paragraphs[0]

    with pytest.raises(NotFoundError):
        library.add_translations(
            book_id, {first.id: "译文", "ffffffff": "幻"}, kind=TranslationKind.TRANSLATION
        )

    assert library.versions(book_id, first.id) == []


def test_text_with_a_nul_character_is_refused_on_every_database_and_nothing_is_written(
    library, book_id
):
    paragraph = library.whole_book(book_id).chapters[0].work_paragraphs[0]

    with pytest.raises(UserError, match="NUL"):
        library.add_manual_version(book_id, paragraph.id, "前半\x00後半")

    assert library.versions(book_id, paragraph.id) == []


def test_every_version_is_kept_and_exactly_one_is_selected(library, book_id):
    first = library.whole_book(book_id).chapters[0].paragraphs[0]

    for text, kind in [
        ("一", TranslationKind.TRANSLATION),
        ("二", TranslationKind.POLISH),
        ("三", TranslationKind.MANUAL),
    ]:
        library.add_translations(book_id, {first.id: text}, kind=kind)

    versions = library.versions(book_id, first.id)
    assert [(v.text, v.selected) for v in versions] == [
        ("一", False),
        ("二", False),
        ("三", True),
    ]
    assert library.whole_book(book_id).chapters[0].paragraphs[0].translation == "三"


def test_neighbours_cross_chapters_and_skip_empty_paragraphs(library, book_id):
    chapters = library.whole_book(book_id).chapters
    last = chapters[0].work_paragraphs[-1]

    after = library.neighbours(book_id, last.id, "after", 2)
    before = library.neighbours(book_id, chapters[1].paragraphs[0].id, "before", 3)

    assert [(n.chapter_number, n.paragraph.index) for n in after] == [(2, 0), (2, 1)]
    assert [n.paragraph.id for n in before] == [p.id for p in chapters[0].work_paragraphs[-3:]]
    assert all(n.paragraph.text for n in before + after)


def test_settings_are_validated_and_kept_per_book(library, book_id):
    library.update_settings(book_id, skip_ask_user=True, chunk_chars=1200)

    settings = library.settings(book_id)

    assert (settings.skip_ask_user, settings.chunk_chars) == (True, 1200)


def open_job(jobs, book_id: str, chapters=None, kind=JobKind.TRANSLATION, planned=()):
    scope = JobScope(book_id, kind, chapters)
    return jobs.open(scope, model="m", protocol="native", planned=planned)


def test_an_unfinished_job_over_the_same_chapters_is_reopened(jobs, book_id):
    job, _ = open_job(jobs, book_id, [1, 2])
    jobs.finish(job.id, JobStatus.INTERRUPTED)

    again, resumed = open_job(jobs, book_id, [1, 2])
    other_scope, _ = open_job(jobs, book_id, None)
    other_kind, _ = open_job(jobs, book_id, [1, 2], JobKind.POLISH)

    assert (again.id, resumed) == (job.id, True)
    assert job.id not in (other_scope.id, other_kind.id)


def test_cost_adds_up_across_turns_and_is_kept_by_the_model_that_spent_it(jobs, book_id):
    job, _ = open_job(jobs, book_id)

    jobs.record(
        job.id,
        [Action(ActionKind.NUDGE, payload={"text": "go on"})],
        {"first": JobCost(requests=1, input_tokens=10)},
    )
    jobs.record(job.id, [], {"first": JobCost(requests=1, retries=1, input_tokens=5)})
    jobs.record(job.id, [], {"fallback": JobCost(requests=1, input_tokens=7)})

    stored = jobs.get(job.id)
    assert stored.cost == JobCost(requests=3, retries=1, input_tokens=22)
    assert stored.costs == {
        "fallback": JobCost(requests=1, input_tokens=7),
        "first": JobCost(requests=2, retries=1, input_tokens=15),
    }
    assert [a.action.kind for a in jobs.actions(book_id)] == [ActionKind.NUDGE]


def test_a_lease_lives_while_its_heartbeat_is_fresh_whatever_its_host_or_process_id(
    jobs, book_id, database
):
    job, _ = open_job(jobs, book_id)
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )

    _own(database, job.id, f"{socket.gethostname()}:{ended.stdout.strip()}:a1b2c3", utc_now())
    on_this_host = jobs.get(job.id)
    _own(database, job.id, "another-host:7:d4e5f6", utc_now() - CLAIM_TIMEOUT)
    silent = jobs.get(job.id)

    assert on_this_host.lease.held_elsewhere(utc_now())
    assert on_this_host.shown_status is JobStatus.RUNNING
    assert not silent.lease.is_live(utc_now())
    assert silent.shown_status is JobStatus.INTERRUPTED


def test_a_claim_leaves_out_paragraphs_a_live_chunk_of_another_job_holds(
    library, jobs, book_id, database
):
    ids = tuple(p.id for p in library.whole_book(book_id).chapters[0].work_paragraphs)
    first = PlannedChunk("c1", 1, 1, 1, ids[:6], True)
    second = PlannedChunk("c1", 1, 1, 1, ids[4:], True)
    a, _ = open_job(jobs, book_id, [1], planned=[first])
    b, _ = open_job(jobs, book_id, [1, 2], planned=[second])
    chunks = ChunkStore(database)

    held = chunks.claim(chunks.items(a.id)[0].pk)
    claim = chunks.claim(chunks.items(b.id)[0].pk)
    chunks.finish(held.token, ChunkStatus.DONE)
    after = chunks.claim(chunks.items(b.id)[0].pk)

    assert claim.busy == ids[4:6]
    assert claim.free == ids[6:]
    assert after.busy == ()


def _own(database, job_id: str, owner: str, beat: datetime) -> None:
    with database.transaction() as session:
        session.execute(
            update(JobRow).where(JobRow.id == job_id).values(owner=owner, heartbeat_at=beat)
        )
