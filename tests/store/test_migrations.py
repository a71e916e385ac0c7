"""The numbered migrations and the tables the code declares never drift apart, on SQLite and
on PostgreSQL, and an upgrade keeps what the database held."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, text

from honyaku.store import Database, JobStore
from honyaku.store.revisions import migrations
from honyaku.store.schema import Base

from .conftest import migrate_to


def test_an_empty_database_migrated_to_the_latest_revision_has_exactly_the_declared_tables(
    empty_database_url,
):
    database = Database.open(url=empty_database_url, migrate=True)
    try:
        with database.engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        state = database.schema()
    finally:
        database.close()

    assert differences == []
    assert state.up_to_date
    assert state.current == migrations()[-1].revision


def test_an_upgrade_keeps_the_jobs_and_chunks_the_database_held(empty_database_url):
    migrate_to(empty_database_url, "0010")
    engine = create_engine(empty_database_url)
    with engine.begin() as connection:
        for statement in _A_BOOK_WITH_A_STOPPED_JOB_AND_A_CHUNK:
            connection.execute(text(statement))
    engine.dispose()

    database = Database.open(url=empty_database_url, migrate=True)
    try:
        job = JobStore(database).get("0b0b0b0b")
        with database.engine.connect() as connection:
            chunks = connection.execute(text("SELECT job_id FROM job_chunks")).scalars().all()
    finally:
        database.close()

    assert (job.status, job.stop_requests) == ("interrupted", 0)
    assert chunks == ["0b0b0b0b"]


_A_BOOK_WITH_A_STOPPED_JOB_AND_A_CHUNK = (
    "INSERT INTO books (id, title, source_lang, target_lang, settings, created_at) "
    "VALUES ('0a0a0a0a', '本', 'ja', 'zh-CN', '{}', '2025-01-01 00:00:00')",
    "INSERT INTO jobs (id, book_id, kind, model, protocol, status, created_at, stop_requested) "
    "VALUES ('0b0b0b0b', '0a0a0a0a', 'translation', 'm', 'native', 'interrupted', "
    "'2025-01-01 00:00:00', TRUE)",
    "INSERT INTO job_chunks (job_id, book_id, chapter_id, chapter_number, number, "
    "chunks_in_chapter, paragraph_ids, shows_title, status, attempts) VALUES ('0b0b0b0b', "
    "'0a0a0a0a', 'c0c0c0c0', 1, 1, 1, '[]', TRUE, 'pending', 0)",
)
