"""``honyaku db``: the database's schema, brought up to date once for a shared database."""

from __future__ import annotations

import typer
from rich.markup import escape

from honyaku.application import SchemaState, database_schema, upgrade_database
from honyaku.cli.console import out
from honyaku.cli.options import Home

db_app = typer.Typer(
    help="The database: where it is, its schema's revision, and bringing it up to date. "
    "Set HONYAKU_DATABASE_URL for a shared PostgreSQL database; without it, the SQLite file "
    "in the home.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@db_app.command()
def upgrade(home: Home = None) -> None:
    """Bring the database's schema up to date: once for a shared PostgreSQL database, before
    any server or worker uses it (they refuse one that is not), and again after installing a
    newer honyaku. The embedded SQLite file is brought up to date whenever it is opened."""
    url, before = upgrade_database(home)
    where = escape(url)
    if before.up_to_date:
        out.print(f"{where} is up to date (revision {before.latest}).")
        return
    start = "an empty database" if before.current is None else f"revision {before.current}"
    out.print(f"Upgraded {where} from {start} to revision {before.latest}:")
    for migration in before.pending:
        out.print(f"  {migration.revision}  {migration.does}")


@db_app.command()
def status(home: Home = None) -> None:
    """Show the database's address (its password masked), its schema's revision and the
    migrations it lacks. Changes nothing."""
    url, state = database_schema(home)
    out.print(f"database  {escape(url)}")
    out.print(f"revision  {_revision(state)}")
    for n, migration in enumerate(state.pending):
        out.print(f"{'pending' if n == 0 else '':<8}  {migration.revision}  {migration.does}")
    if state.pending:
        out.print("Run `honyaku db upgrade` to bring it up to date.")


def _revision(state: SchemaState) -> str:
    if state.up_to_date:
        return f"{state.current} (up to date)"
    if state.ahead:
        return f"{state.current} (newer than this honyaku's {state.latest}: upgrade honyaku)"
    found = "none, an empty database" if state.current is None else state.current
    return f"{found} (this honyaku needs {state.latest})"
