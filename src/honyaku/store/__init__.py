"""Persistence: SQLAlchemy on SQLite by default, PostgreSQL through ``HONYAKU_DATABASE_URL``.

stores.py         ``Stores``: every store over one database, built once and handed down
database.py       where the database lives, and how it is opened
revisions.py      the schema's numbered migrations, and bringing a database up to date
schema.py         the tables, in portable SQL that SQLite and PostgreSQL both run
upsert.py         a row added in one atomic statement, the old row of its key replaced or kept
ids.py            fresh short ids for books, jobs, chats and plan tasks
library.py        the library: books, their chapters and paragraphs, translation versions
editions.py       a book's new edition written over it in one transaction; its editions so far
glossary.py       glossaries, each book's own and shared ones, and their versioned entries
address_book.py   each glossary's forms of address, versioned like its entries
memory.py         the translation memory of a book's series, and references imported into it
quality_flags.py  the quality checks' warnings on translation versions, kept or dismissed
ratings.py        a rating job's scores of translation versions
jobs.py           jobs, their running cost, and the actions of their conversations
batches.py        the batches a job sent through a provider's Batch API, and their handles
chunks.py         a job's plan as rows: chunks a process claims, runs and finishes
leases.py         who holds a piece of work, and whether they are still alive
questions.py      questions of queued jobs waiting for a person; their chunks parked meanwhile
spending.py       a run's spending cap, one ledger for every process of the run
rate_log.py       rate limits, one log of sends for every process on the database
notifications.py  changes the database tells every process on it (PostgreSQL's LISTEN/NOTIFY)
learned_models.py what was learned of models on servers: tool protocol, context window, pace
model_profiles.py models saved under a name
chats.py          the assistant's sessions and their transcripts, only ever added to
plan.py           the translator's plan tasks
migrations/       the Alembic environment, and each migration in ``versions/NNNN_….py``

Stores are built once per database (``Stores.over``) and handed down; nothing above the
application layer (``honyaku.application``) touches one.

Every store call blocks: it waits on SQLite's file lock or on a PostgreSQL server across a
network. So code on an event loop (the web app, jobs, chats, workers) reaches a store only
through a worker thread (``asyncio.to_thread``): the application's methods, which do it for
every front end; the job engine's ``JobRecords`` (``jobs/records.py``), for a run of a job;
or a sync tool, which the agent's registry runs in a thread. The event loop never waits on
the database.
"""

from honyaku.store.address_book import AddressBookStore, StoredForm
from honyaku.store.batches import BatchConversations, JobBatch, JobBatches
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
from honyaku.store.glossary import (
    BookCast,
    BookGlossary,
    GlossaryRef,
    GlossaryStore,
    StoredEntry,
)
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
from honyaku.store.memory import MemorySummary, Point, TranslationMemory
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
from honyaku.store.ratings import RatedParagraph, Ratings
from honyaku.store.revisions import Migration, SchemaState
from honyaku.store.spending import Ledger, SpendingLedger
from honyaku.store.stores import Stores

__all__ = [
    "Action",
    "ActionKind",
    "AddressBookStore",
    "BatchConversations",
    "BookCast",
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
    "JobBatch",
    "JobBatches",
    "JobCost",
    "JobScope",
    "JobStatus",
    "JobStore",
    "LearnedModels",
    "Lease",
    "Ledger",
    "Library",
    "LocatedParagraph",
    "MemorySummary",
    "Migration",
    "ModelProfiles",
    "ModelRecord",
    "ParkedConversation",
    "PlanStore",
    "PlannedChunk",
    "Point",
    "QualityFlags",
    "QuestionStatus",
    "QuestionStore",
    "RateLog",
    "RatedParagraph",
    "Ratings",
    "RecordedAction",
    "SchemaState",
    "SpendingLedger",
    "StoredEntry",
    "StoredForm",
    "StoredQuestion",
    "Stores",
    "TranslationMemory",
    "Version",
    "database_url",
    "resolve_home",
    "this_process",
]
