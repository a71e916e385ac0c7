"""Every store over one database, built once and handed to whoever needs them."""

from __future__ import annotations

from dataclasses import dataclass

from honyaku.store.batches import BatchConversations, JobBatches
from honyaku.store.chats import ChatStore
from honyaku.store.chunks import ChunkStore
from honyaku.store.database import Database
from honyaku.store.editions import EditionStore
from honyaku.store.glossary import GlossaryStore
from honyaku.store.jobs import JobStore
from honyaku.store.learned_models import LearnedModels
from honyaku.store.library import Library
from honyaku.store.memory import TranslationMemory
from honyaku.store.model_profiles import ModelProfiles
from honyaku.store.plan import PlanStore
from honyaku.store.quality_flags import QualityFlags
from honyaku.store.questions import QuestionStore
from honyaku.store.rate_log import RateLog
from honyaku.store.ratings import Ratings
from honyaku.store.spending import SpendingLedger
from honyaku.store.trials import Trials


@dataclass(frozen=True, slots=True)
class Stores:
    database: Database
    library: Library
    editions: EditionStore
    jobs: JobStore
    chunks: ChunkStore
    glossary: GlossaryStore
    quality: QualityFlags
    ratings: Ratings
    profiles: ModelProfiles
    learned: LearnedModels
    chats: ChatStore
    plans: PlanStore
    questions: QuestionStore
    rate_log: RateLog
    spending: SpendingLedger
    trials: Trials
    memory: TranslationMemory
    batches: JobBatches
    conversations: BatchConversations

    @property
    def shared_rate_log(self) -> RateLog | None:
        """Where rate limits are kept for every process: a shared database (PostgreSQL);
        ``None`` for the embedded one, whose processes each keep their own."""
        return None if self.database.embedded else self.rate_log

    @classmethod
    def over(cls, database: Database) -> Stores:
        glossary = GlossaryStore(database)
        return cls(
            database,
            Library(database),
            EditionStore(database),
            JobStore(database),
            ChunkStore(database),
            glossary,
            QualityFlags(database),
            Ratings(database),
            ModelProfiles(database),
            LearnedModels(database),
            ChatStore(database),
            PlanStore(database),
            QuestionStore(database),
            RateLog(database),
            SpendingLedger(database),
            Trials(database),
            TranslationMemory(database, glossary),
            JobBatches(database),
            BatchConversations(database),
        )
