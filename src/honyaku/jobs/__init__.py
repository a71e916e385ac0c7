"""Jobs: a model translating, polishing or proofreading a book, chunk by chunk, through tools.

``honyaku.jobs.connection.open_model`` connects to a model; it lives in its own module because
the model SDKs are slow to import.
"""

from honyaku.jobs.events import (
    ChunkFinished,
    ChunkStarted,
    JobEvent,
    JobStarted,
    ParagraphsDone,
    RequestFinished,
    RetryScheduled,
    ToolRan,
)
from honyaku.jobs.model_choice import DEMO_MODEL, ModelChoice, ToolProtocol
from honyaku.jobs.runner import ChunkFailure, JobOutcome, JobRequest, JobRunner
from honyaku.jobs.task import ChunkTask
from honyaku.jobs.tools import TASK_TOOLS

__all__ = [
    "DEMO_MODEL",
    "TASK_TOOLS",
    "ChunkFailure",
    "ChunkFinished",
    "ChunkStarted",
    "ChunkTask",
    "JobEvent",
    "JobOutcome",
    "JobRequest",
    "JobRunner",
    "JobStarted",
    "ModelChoice",
    "ParagraphsDone",
    "RequestFinished",
    "RetryScheduled",
    "ToolProtocol",
    "ToolRan",
]
