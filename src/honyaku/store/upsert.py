"""Add a row, or replace the one with the same key, in one statement that SQLite and
PostgreSQL both run atomically (``INSERT … ON CONFLICT DO UPDATE``): two processes saving the
same key at once never both insert."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from honyaku.store.schema import Base, table_of


def upsert(session: Session, row: type[Base], values: dict[str, Any]) -> None:
    table = table_of(row)
    keys = [column.name for column in table.primary_key]
    statement = _insert(session.get_bind().dialect.name, table).values(values)
    replaced = {name: statement.excluded[name] for name in values if name not in keys}
    session.execute(statement.on_conflict_do_update(index_elements=keys, set_=replaced))


def _insert(dialect: str, table: Table) -> postgresql.Insert | sqlite.Insert:
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)
