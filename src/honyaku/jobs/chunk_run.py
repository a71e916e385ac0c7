"""One chunk's conversation with the model, as a stream of job events.

Each chunk is a fresh conversation: the job's system prompt (the same bytes for every chunk,
so provider caches serve it, with one more rule at its end in a chunk whose lines hold
placeholders for inline markup) and the chunk's message, followed by the glossary entries that
occur in the chunk, the forms of address between the characters it names and, for a
translation of a book in a series, what the series' memory recalls of its sources; then the
loop until the workflow ends. The tools it is offered are
decided as it starts (``instructions.conversation_registry``) and sent alike with each of
its requests; a conversation taken back up after a question decides again, hours later,
when no cache holds it any more. Batches saved are sent back
without their texts (``tools.saved_text_left_out``).

A chunk that cannot finish (the provider's filter refused it, caps reached, retries exhausted)
ends with its failure in its ``ChunkFinished``; a failure every chunk would meet (a refused
key, a missing model, a server nobody answers at) is raised and ends the job, said once.

A conversation the model's context window cannot hold (the server refuses the request as too
long, or cuts a reply off at its limit) is no failure: what the window's size is, the server
said or the request showed, and the chunk hands what it has not finished over (``HandOver``)
to be planned again in chunks that fit.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass

from honyaku.agent.broker import QuestionParked
from honyaku.agent.loop import LoopLimits, ToolFinished, ToolStarted, run_loop
from honyaku.agent.registry import ToolRegistry
from honyaku.domain.failures import Failure, FailureClass, failure_of
from honyaku.domain.tokens import SCRIPT_RATIO, TokenCounter
from honyaku.domain.workflow import JobKind
from honyaku.errors import (
    ContextOverflowError,
    HonyakuError,
    LoopError,
    ProviderError,
    RefusedInWordsError,
)
from honyaku.jobs.events import (
    ChunkEvent,
    ChunkFinished,
    ChunkParked,
    ChunkStarted,
    HandOver,
    JobEvent,
    ParagraphsDone,
)
from honyaku.jobs.glossary_prompts import (
    chunk_forms,
    chunk_glossary,
    forms_section,
    glossary_section,
)
from honyaku.jobs.instructions import conversation_registry
from honyaku.jobs.memory_prompts import chunk_references, memory_section
from honyaku.jobs.prompts import chunk_message, with_placeholder_rule
from honyaku.jobs.tools import ChunkContext, saved_text_left_out
from honyaku.llm.events import ChatProvider, Response
from honyaku.llm.messages import ChatRequest, Message, SystemMessage, UserMessage, request_tokens
from honyaku.llm.models import ContextWindow

FALLBACK_FAILS = frozenset({FailureClass.KEY, FailureClass.MODEL, FailureClass.SERVER})
"""What stops the whole job when the model chosen meets it, and only the parts given to a
fallback when the fallback does."""
UNSAID_WINDOW_SHARE = 0.8
"""A server that refuses a request as too long without saying its window: assume the window
holds this share of the request."""


@dataclass(frozen=True, slots=True)
class ChunkTalk:
    """How every chunk of one job talks to the model."""

    provider: ChatProvider
    registry: ToolRegistry[ChunkContext]
    system_prompt: str
    limits: LoopLimits
    window: ContextWindow
    tokens: TokenCounter = SCRIPT_RATIO
    """Counts the model's tokens, to size a request the server refused without a figure."""
    fallback: bool = False
    """A fallback of the run's chain: a failure of its own (a refused key, a missing model)
    fails the parts it was given, not the job."""


async def run_chunk(
    context: ChunkContext,
    talk: ChunkTalk,
    *,
    chunks_in_chapter: int,
    resumed: Sequence[Message] = (),
) -> AsyncIterator[JobEvent]:
    """The chunk's conversation: a new one, or the ``resumed`` one a question parked."""
    chunk, workflow = context.chunk, context.workflow
    where = context.where
    yield ChunkStarted(where, len(chunk.all_paragraphs))
    history = list(resumed) or await _opening(context, talk, chunks_in_chapter)
    registry = await asyncio.to_thread(conversation_registry, talk.registry, context)
    accepted_before = 0
    conversation = run_loop(
        talk.provider,
        history,
        registry,
        context,
        workflow,
        talk.limits,
        saved_text_left_out(context),
    )
    try:
        async with aclosing(conversation) as events:
            async for event in events:
                yield ChunkEvent(where, event, talk.provider.model)
                if isinstance(event, Response) and event.cut:
                    await _learn_from_cut_reply(talk.window, event)
                    if not event.rambled:  # cut inside a call: smaller chunks will fit
                        yield ChunkFinished(
                            where, None, _hand_over(context, "the reply was cut off")
                        )
                        return
                if isinstance(event, ToolStarted):
                    accepted_before = len(workflow.accepted)
                elif isinstance(event, ToolFinished) and (
                    newly := len(workflow.accepted) - accepted_before
                ):
                    yield ParagraphsDone(where, newly)
    except QuestionParked as parked:
        yield ChunkParked(where, parked.request, tuple(history), workflow)
        return
    except ContextOverflowError as exc:
        sent = request_tokens(ChatRequest(tuple(history), registry.specs), talk.tokens)
        await _learn_from_overflow(talk.window, exc, sent)
        yield ChunkFinished(where, None, _hand_over(context, str(exc)))
        return
    except (LoopError, ProviderError) as exc:
        failure = failure_of(exc)
        if failure.kind.is_job_wide and talk.fallback and failure.kind in FALLBACK_FAILS:
            # A fallback's refused key or missing model fails what it was given, not the job.
            failure = Failure(FailureClass.FALLBACK, f"{talk.provider.model} ({exc})")
        elif failure.kind.is_job_wide:
            raise
        yield ChunkFinished(where, _markup_failure(context, exc) or failure, left=_left(context))
        return
    if unchanged := len(chunk.all_paragraphs) - len(workflow.accepted):
        # Proofreading leaves right paragraphs alone: they are done all the same.
        yield ParagraphsDone(where, unchanged)
    yield ChunkFinished(where, None)


async def _opening(context: ChunkContext, talk: ChunkTalk, chunks_in_chapter: int) -> list[Message]:
    """The system prompt and the chunk's message, with the glossary entries found in it, the
    forms of address between its characters and the memory's references; made in a thread, as
    a long chunk's lines and their placeholders take a while."""

    def opening() -> list[Message]:
        chunk, kind = context.chunk, context.workflow.kind
        book = context.book
        ruby = book.settings.ruby
        message = chunk_message(chunk, kind, chunks_in_chapter=chunks_in_chapter, ruby=ruby)
        for section in _sections(context):
            message = f"{message}\n\n{section}"
        system = with_placeholder_rule(talk.system_prompt, chunk, kind, book.target_lang, ruby)
        return [SystemMessage(system), UserMessage(message)]

    return await asyncio.to_thread(opening)


def _markup_failure(context: ChunkContext, exc: HonyakuError) -> Failure | None:
    """A conversation that ran out of turns while paragraphs it has not saved were refused
    for their placeholders failed for their markup: a smaller part, another model, or the
    book's ``lost_markup`` setting on the last attempt may get past it."""
    if not isinstance(exc, LoopError) or isinstance(exc, RefusedInWordsError):
        return None
    refused = [pid for pid in context.workflow.missing_ids if pid in context.markup_refused]
    if not refused:
        return None
    return Failure(FailureClass.MARKUP, f"{', '.join(refused[:5])}: {exc}")


def _left(context: ChunkContext) -> tuple[str, ...]:
    workflow = context.workflow
    return (*workflow.missing_ids, *workflow.missing_titles)


def _hand_over(context: ChunkContext, reason: str) -> HandOver:
    workflow = context.workflow
    return HandOver(tuple(workflow.missing_ids), tuple(workflow.missing_titles), reason)


async def _learn_from_overflow(window: ContextWindow, exc: ContextOverflowError, sent: int) -> None:
    """The window the server said, else a share of the request it refused; and how many more
    tokens it counts than honyaku does."""
    if exc.prompt_tokens and sent:
        window.observe_count(exc.prompt_tokens / sent)
    tokens = exc.window or round(UNSAID_WINDOW_SHARE * (exc.prompt_tokens or sent))
    if window.tokens is None or tokens < window.tokens:
        await window.learn(tokens, "the server's refusal")


async def _learn_from_cut_reply(window: ContextWindow, response: Response) -> None:
    """A reply cut at the model's limit: what the request and the reply came to is as much
    as the model holds."""
    usage = response.usage
    held = (usage.input_tokens or usage.estimated_input_tokens) + (
        usage.output_tokens or usage.estimated_output_tokens
    )
    await window.learn_from_cut_reply(held)


def _sections(context: ChunkContext) -> list[str]:
    """What follows the chunk's text, each where it has anything to say: the entries that
    occur in the chunk and the forms of address between its characters (accepted ones to
    follow; for extraction, proposed ones too, so the model does not propose them again),
    and for a translation of a book in a series the memory's references."""
    kind, chunk = context.workflow.kind, context.chunk
    extraction = kind is JobKind.EXTRACTION
    glossary = context.book_glossary()
    matcher, cast = glossary.matcher(proposed=extraction), glossary.cast()
    forms = chunk_forms(chunk, cast, matcher, proposed=extraction)
    sections = [
        glossary_section(chunk_glossary(chunk, matcher), kind),
        forms_section(forms, kind, chapters=len(chunk.sections)),
    ]
    if kind is JobKind.TRANSLATION and cast.in_series:
        memory, book_id = context.records.memory, context.book.id
        references = chunk_references(chunk, book_id, memory)
        if references:
            sections.append(memory_section(references, book_id, memory.titles(book_id)))
    return [section for section in sections if section]
