"""Where the database lives, how it is opened, and its migrations.

SQLite is the default: one file under the honyaku home, in WAL mode so a reader never
blocks the job that writes. Any SQLAlchemy URL works through ``HONYAKU_DATABASE_URL``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from honyaku.errors import ConfigError, StoreError

DATABASE_FILE = "honyaku.db"
SQLITE_BUSY_TIMEOUT_MS = 30_000
_MIGRATIONS = Path(__file__).with_name("migrations")


def resolve_home(explicit: Path | None = None) -> Path:
    """``--home``, else ``$HONYAKU_HOME``, else the user data dir."""
    if explicit is not None:
        return explicit
    if env := os.environ.get("HONYAKU_HOME"):
        return Path(env)
    return platformdirs.user_data_path("honyaku")


class Database:
    """An engine with the schema migrated to the latest version."""

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            self.engine = _create_engine(url)
            _migrate(self.engine)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open the database: {_first_line(exc)}") from exc
        except ModuleNotFoundError as exc:
            raise ConfigError(
                f"the database driver {exc.name!r} is not installed; for PostgreSQL: "
                "pip install 'honyaku[postgres]'"
            ) from exc

    @classmethod
    def open(cls, home: Path | None = None) -> Database:
        if url := os.environ.get("HONYAKU_DATABASE_URL"):
            return cls(url)
        folder = resolve_home(home)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot use {folder} as honyaku's home: {exc.strerror}") from exc
        return cls(f"sqlite:///{folder / DATABASE_FILE}")

    @contextmanager
    def transaction(self, *, exclusive: bool = False) -> Iterator[Session]:
        """A session whose work is committed whole at the end, or not at all.

        ``exclusive`` takes SQLite's write lock when the transaction begins, so that a check
        and the write it allows cannot interleave with another process doing the same
        (claiming work, opening a job). Elsewhere, callers lock a row ``FOR UPDATE``.
        """
        engine = self.engine.execution_options(exclusive=exclusive) if exclusive else self.engine
        try:
            with Session(engine, expire_on_commit=False) as session, session.begin():
                yield session
        except SQLAlchemyError as exc:
            raise StoreError(f"database error: {_first_line(exc)}") from exc

    def close(self) -> None:
        self.engine.dispose()


def _create_engine(url: str) -> Engine:
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        # Otherwise the driver begins by itself, just before the first write, so that reads
        # hold no snapshot a write would then have to upgrade.
        if connection.get_execution_options().get("exclusive"):
            connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _migrate(engine: Engine) -> None:
    if _current_revision(engine) == _latest_revision():
        return
    # Alembic costs a quarter second to import: only when there is something to migrate.
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    with engine.connect() as connection, _foreign_keys_off(connection), connection.begin():
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        _check_foreign_keys(connection)


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


def _current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return None
        return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _latest_revision() -> str:
    """Migrations are named ``NNNN_what_it_does.py`` and their revision id is ``NNNN``."""
    return max(path.name[:4] for path in (_MIGRATIONS / "versions").glob("[0-9]*.py"))


def _first_line(exc: BaseException) -> str:
    return str(getattr(exc, "orig", None) or exc).splitlines()[0]
