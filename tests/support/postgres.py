"""A throwaway PostgreSQL cluster for the tests and the benchmarks (needs ``honyaku[test]``;
the benchmarks import it as ``tests.support.postgres``, from the repository's root).

It runs from a folder of its own on a free port, started and stopped with ``pg_ctl`` by
pytest-postgresql's executor, and trades durability for speed (no fsync: it is thrown away).
PostgreSQL refuses to run as root: started by root (as CI runs), the cluster runs as an
unprivileged user, Debian's ``postgres`` or else ``nobody``, through ``setpriv``. A template
database is migrated once; each fresh database is a copy of it, made in milliseconds.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from glob import glob
from pathlib import Path

import port_for
import psycopg
from psycopg import sql
from pytest_postgresql.executors import PostgreSQLExecutor
from pytest_postgresql.retry import retry

from honyaku.store import Database

SERVER_OPTIONS = (
    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
)
TEMPLATE = "honyaku_template"
SUPERUSER = "postgres"
UNPRIVILEGED_USERS = ("postgres", "nobody")


class Cluster:
    """A running throwaway cluster, handing out databases."""

    def __init__(self, executor: PostgreSQLExecutor) -> None:
        self.executor = executor
        # The port opens a moment before the server takes connections.
        self._admin = retry(
            lambda: psycopg.connect(
                host=executor.host, port=executor.port, user=SUPERUSER, autocommit=True
            ),
            possible_exception=psycopg.OperationalError,
        )
        # A copy of the files, not through the log: a tenth of the time for a small template.
        self._copy = " STRATEGY FILE_COPY" if self._admin.info.server_version >= 150000 else ""
        self._names = itertools.count(1)
        self._create(TEMPLATE, "template0")
        Database.open(url=self.url(TEMPLATE), migrate=True).close()

    def url(self, name: str) -> str:
        executor = self.executor
        return f"postgresql+psycopg://{SUPERUSER}@{executor.host}:{executor.port}/{name}"

    @contextmanager
    def database(self, *, migrated: bool = True) -> Iterator[str]:
        """The URL of a database of its own, migrated (a copy of the template) or empty;
        dropped afterwards, whoever is still connected to it."""
        name = f"honyaku_{next(self._names)}"
        self._create(name, TEMPLATE if migrated else "template0")
        try:
            yield self.url(name)
        finally:
            self._admin.execute(
                sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name))
            )

    def close(self) -> None:
        self._admin.close()

    def _create(self, name: str, template: str) -> None:
        statement = sql.SQL("CREATE DATABASE {} TEMPLATE {}" + self._copy)
        self._admin.execute(statement.format(sql.Identifier(name), sql.Identifier(template)))


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A cluster started now, and stopped and deleted at the end."""
    folder = Path(tempfile.mkdtemp(prefix="honyaku-postgresql-"))
    try:
        executor = PostgreSQLExecutor(
            executable=_pg_ctl(folder),
            host="127.0.0.1",
            port=port_for.select_random(),
            datadir=str(folder / "data"),
            unixsocketdir=str(folder),
            logfile=str(folder / "postgresql.log"),
            startparams="-w",
            dbname=TEMPLATE,
            user=SUPERUSER,
            postgres_options=SERVER_OPTIONS,
        )
        executor.start()
        try:
            cluster = Cluster(executor)
            try:
                yield cluster
            finally:
                cluster.close()
        finally:
            executor.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _pg_ctl(folder: Path) -> str:
    """``pg_ctl``, or for root a wrapper that runs it as an unprivileged user (who then owns
    ``folder``)."""
    installed = glob("/usr/lib/postgresql/*/bin/pg_ctl")
    newest = max(installed, key=lambda path: int(Path(path).parts[-3]), default=None)
    found = shutil.which("pg_ctl") or newest
    if found is None:
        raise RuntimeError(
            "PostgreSQL is not installed: the tests start a cluster of their own with pg_ctl "
            "(Debian: apt-get install postgresql; .ci/run installs it)"
        )
    if os.geteuid() != 0:
        return found
    user = _unprivileged_user()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("running as root needs setpriv (util-linux) to start PostgreSQL")
    os.chown(folder, user.pw_uid, user.pw_gid)
    wrapper = folder / "pg_ctl"
    command = [setpriv, f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.join([*command, "--", found])} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def _unprivileged_user() -> pwd.struct_passwd:
    for name in UNPRIVILEGED_USERS:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError(f"no unprivileged user ({', '.join(UNPRIVILEGED_USERS)}) to run PostgreSQL")
