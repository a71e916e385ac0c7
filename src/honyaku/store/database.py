"""Where the database lives, and how it is opened.

SQLite is the default: one file under the honyaku home, in WAL mode so a reader never
blocks the job that writes. Only this machine uses it, so opening it brings its schema up to
date. A shared database (PostgreSQL, through ``HONYAKU_DATABASE_URL``) is brought up to date
once, by ``honyaku db upgrade``: the servers and workers that open it only check that it is,
so that many of them starting at once never race to migrate it.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import URL, Engine, create_engine, event, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session

from honyaku.errors import ConfigError, StoreError, UserError
from honyaku.store.revisions import SchemaState, require_latest, schema_state, upgrade

DATABASE_FILE = "honyaku.db"
DATABASE_URL_VARIABLE = "HONYAKU_DATABASE_URL"
SQLITE_BUSY_TIMEOUT_MS = 30_000
POSTGRESQL_DRIVER = "postgresql+psycopg"


def resolve_home(explicit: Path | None = None) -> Path:
    """``--home``, else ``$HONYAKU_HOME``, else the user data dir."""
    if explicit is not None:
        return explicit
    if env := os.environ.get("HONYAKU_HOME"):
        return Path(env)
    return platformdirs.user_data_path("honyaku")


def database_url(home: Path | None = None) -> str:
    """``$HONYAKU_DATABASE_URL``, else the SQLite file in the honyaku home."""
    if url := os.environ.get(DATABASE_URL_VARIABLE):
        return url
    folder = resolve_home(home)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot use {folder} as honyaku's home: {exc.strerror}") from exc
    return f"sqlite:///{folder / DATABASE_FILE}"


class Database:
    """An engine on one database; ``Database.open`` also sees to its schema."""

    def __init__(self, url: str) -> None:
        self.url = _with_driver(url)
        try:
            self.engine = _create_engine(self.url)
            # A database dropped without close() still closes its connections, in good order:
            # a PostgreSQL server keeps a process for each connection left open.
            weakref.finalize(self, self.engine.dispose)
        except ModuleNotFoundError as exc:
            raise ConfigError(
                "the database driver {driver!r} is not installed; for PostgreSQL: "
                "pip install 'honyaku[postgres]'",
                driver=exc.name,
            ) from exc
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open the database: {_first_line(exc)}") from exc

    @classmethod
    def open(
        cls, home: Path | None = None, *, url: str | None = None, migrate: bool | None = None
    ) -> Database:
        """The database at ``url``, else ``$HONYAKU_DATABASE_URL``, else the home's SQLite
        file. ``migrate=True`` brings its schema up to date, ``False`` leaves it as it is; by
        default the embedded SQLite file is brought up to date, and a shared database must
        already be (``honyaku db upgrade``)."""
        database = cls(url or database_url(home))
        try:
            if migrate or (migrate is None and database.embedded):
                database.upgrade()
            elif migrate is None:
                database.require_latest()
        except BaseException:
            database.close()
            raise
        return database

    def schema(self) -> SchemaState:
        """The schema's revision, and the migrations it still lacks."""
        with self._reaching():
            return schema_state(self.engine)

    def upgrade(self) -> SchemaState:
        """Run the migrations the schema lacks, all in one transaction; the state before."""
        with self._reaching():
            return upgrade(self.engine)

    def require_latest(self) -> None:
        """Refuse a schema that is not the one this honyaku needs."""
        with self._reaching():
            require_latest(self.engine)

    @contextmanager
    def _reaching(self) -> Iterator[None]:
        try:
            yield
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open the database: {_first_line(exc)}") from exc

    @property
    def embedded(self) -> bool:
        """SQLite: a file only this machine's processes use."""
        return self.engine.dialect.name == "sqlite"

    @property
    def shown_url(self) -> str:
        """The URL with its password masked."""
        return self.engine.url.render_as_string(hide_password=True)

    @contextmanager
    def transaction(self, *, exclusive: bool = False) -> Iterator[Session]:
        """A session whose work is committed whole at the end, or not at all.

        ``exclusive`` takes SQLite's write lock when the transaction begins, so that a check
        and the write it allows cannot interleave with another process doing the same
        (claiming work, opening a job). On PostgreSQL, callers lock rows ``FOR UPDATE``.
        """
        engine = self.engine.execution_options(exclusive=exclusive) if exclusive else self.engine
        try:
            with Session(engine, expire_on_commit=False) as session, session.begin():
                yield session
        except SQLAlchemyError as exc:
            raise StoreError(f"database error: {_first_line(exc)}") from exc

    def close(self) -> None:
        self.engine.dispose()


def _with_driver(url: str) -> str:
    """PostgreSQL URLs as people write them (``postgresql://``, ``postgres://``) name psycopg,
    the driver ``honyaku[postgres]`` installs."""
    try:
        parsed: URL = make_url(url)
    except ArgumentError as exc:
        raise ConfigError(f"{DATABASE_URL_VARIABLE} is not a database URL: {exc}") from exc
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername=POSTGRESQL_DRIVER)
    return parsed.render_as_string(hide_password=False)


def _create_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
        _configure_sqlite(engine)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    event.listen(engine, "before_cursor_execute", _refuse_nul)
    return engine


def _refuse_nul(
    _connection: Any, _cursor: Any, _statement: str, parameters: Any, *_rest: Any
) -> None:
    """PostgreSQL cannot hold U+0000 in text, and it is nobody's real text: refused on every
    database alike, with a reason, before any driver sees it."""
    rows = parameters if isinstance(parameters, list) else [parameters]
    for row in rows:
        values = row.values() if isinstance(row, dict) else row or ()
        if any(isinstance(value, str) and "\x00" in value for value in values):
            raise UserError("text cannot hold the NUL character (U+0000)")


def _configure_sqlite(engine: Engine) -> None:
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


def _first_line(exc: BaseException) -> str:
    return str(getattr(exc, "orig", None) or exc).splitlines()[0]
