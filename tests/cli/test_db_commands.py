"""``honyaku db status`` and ``honyaku db upgrade``, and what opening a database that is not up
to date does: the embedded SQLite file migrates itself, a shared database waits for the
upgrade."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, make_url, text

from honyaku.store.revisions import migrations

from .conftest import honyaku

pytestmark = pytest.mark.backends("sqlite", "postgresql")
LATEST = migrations()[-1].revision


@pytest.fixture
def empty(empty_database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HONYAKU_DATABASE_URL", empty_database_url)
    return empty_database_url


def test_status_shows_what_is_missing_and_upgrade_runs_it_once(empty):
    before = honyaku("db", "status").stdout
    upgraded = honyaku("db", "upgrade").stdout
    after = honyaku("db", "status").stdout
    again = honyaku("db", "upgrade").stdout

    assert "revision  none, an empty database" in before
    assert "pending   0001  create library" in before
    assert "Run `honyaku db upgrade`" in before
    assert f"from an empty database to revision {LATEST}:" in upgraded
    assert "0012  count stops and keep chunk workflow status" in upgraded
    assert f"{LATEST}  {migrations()[-1].does}" in upgraded
    assert f"revision  {LATEST} (up to date)" in after
    assert "pending" not in after
    assert f"is up to date (revision {LATEST})" in again


def test_the_sqlite_file_migrates_itself_and_a_shared_database_waits_for_the_upgrade(
    empty, backend
):
    listed = honyaku("books", check=False)

    if backend == "sqlite":
        assert listed.returncode == 0
        assert f"revision  {LATEST} (up to date)" in honyaku("db", "status").stdout
    else:
        assert listed.returncode == 2
        assert f"the database is empty and this honyaku needs revision {LATEST}" in (
            listed.stderr.replace("\n", " ")
        )
        assert "run `honyaku db upgrade` once" in listed.stderr
        assert "revision  none" in honyaku("db", "status").stdout


def test_a_database_a_newer_honyaku_upgraded_is_refused(empty):
    honyaku("db", "upgrade")
    engine = create_engine(empty)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()

    listed = honyaku("books", check=False)
    status = honyaku("db", "status").stdout

    assert listed.returncode == 2
    assert f"revision 9999, newer than this honyaku knows ({LATEST}): upgrade honyaku" in (
        listed.stderr.replace("\n", " ")
    )
    assert "9999 (newer than" in status


@pytest.mark.backends("postgresql")
def test_status_never_shows_the_password(empty, monkeypatch):
    url = make_url(empty).set(password="hunter2-secret")
    monkeypatch.setenv("HONYAKU_DATABASE_URL", url.render_as_string(hide_password=False))

    shown = honyaku("db", "status").stdout + honyaku("db", "upgrade").stdout

    assert "hunter2" not in shown
    assert "postgres:***@127.0.0.1" in shown
