"""The schema's numbered migrations (Alembic), and bringing a database up to date.

Migrations are named ``NNNN_what_it_does.py`` and their revision id is ``NNNN``. An upgrade
holds a lock for its whole run (SQLite's write lock, a PostgreSQL advisory lock) and reads the
revision again once it has it: of several processes upgrading at once, one migrates and the
others find nothing left to do. On SQLite, foreign keys are off while it runs (a batch
migration copies a table) and checked before it commits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, func, inspect, select, text

from honyaku.errors import ConfigError, StoreError

MIGRATIONS = Path(__file__).with_name("migrations")
UPGRADE_LOCK = 0x686F6E79
"""The PostgreSQL advisory lock an upgrade holds ("hony")."""


@dataclass(frozen=True, slots=True)
class Migration:
    revision: str
    does: str
    """What it does, from its file name."""


@dataclass(frozen=True, slots=True)
class SchemaState:
    current: str | None
    """The database's revision; ``None`` for an empty database."""
    pending: tuple[Migration, ...]

    @property
    def latest(self) -> str:
        return migrations()[-1].revision

    @property
    def up_to_date(self) -> bool:
        return not self.pending and not self.ahead

    @property
    def ahead(self) -> bool:
        """Written by a newer honyaku, with migrations this one does not know."""
        return self.current is not None and self.current > self.latest


def migrations() -> list[Migration]:
    """Every migration, oldest first."""
    paths = sorted((MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))
    return [Migration(path.name[:4], path.stem[5:].replace("_", " ")) for path in paths]


def schema_state(engine: Engine) -> SchemaState:
    with engine.connect() as connection:
        return _state(connection)


def upgrade(engine: Engine) -> SchemaState:
    """Run the pending migrations, all in one transaction; the state found before."""
    with engine.connect() as connection, _foreign_keys_off(connection), connection.begin():
        _lock(connection)
        before = _state(connection)
        _refuse_ahead(before)
        if before.pending:
            _run_migrations(connection)
            _check_foreign_keys(connection)
        return before


def require_latest(engine: Engine) -> None:
    """Refuse a shared database whose schema is not the one this honyaku needs."""
    state = schema_state(engine)
    _refuse_ahead(state)
    if state.up_to_date:
        return
    found = "is empty" if state.current is None else f"is at revision {state.current}"
    raise ConfigError(
        f"the database {found} and this honyaku needs revision {state.latest}: "
        "run `honyaku db upgrade` once (see `honyaku db status`)"
    )


def _lock(connection: Connection) -> None:
    """Hold the upgrade's lock until its transaction ends."""
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        connection.execute(select(func.pg_advisory_xact_lock(UPGRADE_LOCK)))


@contextmanager
def _foreign_keys_off(connection: Connection) -> Iterator[None]:
    """On SQLite, a batch migration copies a table and drops the old one: with foreign keys
    on, the drop would cascade to every row pointing at it (Alembic's advice: turn them off).
    The switch only takes outside a transaction."""
    if connection.dialect.name != "sqlite":
        yield
        return
    connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    connection.commit()
    try:
        yield
    finally:
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")
        connection.commit()


def _check_foreign_keys(connection: Connection) -> None:
    if connection.dialect.name == "sqlite":
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
        if broken is not None:
            raise StoreError(f"a migration left a row of {broken[0]} pointing nowhere")


def _refuse_ahead(state: SchemaState) -> None:
    if state.ahead:
        raise ConfigError(
            f"the database is at revision {state.current}, newer than this honyaku knows "
            f"({state.latest}): upgrade honyaku"
        )


def _state(connection: Connection) -> SchemaState:
    current = None
    if inspect(connection).has_table("alembic_version"):
        current = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    pending = tuple(m for m in migrations() if current is None or m.revision > current)
    return SchemaState(current, pending)


def _run_migrations(connection: Connection) -> None:
    # Alembic costs a quarter second to import: only when there is something to migrate.
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
