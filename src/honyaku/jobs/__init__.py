"""Jobs: a model translating, polishing or proofreading a book, or extracting its glossary,
chunk by chunk, through tools.

service.py      JobService: a job run here or a queued chapter run on a worker; stop, figures
requests.py     what front ends and the job queue ask the engine for
run.py          one run of a job, opened and closed in one place, driven over lanes
heartbeat.py    a running job's heartbeat: its claims renewed, a stop heard
claims.py       the chunks a run holds, given back however it ends
replanning.py   a run's chunks waiting to run planned again as it learns
chunk_driver.py a claimed chunk run to its end under its claim: done, failed, parked, handed over
records.py      what a run reads and writes in the library: its one door to the database
launcher.py     JobLauncher: where jobs a front end starts run (in this process, or on workers)
progress.py     a job's figures folded from its events: one definition for every front end
approvals.py    which calls need the translator's yes, per book, for jobs and chats alike
planning.py     a job's plan: chapters split into chunks, and what counts as done
sizing.py       the chunk size that bills the model least and fits its context window
instructions.py the system prompt and the tools a chunk starts with (those it can use)
scheduler.py    chapters in parallel, each chapter's chunks in order, events merged
chunk_run.py    one chunk's conversation with the model, as events
estimate.py     what a job will send and cost, before anything is sent
spending.py     a run's spending cap: stop before the request that could pass it
tools.py        the tools the model calls, and the context they work on
glossary_tools.py   the glossary tools (propose terms, characters, forms of address; look up)
                    and the tools of extraction
batch_quality.py    the quality checks run on an accepted batch, their warnings in its result
prompts.py      the system prompt and the chunk message
glossary_prompts.py the glossary entries and forms of address of a chunk's message, the
                    extraction prompt
memory_prompts.py   the translation memory's references in a chunk's message
action_log.py   the action log and the running cost, kept from the events
events.py       the events a job reports
log_lines.py    the job log as a translator reads it
"""

from honyaku.jobs.events import (
    ChunkEvent,
    ChunkFailure,
    ChunkFinished,
    ChunkStarted,
    ChunkTakenOver,
    HandOver,
    JobEvent,
    JobFinished,
    JobOutcome,
    JobStarted,
    ParagraphsBusy,
    ParagraphsDone,
    Response,
    Retry,
    RoundStarted,
    Where,
)
from honyaku.jobs.instructions import JOB_TOOL_NAMES
from honyaku.jobs.launcher import InProcessLauncher, JobLauncher, JobUpdate
from honyaku.jobs.progress import JobProgress
from honyaku.jobs.requests import CONCURRENCY, ChapterEnd, ChapterOrder, JobRequest
from honyaku.jobs.run import RunDeps
from honyaku.jobs.service import JobService
from honyaku.jobs.tools import TASK_TOOLS, ChunkContext

__all__ = [
    "CONCURRENCY",
    "JOB_TOOL_NAMES",
    "TASK_TOOLS",
    "ChapterEnd",
    "ChapterOrder",
    "ChunkContext",
    "ChunkEvent",
    "ChunkFailure",
    "ChunkFinished",
    "ChunkStarted",
    "ChunkTakenOver",
    "HandOver",
    "InProcessLauncher",
    "JobEvent",
    "JobFinished",
    "JobLauncher",
    "JobOutcome",
    "JobProgress",
    "JobRequest",
    "JobService",
    "JobStarted",
    "JobUpdate",
    "ParagraphsBusy",
    "ParagraphsDone",
    "Response",
    "Retry",
    "RoundStarted",
    "RunDeps",
    "Where",
]
