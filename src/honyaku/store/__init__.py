"""Persistence: SQLAlchemy on SQLite by default, PostgreSQL through ``HONYAKU_DATABASE_URL``."""

from honyaku.store.chunks import ChunkItem, ChunkStatus, ChunkStore, Claim, PlannedChunk
from honyaku.store.database import Database, resolve_home
from honyaku.store.glossary import BookGlossary, GlossaryRef, GlossaryStore, StoredEntry
from honyaku.store.jobs import (
    Action,
    ActionKind,
    Job,
    JobCost,
    JobScope,
    JobStatus,
    JobStore,
    ModelRecord,
    RecordedAction,
)
from honyaku.store.learned_protocols import LearnedProtocols
from honyaku.store.leases import Lease, this_process
from honyaku.store.library import (
    BookSummary,
    ChapterProgress,
    Library,
    LocatedParagraph,
    Version,
)
from honyaku.store.model_profiles import ModelProfiles
from honyaku.store.quality_flags import FlaggedParagraph, QualityFlags

__all__ = [
    "Action",
    "ActionKind",
    "BookGlossary",
    "BookSummary",
    "ChapterProgress",
    "ChunkItem",
    "ChunkStatus",
    "ChunkStore",
    "Claim",
    "Database",
    "FlaggedParagraph",
    "GlossaryRef",
    "GlossaryStore",
    "Job",
    "JobCost",
    "JobScope",
    "JobStatus",
    "JobStore",
    "LearnedProtocols",
    "Lease",
    "Library",
    "LocatedParagraph",
    "ModelProfiles",
    "ModelRecord",
    "PlannedChunk",
    "QualityFlags",
    "RecordedAction",
    "StoredEntry",
    "Version",
    "resolve_home",
    "this_process",
]
