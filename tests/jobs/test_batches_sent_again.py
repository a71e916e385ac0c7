"""A batch sent again changes nothing: a model that lost track of what it saved and sends it
again word for word, over real HTTP in both protocols, stores no second version of any
paragraph; the result says the batch was already saved and what is left, and counts nothing
as accepted. A different text is a new version, as ever; a job whose texts the book already
held wrote nothing and is done all the same."""

from __future__ import annotations

import pytest

from honyaku.domain import JobKind
from honyaku.store import Library
from honyaku.testing import Mistake, ScriptedTranslator, pseudo_revision, pseudo_translation

from .conftest import (
    RunJob,
    assert_one_version_each,
    assert_translated_in_place,
    engine,
    tool_results,
)

# What a job writes, claims and resumes, on both databases.
pytestmark = pytest.mark.backends("sqlite", "postgresql")

PER_PART = 30
"""Work paragraphs of the test's book: its three short chapters share one part."""


def version_counts(library: Library, book_id: str) -> dict[str, int]:
    return {
        p.id: len(library.versions(book_id, p.id))
        for chapter in library.whole_book(book_id).chapters
        for p in chapter.work_paragraphs
    }


def test_an_accepted_batch_sent_again_word_for_word_stores_no_version(
    run_job: RunJob, library, jobs, fake_model, book_id
):
    fake_model.translator = ScriptedTranslator.stepwise(mistakes={Mistake.RESEND_BATCH})

    outcome, _ = run_job(fake_model, book_id)

    assert outcome.ok
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)
    batches = tool_results(jobs, book_id, "add_translation_batch")
    assert sorted(r["accepted"] for r in batches) == [0, PER_PART]
    for again in (r for r in batches if not r["accepted"]):
        assert again["success"]
        assert again["already_saved"] == PER_PART
        assert len(again["already_saved_ids"]) == 5
        assert (again["remaining"], again["next"]) == (
            0,
            'update_task_status("review") and update_task_status("end"), in one reply',
        )


def test_a_batch_sent_again_before_the_rest_says_what_is_left(
    run_job: RunJob, library, jobs, fake_model, book_id
):
    fake_model.translator = ScriptedTranslator(
        calls_per_reply=1, batch_size=4, mistakes={Mistake.RESEND_BATCH}
    )

    outcome, _ = run_job(fake_model, book_id, chapters=[1])

    assert outcome.ok
    [first, again, *rest] = tool_results(jobs, book_id, "add_translation_batch")
    assert (first["accepted"], again["accepted"], again["already_saved"]) == (4, 0, 4)
    work = library.whole_book(book_id).chapters[0].work_paragraphs
    assert again["already_saved_ids"] == [p.id for p in work[:4]]
    assert (again["remaining"], again["remaining_ids"]) == (6, [p.id for p in work[4:9]])
    assert [r["accepted"] for r in rest] == [4, 2]
    assert set(version_counts(library, book_id).values()) == {0, 1}


def test_a_second_job_writing_the_texts_a_book_holds_stores_no_version(
    run_job: RunJob, stores, library, fake_model, book_id
):
    run_job(fake_model, book_id)
    before = version_counts(library, book_id)

    outcome, _ = run_job(fake_model, book_id, retranslate=True)

    assert outcome.ok
    assert version_counts(library, book_id) == before == dict.fromkeys(before, 1)
    assert_translated_in_place(library, book_id)
    # The job wrote no version, and is done with every paragraph all the same
    stored = engine(stores).progress(outcome.job.id)
    assert stored.paragraphs_done == stored.paragraphs_total == 30


def test_a_polish_that_sends_translations_back_unchanged_stores_nothing_new(
    run_job: RunJob, stores, library, jobs, fake_model, book_id
):
    run_job(fake_model, book_id)
    fake_model.translator = ScriptedTranslator.stepwise(
        revises=False, mistakes={Mistake.RESEND_BATCH}
    )

    outcome, _ = run_job(fake_model, book_id, JobKind.POLISH)

    assert outcome.ok
    assert_one_version_each(library, book_id)
    assert_translated_in_place(library, book_id)
    stored = engine(stores).progress(outcome.job.id)
    assert stored.paragraphs_done == stored.paragraphs_total == 30
    polish = tool_results(jobs, book_id, "add_translation_batch")[-2:]
    assert sorted((r["accepted"], r.get("already_saved", 0)) for r in polish) == [
        (0, PER_PART),
        (PER_PART, 0),
    ]


def test_a_polish_batch_sent_again_keeps_one_polished_version(
    run_job: RunJob, library, jobs, fake_model, book_id
):
    run_job(fake_model, book_id)
    fake_model.translator = ScriptedTranslator.stepwise(mistakes={Mistake.RESEND_BATCH})

    outcome, _ = run_job(fake_model, book_id, JobKind.POLISH)

    assert outcome.ok
    for chapter in library.whole_book(book_id).chapters:
        for paragraph in chapter.work_paragraphs:
            versions = library.versions(book_id, paragraph.id)
            assert [(v.kind, v.text) for v in versions] == [
                ("translation", pseudo_translation(paragraph.text)),
                ("polish", pseudo_revision(pseudo_translation(paragraph.text), "polish")),
            ]
    polish = tool_results(jobs, book_id, "add_translation_batch")[-2:]
    assert sorted(r["accepted"] for r in polish) == [0, PER_PART]
