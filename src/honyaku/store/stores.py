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
        )
