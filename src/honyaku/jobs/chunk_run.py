"""One chunk's conversation with the model, as a stream of job events.

Each chunk is a fresh conversation: the job's system prompt (the same bytes for every chunk,
so provider caches serve it) and the chunk's message, followed by the glossary entries that
occur in the chunk, then the loop until the workflow ends. Batches saved are sent back
without their texts (``tools.saved_text_left_out``).
A chunk that cannot finish (caps reached, retries exhausted) ends with an error in its
``ChunkFinished``; an error no retry can mend (a refused key, a server nobody answers at) is
raised and ends the job, said once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

from honyaku.agent.loop import LoopLimits, ToolFinished, ToolStarted, run_loop
from honyaku.agent.registry import ToolRegistry
from honyaku.domain.workflow import JobKind, turn_budget
from honyaku.errors import FatalProviderError, LoopError, ProviderError, UnreachableError
from honyaku.jobs.events import ChunkEvent, ChunkFinished, ChunkStarted, JobEvent, ParagraphsDone
from honyaku.jobs.glossary_prompts import chunk_glossary, glossary_section
from honyaku.jobs.prompts import chunk_message
from honyaku.jobs.tools import ChunkContext, saved_text_left_out
from honyaku.llm.events import ChatProvider
from honyaku.llm.messages import Message, SystemMessage, UserMessage


@dataclass(frozen=True, slots=True)
class ChunkTalk:
    """How every chunk of one job talks to the model."""

    provider: ChatProvider
    registry: ToolRegistry[ChunkContext]
    system_prompt: str
    limits: LoopLimits


async def run_chunk(
    context: ChunkContext, talk: ChunkTalk, *, chunks_in_chapter: int
) -> AsyncIterator[JobEvent]:
    chunk, workflow = context.chunk, context.workflow
    where = context.where
    yield ChunkStarted(where, len(chunk.paragraphs))
    message = chunk_message(chunk, workflow.kind, chunks_in_chapter=chunks_in_chapter)
    if glossary := await asyncio.to_thread(_glossary_section, context):
        message = f"{message}\n\n{glossary}"
    history: list[Message] = [SystemMessage(talk.system_prompt), UserMessage(message)]
    limits = replace(
        talk.limits, max_turns=turn_budget(len(chunk.paragraphs), talk.limits.max_turns)
    )
    accepted_before = 0
    try:
        async for event in run_loop(
            talk.provider,
            history,
            talk.registry,
            context,
            workflow,
            limits,
            saved_text_left_out(context),
        ):
            yield ChunkEvent(where, event)
            if isinstance(event, ToolStarted):
                accepted_before = len(workflow.accepted)
            elif isinstance(event, ToolFinished) and (
                newly := len(workflow.accepted) - accepted_before
            ):
                yield ParagraphsDone(where, newly)
    except (LoopError, ProviderError) as exc:
        if isinstance(exc, FatalProviderError | UnreachableError):
            raise
        yield ChunkFinished(where, str(exc))
        return
    if unchanged := len(chunk.paragraphs) - len(workflow.accepted):
        # Proofreading leaves right paragraphs alone: they are done all the same.
        yield ParagraphsDone(where, unchanged)
    yield ChunkFinished(where, None)


def _glossary_section(context: ChunkContext) -> str:
    """The entries that occur in the chunk: accepted ones to follow; for extraction, proposed
    ones too, so the model does not propose them again."""
    kind = context.workflow.kind
    matcher = context.book_glossary().matcher(proposed=kind is JobKind.EXTRACTION)
    return glossary_section(chunk_glossary(context.chunk, matcher), kind)
