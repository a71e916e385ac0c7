"""The application layer: each use case once, for every front end.

honyaku.py      ``Honyaku``: the library and all that works on it, wired once
books.py        import, read, export and delete books; flagged paragraphs; a book's actions
editions.py     a book's new edition imported over it; its editions so far
versions.py     a paragraph's versions: read, written by hand, selected
jobs.py         jobs estimated, run, started, stopped, resumed, followed; their logs
glossary.py     a book's glossary and the shared ones, as the translator edits them
cast.py         a book's cast and address book: characters, variants, forms of address
memory.py       the series' translation memory: read, imported into, written from
models.py       model profiles, their prices, and choosing the model a command or page
                talks to
keys.py         API keys in this user's key store: set, listed (masked), removed
settings.py     a book's settings, and which calls about it need the person's yes
plans.py        the translator's plan: tasks by book and day, done or not
search.py       search across a book, replace in its translations
chats.py        chats with the assistant
trials.py       models tried on a sample of a book, compared, judged blind, one taken
questions.py    questions of queued jobs, waiting for a person
queue.py        whether jobs go on the job queue, and the workers that run them
database.py     the database's schema: its revision, and bringing it up to date
heavy_work.py   the threads CPU-heavy work runs on, apart from the event loop's and the database's

Front ends import from here what they show (the stores' records, the model choices); they
never reach the stores or the model servers themselves.
"""

from honyaku.application.books import (
    DEFAULT_TARGET,
    PAGE_BOOKS,
    PAGE_PARAGRAPHS,
    BookDetail,
    Books,
    ChapterView,
    ImportedBook,
    Leftover,
)
from honyaku.application.cast import AddressRow, Cast, CastMember, CastView
from honyaku.application.chats import Chats
from honyaku.application.database import database_schema, upgrade_database
from honyaku.application.editions import BookHistory, Editions, UpdatedBook
from honyaku.application.glossary import EntryChange, Glossary, ImportSummary
from honyaku.application.honyaku import Honyaku
from honyaku.application.jobs import Jobs
from honyaku.application.keys import Keys
from honyaku.application.memory import MEMORY_MODEL, Memory, MemoryMatch, MemoryReport
from honyaku.application.models import DEMO, Models, ProfilePrices
from honyaku.application.plans import Plans
from honyaku.application.questions import Questions
from honyaku.application.queue import QUEUE_VARIABLE, queue_wanted, serve_worker
from honyaku.application.search import Replacement, Search, SearchHit, SearchResult
from honyaku.application.settings import TOOL_NAMES, Settings
from honyaku.application.versions import Versions
from honyaku.jobs import JobProgress, JobRequest
from honyaku.llm.keys import StoredKey
from honyaku.llm.models import (
    DEMO_MODEL,
    PROVIDER_KINDS,
    ModelChoice,
    ModelOptions,
    ModelStatus,
    ToolProtocol,
)
from honyaku.llm.price_list import LISTED_CURRENCY, ListedPrices
from honyaku.store import (
    ActionKind,
    BookSummary,
    ChapterProgress,
    ChatEntry,
    ChatSession,
    EntryKind,
    FlaggedParagraph,
    Job,
    JobCost,
    JobStatus,
    LocatedParagraph,
    RatedParagraph,
    RecordedAction,
    SchemaState,
    StoredEntry,
    StoredForm,
    StoredQuestion,
    Version,
    resolve_home,
)

__all__ = [
    "DEFAULT_TARGET",
    "DEMO",
    "DEMO_MODEL",
    "LISTED_CURRENCY",
    "MEMORY_MODEL",
    "PAGE_BOOKS",
    "PAGE_PARAGRAPHS",
    "PROVIDER_KINDS",
    "QUEUE_VARIABLE",
    "TOOL_NAMES",
    "ActionKind",
    "AddressRow",
    "BookDetail",
    "BookHistory",
    "BookSummary",
    "Books",
    "Cast",
    "CastMember",
    "CastView",
    "ChapterProgress",
    "ChapterView",
    "ChatEntry",
    "ChatSession",
    "Chats",
    "Editions",
    "EntryChange",
    "EntryKind",
    "FlaggedParagraph",
    "Glossary",
    "Honyaku",
    "ImportSummary",
    "ImportedBook",
    "Job",
    "JobCost",
    "JobProgress",
    "JobRequest",
    "JobStatus",
    "Jobs",
    "Keys",
    "Leftover",
    "ListedPrices",
    "LocatedParagraph",
    "Memory",
    "MemoryMatch",
    "MemoryReport",
    "ModelChoice",
    "ModelOptions",
    "ModelStatus",
    "Models",
    "Plans",
    "ProfilePrices",
    "Questions",
    "RatedParagraph",
    "RecordedAction",
    "Replacement",
    "SchemaState",
    "Search",
    "SearchHit",
    "SearchResult",
    "Settings",
    "StoredEntry",
    "StoredForm",
    "StoredKey",
    "StoredQuestion",
    "ToolProtocol",
    "UpdatedBook",
    "Version",
    "Versions",
    "database_schema",
    "queue_wanted",
    "resolve_home",
    "serve_worker",
    "upgrade_database",
]
