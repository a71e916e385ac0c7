"""Persistence: SQLAlchemy on SQLite by default, PostgreSQL through ``HONYAKU_DATABASE_URL``."""

from honyaku.store.chunks import ChunkItem, ChunkStatus, ChunkStore, Claim, PlannedChunk
from honyaku.store.database import Database, resolve_home
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

__all__ = [
    "Action",
    "ActionKind",
    "BookSummary",
    "ChapterProgress",
    "ChunkItem",
    "ChunkStatus",
    "ChunkStore",
    "Claim",
    "Database",
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
    "RecordedAction",
    "Version",
    "resolve_home",
    "this_process",
]
