"""Writing a new edition over a book: one transaction, and jobs that cannot go on blindly."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from honyaku.domain import BookDraft, ChapterDraft, JobKind, TranslationKind
from honyaku.domain.edition import match_edition
from honyaku.errors import UserError
from honyaku.jobs.planning import plan_chunks, split_book
from honyaku.store import Database, EditionFile, JobScope, JobStatus, Stores
from honyaku.store.schema import JobRow

from ..conftest import every_row, novel
from .conftest import migrate_to


def grown(draft: BookDraft) -> BookDraft:
    added = ChapterDraft("第4章　帰郷", ("彼は故郷の駅に降り立った。", "誰も迎えに来なかった。"))
    return BookDraft(draft.title, (*draft.chapters, added), draft.author)


def test_an_edition_matched_against_an_older_state_of_the_book_is_refused_whole(
    stores, library, book_id, database
):
    editions = stores.editions
    match = match_edition(library.whole_book(book_id), grown(novel()))
    editions.write(book_id, match, EditionFile("second.txt", None, None))
    before = every_row(database)

    with pytest.raises(UserError, match="run the update again"):
        editions.write(book_id, match, EditionFile("second.txt", None, None))

    assert every_row(database) == before


def test_a_job_running_on_the_book_refuses_the_edition(stores, library, jobs, book_id):
    scope = JobScope(book_id, JobKind.TRANSLATION, None)
    jobs.open(scope, model="m", protocol="native", planned=[])
    match = match_edition(library.whole_book(book_id), grown(novel()))

    with pytest.raises(UserError, match="is running on this book: stop it first"):
        stores.editions.write(book_id, match, EditionFile("x.txt", None, None))


@pytest.mark.parametrize(
    ("status", "refusal"),
    [(JobStatus.QUEUED, "is queued"), (JobStatus.WAITING, "waits for an answer")],
)
def test_a_job_in_the_queue_or_waiting_for_an_answer_refuses_the_edition(
    stores, library, jobs, book_id, database, status, refusal
):
    # Given a job that a worker will take up, or one whose chunk is parked on a question
    scope = JobScope(book_id, JobKind.TRANSLATION, None)
    planned = plan_chunks(
        split_book(
            library.whole_book(book_id), JobKind.TRANSLATION, retranslate=False, written=set()
        )
    )
    job, _ = jobs.open(
        scope, model="m", protocol="native", planned=planned, queued=lambda session, job: None
    )
    with database.transaction() as session:
        session.execute(sa.update(JobRow).where(JobRow.id == job.id).values(status=status))
    before = every_row(database)
    match = match_edition(library.whole_book(book_id), grown(novel()))

    # When a new edition is written, then it is refused and the job's chunks stay
    with pytest.raises(UserError, match=f"{refusal} on this book: stop it first"):
        stores.editions.write(book_id, match, EditionFile("x.txt", None, None))
    assert every_row(database) == before


def test_an_unfinished_job_plans_again_over_the_new_edition_when_resumed(
    stores, library, jobs, book_id
):
    scope = JobScope(book_id, JobKind.TRANSLATION, None)
    planned = plan_chunks(
        split_book(
            library.whole_book(book_id), JobKind.TRANSLATION, retranslate=False, written=set()
        )
    )
    job, _ = jobs.open(scope, model="m", protocol="native", planned=planned)
    jobs.finish(job.id, JobStatus.INTERRUPTED)
    match = match_edition(library.whole_book(book_id), grown(novel()))
    stores.editions.write(book_id, match, EditionFile("x.txt", None, None))

    replanned = plan_chunks(
        split_book(
            library.whole_book(book_id), JobKind.TRANSLATION, retranslate=False, written=set()
        )
    )
    resumed, was_resumed = jobs.open(scope, model="m", protocol="native", planned=replanned)

    assert (resumed.id, was_resumed) == (job.id, True)
    chapters = {item.planned.chapter_number for item in stores.chunks.items(job.id)}
    assert chapters == {1, 2, 3, 4}


def test_a_new_translation_or_title_makes_a_stale_one_fresh(stores, library, book_id):
    book = library.whole_book(book_id)
    first = book.chapters[0]
    paragraph = first.work_paragraphs[0]
    library.add_translations(book_id, {paragraph.id: "旧译"}, kind=TranslationKind.TRANSLATION)
    library.set_chapter_title(book_id, first.id, "第一章")
    draft = novel()
    edited = ChapterDraft(
        "第1章　出発",
        (draft.chapters[0].paragraphs[0] + "そして", *draft.chapters[0].paragraphs[1:]),
    )
    new = BookDraft(draft.title, (edited, *draft.chapters[1:]), draft.author)
    stores.editions.write(book_id, match_edition(book, new), EditionFile("x.txt", None, None))
    stale = library.whole_book(book_id).chapters[0]
    assert stale.paragraphs[0].previous_source == paragraph.text
    assert stale.previous_title == first.title

    library.add_translations(book_id, {paragraph.id: "新译"}, kind=TranslationKind.MANUAL)
    library.set_chapter_title(book_id, first.id, "第一章　出发")

    fresh = library.whole_book(book_id).chapters[0]
    assert (fresh.paragraphs[0].previous_source, fresh.previous_title) == (None, None)
    old_version = library.versions(book_id, paragraph.id)[0]
    library.select_version(book_id, paragraph.id, old_version.id)
    assert library.paragraphs(book_id, [paragraph.id])[paragraph.id].is_stale


def test_a_library_of_the_revision_before_editions_migrates_with_every_version(
    empty_database_url,
):
    migrate_to(empty_database_url, "0010")
    engine = sa.create_engine(empty_database_url)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO books (id, title, source_lang, target_lang, settings, created_at) "
            "VALUES ('b0000001', '本', 'ja', 'zh-CN', '{}', '2024-01-01 00:00:00')"
        )
        connection.exec_driver_sql(
            "INSERT INTO chapters (pk, book_id, id, position, title) "
            "VALUES (1, 'b0000001', 'c0000001', 0, '一')"
        )
        connection.exec_driver_sql(
            "INSERT INTO paragraphs (pk, book_id, chapter_pk, id, position, text) "
            "VALUES (1, 'b0000001', 1, 'p0000001', 0, '本文')"
        )
        connection.exec_driver_sql(
            "INSERT INTO translations (paragraph_pk, text, kind, created_at, selected) "
            "VALUES (1, '正文', 'translation', '2024-01-01 00:00:00', TRUE)"
        )
    engine.dispose()

    stores = Stores.over(Database.open(url=empty_database_url, migrate=True))

    assert stores.library.whole_book("b0000001").chapters[0].paragraphs[0].translation == "正文"
    assert [e.number for e in stores.editions.history("b0000001")] == [1]
