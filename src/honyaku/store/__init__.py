"""Persistence: SQLAlchemy on SQLite by default, PostgreSQL through ``HONYAKU_DATABASE_URL``."""

from honyaku.store.database import Database, resolve_home
from honyaku.store.jobs import Action, Job, JobCost, JobStatus, JobStore, RecordedAction
from honyaku.store.library import BookSummary, ChapterProgress, Library, LocatedParagraph
from honyaku.store.model_profiles import ModelProfiles

__all__ = [
    "Action",
    "BookSummary",
    "ChapterProgress",
    "Database",
    "Job",
    "JobCost",
    "JobStatus",
    "JobStore",
    "Library",
    "LocatedParagraph",
    "ModelProfiles",
    "RecordedAction",
    "resolve_home",
]
