"""Rate limits kept in the database, so that every process on it keeps one limit together.

Each model profile's limit is a row that whoever counts a request locks (the row's lock on
PostgreSQL, the write lock on SQLite) while it reads the requests of the last period (a
minute), decides, and counts its own: two workers can never both see room for the last
request of a minute. The rule that decides is the rate limiter's own (``llm.rate_limit``);
only its log of sends is kept here.
Times are seconds since the epoch, from each process's clock: machines that share a database
keep their clocks in step (NTP), and a limit counts minutes, not milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from honyaku.store.database import Database
from honyaku.store.schema import RateLimitRow, RateSendRow, table_of
from honyaku.store.upsert import insert_missing

Decide = Callable[[Sequence[tuple[float, int]], float], float]
"""Given the period's sends (time, tokens) and the time held until, the seconds to wait; 0 or
less to send now."""


class RateLog:
    """Each limit's sends in its last period, and the time it is held until, by key."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def admit(self, key: str, now: float, period_s: float, tokens: int, decide: Decide) -> float:
        """Count a request of ``tokens`` against ``key``'s limit if ``decide`` lets it go now;
        else the seconds it says to wait, and nothing is counted."""
        with self.database.transaction(exclusive=True) as session:
            held_until = _locked(session, key)
            session.execute(
                delete(RateSendRow).where(
                    RateSendRow.key == key, RateSendRow.sent_at <= now - period_s
                )
            )
            sent = session.execute(
                select(RateSendRow.sent_at, RateSendRow.tokens)
                .where(RateSendRow.key == key)
                .order_by(RateSendRow.sent_at)
            ).all()
            wait = decide([(t, n) for t, n in sent], held_until)
            if wait <= 0:
                session.add(RateSendRow(key=key, sent_at=now, tokens=tokens))
            return wait

    def hold(self, key: str, until: float) -> None:
        """Send nothing on ``key`` before ``until``: the server said so."""
        with self.database.transaction(exclusive=True) as session:
            held_until = _locked(session, key)
            if until > held_until:
                session.execute(
                    update(RateLimitRow).where(RateLimitRow.key == key).values(held_until=until)
                )


def _locked(session: Session, key: str) -> float:
    """Lock ``key``'s row, made if missing; the time it is held until."""
    insert_missing(session, table_of(RateLimitRow), {"key": key, "held_until": 0.0})
    return session.scalars(
        select(RateLimitRow.held_until).where(RateLimitRow.key == key).with_for_update()
    ).one()
