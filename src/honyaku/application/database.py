"""The database itself: where it is, its schema's revision, and bringing it up to date.

Not a ``Honyaku`` use case: ``Honyaku.open`` refuses a shared database whose schema is behind,
and these are what bring it up to date (``honyaku db``).
"""

from __future__ import annotations

from pathlib import Path

from honyaku.store import Database, SchemaState


def database_schema(home: Path | None = None) -> tuple[str, SchemaState]:
    """The database's address (its password masked) and its schema's state; changes nothing."""
    database = Database.open(home, migrate=False)
    try:
        return database.shown_url, database.schema()
    finally:
        database.close()


def upgrade_database(home: Path | None = None) -> tuple[str, SchemaState]:
    """Run the migrations the schema lacks, in one transaction under a lock; the database's
    address and the state it was found in."""
    database = Database.open(home, migrate=False)
    try:
        return database.shown_url, database.upgrade()
    finally:
        database.close()
