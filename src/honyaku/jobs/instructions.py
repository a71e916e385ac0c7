"""What every chunk of a job tells its model before the chunk itself: the system prompt and
the tools, the same for every chunk of the job so that a provider's cache serves them."""

from __future__ import annotations

from honyaku.agent.broker import ApprovalPolicy
from honyaku.agent.questions import QUESTION_TOOL_NAMES, QUESTION_TOOLS, SKIPPED_QUESTION_TOOLS
from honyaku.agent.registry import ToolRegistry
from honyaku.domain.book import Book, BookSettings
from honyaku.domain.workflow import JobKind
from honyaku.jobs.glossary_prompts import extraction_prompt
from honyaku.jobs.glossary_tools import EXTRACTION_TOOLS, GLOSSARY_TOOLS
from honyaku.jobs.prompts import system_prompt
from honyaku.jobs.tools import TASK_TOOLS, ChunkContext

JOB_TOOL_NAMES = tuple(t.name for t in TASK_TOOLS + GLOSSARY_TOOLS + QUESTION_TOOLS)
"""The tools a job's model may call: the names a book's approval settings may name."""


def job_registry(
    kind: JobKind, settings: BookSettings, approval: ApprovalPolicy | None = None
) -> ToolRegistry[ChunkContext]:
    """The tools a job of ``kind`` offers its model on a book with ``settings``."""
    hidden: tuple[str, ...] = ()
    questions = QUESTION_TOOLS
    if settings.skip_ask_user:
        questions, hidden = SKIPPED_QUESTION_TOOLS, QUESTION_TOOL_NAMES
    tools = EXTRACTION_TOOLS if kind is JobKind.EXTRACTION else TASK_TOOLS + GLOSSARY_TOOLS
    return ToolRegistry(tools + questions, ChunkContext, hidden=hidden, approval=approval)


def job_prompt(book: Book, kind: JobKind) -> str:
    """The system prompt every chunk of a job of ``kind`` over ``book`` starts with."""
    questions = not book.settings.skip_ask_user
    if kind is JobKind.EXTRACTION:
        return extraction_prompt(book.source_lang, book.target_lang, questions=questions)
    return system_prompt(kind, book.source_lang, book.target_lang, questions=questions)
