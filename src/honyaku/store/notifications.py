"""Changes told by the database itself (PostgreSQL's LISTEN/NOTIFY), for every process on it.

A process that keeps something in a shared database and wants the others to know at once
notifies a channel in the same transaction (``pg_notify``): the note is delivered when the
transaction commits, never if it rolls back. Listening needs a connection of its own, held
open for as long as someone listens; it waits on the network, not on the event loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from sqlalchemy import make_url

from honyaku.store.database import Database


async def notifications(database: Database, channel: str) -> AsyncIterator[str]:
    """Each note's payload on ``channel``, from now on; nothing on a database that cannot
    tell (SQLite): the listener then finds changes by reading again."""
    if database.embedded:
        return
    import psycopg
    from psycopg import sql

    conninfo = make_url(database.url).set(drivername="postgresql")
    async with await psycopg.AsyncConnection.connect(
        conninfo.render_as_string(hide_password=False), autocommit=True
    ) as connection:
        await connection.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        async for note in connection.notifies():
            yield note.payload
