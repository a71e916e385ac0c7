"""What honyaku learned about models on servers: the tool protocol each one answered the probe
with, how many tokens its context holds, and the pace it works at."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from honyaku.domain.pace import Pace
from honyaku.store.database import Database
from honyaku.store.schema import LearnedModelRow, ModelProfileRow, utc_now
from honyaku.store.upsert import upsert


class LearnedModels:
    """The verdicts of ``--protocol auto``, the context windows and the paces learned, per base
    URL and model (``llm.models.ModelMemory``)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def protocol(self, base_url: str, model: str) -> str | None:
        with self.database.transaction() as session:
            row = session.get(LearnedModelRow, (base_url, model))
            return row.protocol if row else None

    def context_window(self, base_url: str, model: str) -> int | None:
        with self.database.transaction() as session:
            row = session.get(LearnedModelRow, (base_url, model))
            return row.context_window if row else None

    def remember_context_window(
        self, base_url: str, model: str, tokens: int, *, profile: str | None = None
    ) -> None:
        """Keep the window for the server's model, and on ``profile`` where the choice came
        from one."""
        with self.database.transaction() as session:
            _remember(session, base_url, model, context_window=tokens)
            if profile is not None:
                session.execute(
                    update(ModelProfileRow)
                    .where(ModelProfileRow.name == profile)
                    .values(context_window=tokens)
                )

    def remember_protocol(self, base_url: str, model: str, protocol: str) -> None:
        with self.database.transaction() as session:
            _remember(session, base_url, model, protocol=protocol)

    def pace(self, base_url: str, model: str) -> Pace | None:
        with self.database.transaction() as session:
            row = session.get(LearnedModelRow, (base_url, model))
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
            _remember(
                session,
                base_url,
                model,
                prompt_tokens_per_s=pace.prompt_tokens_per_s,
                output_tokens_per_s=pace.output_tokens_per_s,
                longest_reply_tokens=pace.longest_reply_tokens,
                timed_replies=pace.replies,
            )


def _remember(session: Session, base_url: str, model: str, **learned: object) -> None:
    """Keep what was learned of the server's model, leaving what was learned before of it."""
    values = {"base_url": base_url, "model": model, **learned, "checked_at": utc_now()}
    upsert(session, LearnedModelRow, values)
