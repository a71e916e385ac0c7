"""Persistence: SQLAlchemy on SQLite by default, PostgreSQL through ``HONYAKU_DATABASE_URL``.

Stores are built once per database (``Stores.over``) and handed down; nothing above the
application layer (``honyaku.application``) touches one.

Every store call blocks: it waits on SQLite's file lock or on a PostgreSQL server across a
network. So code on an event loop (the web app, jobs, chats, workers) calls a store only
through a worker thread: ``asyncio.to_thread``, the application's methods (which do it for
every front end), or a sync tool, which the agent's registry runs in a thread. The event loop
never waits on the database.
"""

from honyaku.store.chats import ChatEntry, ChatSession, ChatStore, EntryKind
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
from honyaku.store.editions import EditionFile, EditionRecord, EditionStore
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
from honyaku.store.learned_models import LearnedModels
from honyaku.store.leases import Lease, this_process
from honyaku.store.library import (
    BookSummary,
    ChapterProgress,
    Library,
    LocatedParagraph,
    Version,
)
from honyaku.store.model_profiles import ModelProfiles
from honyaku.store.plan import PlanStore
from honyaku.store.quality_flags import FlaggedParagraph, QualityFlags
from honyaku.store.questions import (
    ParkedConversation,
    QuestionStatus,
    QuestionStore,
    StoredQuestion,
)
from honyaku.store.rate_log import RateLog
from honyaku.store.revisions import Migration, SchemaState
from honyaku.store.spending import Ledger, SpendingLedger
from honyaku.store.stores import Stores

__all__ = [
    "Action",
    "ActionKind",
    "BookGlossary",
    "BookSummary",
    "ChapterProgress",
    "ChatEntry",
    "ChatSession",
    "ChatStore",
    "ChunkItem",
    "ChunkStatus",
    "ChunkStore",
    "Claim",
    "ClaimToken",
    "Database",
    "EditionFile",
    "EditionRecord",
    "EditionStore",
    "EntryKind",
    "FlaggedParagraph",
    "GlossaryRef",
    "GlossaryStore",
    "Heartbeat",
    "Job",
    "JobCost",
    "JobScope",
    "JobStatus",
    "JobStore",
    "LearnedModels",
    "Lease",
    "Ledger",
    "Library",
    "LocatedParagraph",
    "Migration",
    "ModelProfiles",
    "ModelRecord",
    "ParkedConversation",
    "PlanStore",
    "PlannedChunk",
    "QualityFlags",
    "QuestionStatus",
    "QuestionStore",
    "RateLog",
    "RecordedAction",
    "SchemaState",
    "SpendingLedger",
    "StoredEntry",
    "StoredQuestion",
    "Stores",
    "Version",
    "database_url",
    "resolve_home",
    "this_process",
]
