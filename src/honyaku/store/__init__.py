"""Persistence: SQLAlchemy on SQLite by default, PostgreSQL through ``HONYAKU_DATABASE_URL``."""

from honyaku.store.chunks import (
    ChunkItem,
    ChunkStatus,
    ChunkStore,
    Claim,
    ClaimToken,
    Heartbeat,
    PlannedChunk,
)
from honyaku.store.database import Database, database_url, resolve_home
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
from honyaku.store.revisions import Migration, SchemaState

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
    "ClaimToken",
    "Database",
    "FlaggedParagraph",
    "GlossaryRef",
    "GlossaryStore",
    "Heartbeat",
    "Job",
    "JobCost",
    "JobScope",
    "JobStatus",
    "JobStore",
    "LearnedProtocols",
    "Lease",
    "Library",
    "LocatedParagraph",
    "Migration",
    "ModelProfiles",
    "ModelRecord",
    "PlannedChunk",
    "QualityFlags",
    "RecordedAction",
    "SchemaState",
    "StoredEntry",
    "Version",
    "database_url",
    "resolve_home",
    "this_process",
]
