"""Jobs: a model translating, polishing or proofreading a book, or extracting its glossary,
chunk by chunk, through tools.

service.py      JobService: open a job, run it (an async stream of events), stop it
planning.py     a job's plan: chapters split into chunks, and what counts as done
sizing.py       the chunk size that bills the model least and fits its context window
instructions.py the system prompt and the tools every chunk of a job starts with
scheduler.py    chapters in parallel, each chapter's chunks in order, events merged
chunk_run.py    one chunk's conversation with the model, as events
estimate.py     what a job will send and cost, before anything is sent
spending.py     a run's spending cap: stop before the request that could pass it
tools.py        the tools the model calls, and the context they work on
glossary_tools.py   the glossary tools (propose, look up) and the tools of extraction
batch_quality.py    the quality checks run on an accepted batch, their warnings in its result
prompts.py      the system prompt and the chunk message
glossary_prompts.py the glossary entries of a chunk's message, the extraction prompt
action_log.py   the action log and the running cost, kept from the events
events.py       the events a job reports
settings.py     a book's job settings
"""

from honyaku.jobs.events import (
    ChunkEvent,
    ChunkFailure,
    ChunkFinished,
    ChunkStarted,
    HandOver,
    JobEvent,
    JobFinished,
    JobOutcome,
    JobStarted,
    ParagraphsBusy,
    ParagraphsDone,
    Where,
)
from honyaku.jobs.service import CONCURRENCY, JobRequest, JobService
from honyaku.jobs.settings import TOOL_NAMES, change_settings
from honyaku.jobs.tools import TASK_TOOLS, ChunkContext

__all__ = [
    "CONCURRENCY",
    "TASK_TOOLS",
    "TOOL_NAMES",
    "ChunkContext",
    "ChunkEvent",
    "ChunkFailure",
    "ChunkFinished",
    "ChunkStarted",
    "HandOver",
    "JobEvent",
    "JobFinished",
    "JobOutcome",
    "JobRequest",
    "JobService",
    "JobStarted",
    "ParagraphsBusy",
    "ParagraphsDone",
    "Where",
    "change_settings",
]
