"""Spending caps kept in the database, so that every process of one run keeps one cap together.

A run (a queued job's start or resume) has a cap and a ledger: what its answered requests
cost, and, for each request in flight, the most it could cost. Before a request, a process
locks the run's row, adds up the ledger and, if the request fits under the cap, writes its
reservation, all in one transaction: two workers can never both take the last of a cap. The
reservation becomes the request's cost once it is answered. A reservation older than
``STALE_S`` belongs to a process that died with its request in flight; it counts in full, as
spent, since the provider may well have billed it: the cap may stop a run early, never late.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update

from honyaku.store.database import Database
from honyaku.store.schema import SpendingRow, SpendingRunRow, table_of, utc_now
from honyaku.store.upsert import insert_missing

STALE_S = 3600.0
"""A reservation this old is a dead process's: past any request's time budget."""


@dataclass(frozen=True, slots=True)
class Ledger:
    """A run's figures when a request asked to go out."""

    cap: float
    spent: float
    in_flight: float
    reservation: int | None
    """The request's reservation, if it fitted; else ``None``."""


class SpendingLedger:
    def __init__(self, database: Database) -> None:
        self.database = database

    def reserve(self, run: str, cap: float, most: float) -> Ledger:
        """Reserve ``most`` for a request of ``run`` if it fits under ``cap`` with what the run
        spent and has in flight."""
        with self.database.transaction(exclusive=True) as session:
            insert_missing(session, table_of(SpendingRunRow), {"run": run, "cap": cap})
            session.execute(
                select(SpendingRunRow.run).where(SpendingRunRow.run == run).with_for_update()
            )
            stale = utc_now() - timedelta(seconds=STALE_S)
            rows = session.execute(
                select(SpendingRow.reserved, SpendingRow.cost, SpendingRow.at).where(
                    SpendingRow.run == run
                )
            ).all()
            spent = sum(
                cost + (reserved if _before(at, stale) else 0.0) for reserved, cost, at in rows
            )
            in_flight = sum(reserved for reserved, _, at in rows if not _before(at, stale))
            if spent + in_flight + most > cap:
                return Ledger(cap, spent, in_flight, None)
            row = SpendingRow(run=run, reserved=most, cost=0.0, at=utc_now())
            session.add(row)
            session.flush()
            return Ledger(cap, spent, in_flight + most, row.pk)

    def settle(self, reservation: int, cost: float) -> None:
        """The request answered at ``cost`` (0 if it was not sent after all)."""
        with self.database.transaction() as session:
            session.execute(
                update(SpendingRow)
                .where(SpendingRow.pk == reservation)
                .values(reserved=0.0, cost=cost)
            )

    def spent(self, run: str) -> float:
        with self.database.transaction() as session:
            return (
                session.scalar(select(func.sum(SpendingRow.cost)).where(SpendingRow.run == run))
                or 0.0
            )


def _before(at: datetime, moment: datetime) -> bool:
    if at.tzinfo is None:  # SQLite hands back naive times
        at = at.replace(tzinfo=moment.tzinfo)
    return at < moment
