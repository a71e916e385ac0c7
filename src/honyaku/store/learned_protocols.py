"""What honyaku learned about models: the tool protocol each one answered the probe with, and
the pace each one works at on its server."""

from __future__ import annotations

from honyaku.domain.pace import Pace
from honyaku.store.database import Database
from honyaku.store.schema import LearnedProtocolRow, utc_now
from honyaku.store.upsert import upsert


class LearnedProtocols:
    """The verdicts of ``--protocol auto`` and the paces, per base URL and model."""

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

    def pace(self, base_url: str, model: str) -> Pace | None:
        with self.database.transaction() as session:
            row = session.get(LearnedProtocolRow, (base_url, model))
            if row is None or not row.prompt_tokens_per_s or not row.output_tokens_per_s:
                return None
            return Pace(
                row.prompt_tokens_per_s,
                row.output_tokens_per_s,
                row.longest_reply_tokens or 0,
                row.timed_replies or 0,
            )

    def remember_pace(self, base_url: str, model: str, pace: Pace) -> None:
        with self.database.transaction() as session:
            upsert(
                session,
                LearnedProtocolRow,
                {
                    "base_url": base_url,
                    "model": model,
                    "prompt_tokens_per_s": pace.prompt_tokens_per_s,
                    "output_tokens_per_s": pace.output_tokens_per_s,
                    "longest_reply_tokens": pace.longest_reply_tokens,
                    "timed_replies": pace.replies,
                },
            )
