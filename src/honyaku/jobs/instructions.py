"""What every chunk of a job tells its model before the chunk itself: the system prompt and
the tools, the same for every chunk of the job so that a provider's cache serves them.

Tools a conversation cannot use are not offered to it: their schemas would go with every
request. The glossary tools need a glossary, the form-of-address tool a cast of two
characters at least: a book without them is sent what it was sent before they existed. Which
ones is decided when the conversation starts and kept to its end, so every request of it
begins as the one before (``conversation_registry``).
"""

from __future__ import annotations

from honyaku.agent.broker import ApprovalPolicy
from honyaku.agent.questions import QUESTION_TOOL_NAMES, QUESTION_TOOLS, SKIPPED_QUESTION_TOOLS
from honyaku.agent.registry import Tool, ToolRegistry
from honyaku.domain.book import Book, BookSettings
from honyaku.domain.workflow import JobKind
from honyaku.jobs.glossary_prompts import extraction_prompt
from honyaku.jobs.glossary_tools import (
    CAST_TOOLS,
    EXTRACTION_TOOLS,
    GLOSSARY_TOOLS,
    add_characters,
)
from honyaku.jobs.prompts import system_prompt
from honyaku.jobs.rating_tools import RATING_TOOLS
from honyaku.jobs.tools import TASK_TOOLS, ChunkContext

JOB_TOOL_NAMES = tuple(
    t.name for t in TASK_TOOLS + GLOSSARY_TOOLS + CAST_TOOLS + (add_characters,) + QUESTION_TOOLS
)
"""The tools a job's model may call: the names a book's approval settings may name."""
GLOSSARY_TOOL_NAMES = tuple(t.name for t in GLOSSARY_TOOLS)
CAST_TOOL_NAMES = tuple(t.name for t in CAST_TOOLS)
MIN_CAST = 2
"""Characters a book's accepted cast holds before a job is offered the form-of-address tool:
a form of address is between two."""


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
            return TASK_TOOLS + GLOSSARY_TOOLS + CAST_TOOLS


def offered_registry(
    registry: ToolRegistry[ChunkContext], kind: JobKind, *, glossary: bool, cast: bool = False
) -> ToolRegistry[ChunkContext]:
    """The job's tools as a conversation over a book with a ``glossary`` or none, a ``cast``
    or none, offers them: the glossary tools only where there is a glossary to look up, the
    form-of-address tool only where there is a cast to name, or where the job builds them."""
    if kind is JobKind.EXTRACTION:
        return registry
    hidden = (() if glossary else GLOSSARY_TOOL_NAMES) + (() if cast else CAST_TOOL_NAMES)
    return registry.hiding(hidden) if hidden else registry


def conversation_registry(
    registry: ToolRegistry[ChunkContext], context: ChunkContext
) -> ToolRegistry[ChunkContext]:
    """The tools one chunk's conversation is offered, from its start to its end. It reads the
    book's glossary: call it off the event loop."""
    glossary = context.book_glossary()
    return offered_registry(
        registry,
        context.workflow.kind,
        glossary=bool(glossary.entries()),
        cast=len(glossary.cast().characters) >= MIN_CAST,
    )


def job_prompt(book: Book, kind: JobKind, *, batch: bool = False) -> str:
    """The system prompt every chunk of a job of ``kind`` over ``book`` starts with; in
    ``batch`` mode, it invites the whole part in one reply."""
    if kind is JobKind.EXTRACTION:
        questions = not book.settings.skip_ask_user
        return extraction_prompt(book.source_lang, book.target_lang, questions=questions)
    return system_prompt(kind, book.source_lang, book.target_lang, batch=batch)
