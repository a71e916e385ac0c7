"""What every chunk of a job tells its model before the chunk itself: the system prompt and
the tools, the same for every chunk of the job so that a provider's cache serves them.

Tools a conversation cannot use are not offered to it: their schemas would go with every
request. Which ones is decided when the conversation starts and kept to its end, so every
request of it begins as the one before (``conversation_registry``).
"""

from __future__ import annotations

from honyaku.agent.broker import ApprovalPolicy
from honyaku.agent.questions import QUESTION_TOOL_NAMES, QUESTION_TOOLS, SKIPPED_QUESTION_TOOLS
from honyaku.agent.registry import Tool, ToolRegistry
from honyaku.domain.book import Book, BookSettings
from honyaku.domain.workflow import JobKind
from honyaku.jobs.glossary_prompts import extraction_prompt
from honyaku.jobs.glossary_tools import EXTRACTION_TOOLS, GLOSSARY_TOOLS
from honyaku.jobs.prompts import system_prompt
from honyaku.jobs.rating_tools import RATING_TOOLS
from honyaku.jobs.tools import TASK_TOOLS, ChunkContext

JOB_TOOL_NAMES = tuple(t.name for t in TASK_TOOLS + GLOSSARY_TOOLS + QUESTION_TOOLS)
"""The tools a job's model may call: the names a book's approval settings may name."""
GLOSSARY_TOOL_NAMES = tuple(t.name for t in GLOSSARY_TOOLS)


def job_registry(
    kind: JobKind, settings: BookSettings, approval: ApprovalPolicy | None = None
) -> ToolRegistry[ChunkContext]:
    """The tools a job of ``kind`` offers its model on a book with ``settings``."""
    hidden: tuple[str, ...] = ()
    questions = QUESTION_TOOLS
    if settings.skip_ask_user:
        questions, hidden = SKIPPED_QUESTION_TOOLS, QUESTION_TOOL_NAMES
    return ToolRegistry(_tools_of(kind) + questions, ChunkContext, hidden=hidden, approval=approval)


def _tools_of(kind: JobKind) -> tuple[Tool, ...]:
    match kind:
        case JobKind.EXTRACTION:
            return EXTRACTION_TOOLS
        case JobKind.RATING:
            return RATING_TOOLS
        case _:
            return TASK_TOOLS + GLOSSARY_TOOLS


def offered_registry(
    registry: ToolRegistry[ChunkContext], kind: JobKind, *, glossary: bool
) -> ToolRegistry[ChunkContext]:
    """The job's tools as a conversation over a book with a ``glossary`` or none offers them:
    the glossary tools only where there is a glossary to look up, or the job builds one."""
    if glossary or kind is JobKind.EXTRACTION:
        return registry
    return registry.hiding(GLOSSARY_TOOL_NAMES)


def conversation_registry(
    registry: ToolRegistry[ChunkContext], context: ChunkContext
) -> ToolRegistry[ChunkContext]:
    """The tools one chunk's conversation is offered, from its start to its end. It reads the
    book's glossary: call it off the event loop."""
    glossary = bool(context.book_glossary().entries())
    return offered_registry(registry, context.workflow.kind, glossary=glossary)


def job_prompt(book: Book, kind: JobKind, *, batch: bool = False) -> str:
    """The system prompt every chunk of a job of ``kind`` over ``book`` starts with; in
    ``batch`` mode, it invites the whole part in one reply."""
    if kind is JobKind.EXTRACTION:
        questions = not book.settings.skip_ask_user
        return extraction_prompt(book.source_lang, book.target_lang, questions=questions)
    return system_prompt(kind, book.source_lang, book.target_lang, batch=batch)
