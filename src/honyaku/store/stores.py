"""Every store over one database, built once and handed to whoever needs them."""

from __future__ import annotations

from dataclasses import dataclass

from honyaku.store.chats import ChatStore
from honyaku.store.chunks import ChunkStore
from honyaku.store.database import Database
from honyaku.store.editions import EditionStore
from honyaku.store.glossary import GlossaryStore
from honyaku.store.jobs import JobStore
from honyaku.store.learned_protocols import LearnedProtocols
from honyaku.store.library import Library
from honyaku.store.model_profiles import ModelProfiles
from honyaku.store.plan import PlanStore
from honyaku.store.quality_flags import QualityFlags
from honyaku.store.questions import QuestionStore
from honyaku.store.rate_windows import RateWindows
from honyaku.store.spending import SpendingLedger


@dataclass(frozen=True, slots=True)
class Stores:
    database: Database
    library: Library
    editions: EditionStore
    jobs: JobStore
    chunks: ChunkStore
    glossary: GlossaryStore
    quality: QualityFlags
    profiles: ModelProfiles
    protocols: LearnedProtocols
    chats: ChatStore
    plans: PlanStore
    questions: QuestionStore
    rate_windows: RateWindows
    spending: SpendingLedger

    @property
    def shared_windows(self) -> RateWindows | None:
        """Where rate limits are kept for every process: a shared database (PostgreSQL);
        ``None`` for the embedded one, whose processes each keep their own."""
        return None if self.database.embedded else self.rate_windows

    @classmethod
    def over(cls, database: Database) -> Stores:
        return cls(
            database,
            Library(database),
            EditionStore(database),
            JobStore(database),
            ChunkStore(database),
            GlossaryStore(database),
            QualityFlags(database),
            ModelProfiles(database),
            LearnedProtocols(database),
            ChatStore(database),
            PlanStore(database),
            QuestionStore(database),
            RateWindows(database),
            SpendingLedger(database),
        )
