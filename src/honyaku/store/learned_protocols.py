"""What honyaku learned about models: the tool protocol each one answered the probe with."""

from __future__ import annotations

from honyaku.store.database import Database
from honyaku.store.schema import LearnedProtocolRow, utc_now
from honyaku.store.upsert import upsert


class LearnedProtocols:
    """The verdicts of ``--protocol auto``, per base URL and model."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def protocol(self, base_url: str, model: str) -> str | None:
        with self.database.transaction() as session:
            row = session.get(LearnedProtocolRow, (base_url, model))
            return row.protocol if row else None

    def remember_protocol(self, base_url: str, model: str, protocol: str) -> None:
        with self.database.transaction() as session:
            upsert(
                session,
                LearnedProtocolRow,
                {
                    "base_url": base_url,
                    "model": model,
                    "protocol": protocol,
                    "checked_at": utc_now(),
                },
            )
