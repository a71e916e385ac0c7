"""The numbered migrations and the tables the code declares never drift apart."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from honyaku.store.schema import Base


def test_a_database_migrated_to_the_latest_revision_has_exactly_the_declared_tables(database):
    with database.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)

    assert differences == []
