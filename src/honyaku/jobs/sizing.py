"""The chunk size a job plans with: the one that bills its model least and fits its context.

What a chunk costs (``domain.chunk_sizing.TextCost``) is counted on the book itself, with the
model's tokenizer where honyaku ships it: the job's system prompt and tool schemas (or, for
the XML protocol, the tool section it writes into the prompt), a sample of the book's work
lines, the JSON item around each paragraph the model writes, and what a reply adds to the
conversation. How the model works (``Behaviour``) is learned from the chunks its earlier
jobs ran to an end (``store.jobs.ModelRecord``), and from this job's chunks as they end
(``BehaviourTally.add_chunk``); a model never seen is assumed to work carefully. A
correction learned from what providers reported (``TokenRatio``) scales every count, and
what the model wrote for each source character in earlier jobs replaces the guess that it
writes as many tokens as it reads.

The book's ``chunk_chars`` setting is the most a chunk may hold; the size chosen is never
more, and is less for a model that works a few paragraphs a reply or a context that is
small.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from statistics import fmean

from honyaku.agent.loop import result_json
from honyaku.domain.book import Book, Paragraph
from honyaku.domain.chunk_sizing import (
    UNSEEN,
    Behaviour,
    TextCost,
    Weights,
    best_chunk_chars,
)
from honyaku.domain.chunking import TRANSLATION_LINE_PREFIX, WITH_TRANSLATION
from honyaku.domain.pricing import Prices
from honyaku.domain.tokens import SCRIPT_RATIO, TokenCounter, TokenRatio
from honyaku.domain.workflow import ChunkWorkflow, JobKind
from honyaku.jobs.instructions import job_prompt, job_registry, offered_registry
from honyaku.jobs.planning import work_of
from honyaku.llm.messages import tool_text
from honyaku.llm.tokenizers import token_counter
from honyaku.llm.xml.prompt import render_tool_prompt
from honyaku.store.jobs import ModelRecord

SAMPLE_PARAGRAPHS = 400
"""Work paragraphs counted to learn what the book's text costs, spread over the book."""
ITEM_JSON = '{"paragraph_id":"1a2b3c4d","translated_text":""},'
"""What a model writes around each paragraph's text."""
RATING_JSON = '{"paragraph_id":"1a2b3c4d","score":4,"issues":["style"],"comment":"稍显生硬"},'
"""What a judge writes for each paragraph: no text of its own but a short comment."""
MOVE_CALL = 'update_task_status{"status":"working"}'
EXTRACTING = Behaviour(batch_paragraphs=None, other_replies=1.0)
"""Glossary extraction reads the chunk and proposes its terms in a reply or two."""


@dataclass
class BehaviourTally:
    """What a model's ended chunks showed: chunks, their work paragraphs, the replies they
    took, those that carried a batch, and the paragraphs batches saved."""

    chunks: int = 0
    paragraphs: int = 0
    replies: int = 0
    batch_replies: int = 0
    batched: int = 0

    @classmethod
    def of(cls, record: ModelRecord) -> BehaviourTally:
        return cls(
            record.chunks,
            record.chunk_paragraphs,
            record.requests,
            record.batch_replies,
            record.batched_paragraphs,
        )

    def add_chunk(self, paragraphs: int, replies: int, batch_replies: int, batched: int) -> None:
        self.chunks += 1
        self.paragraphs += paragraphs
        self.replies += replies
        self.batch_replies += batch_replies
        self.batched += batched

    def behaviour(self) -> Behaviour:
        observed = Behaviour.observed(
            chunks=self.chunks,
            paragraphs=self.paragraphs,
            replies=self.replies,
            batch_replies=self.batch_replies,
            batched=self.batched,
        )
        return observed or UNSEEN


@dataclass
class ChunkSizing:
    """How one job (or its estimate) sizes its chunks for its model."""

    cost: TextCost
    weights: Weights
    most: int
    """The book's ``chunk_chars``: the most a chunk may hold."""
    paragraph_chars: float
    """The book's mean work paragraph, in characters."""
    tally: BehaviourTally = field(default_factory=BehaviourTally)
    window: int | None = None
    """The model's context window in tokens, where known."""
    fixed: Behaviour | None = None
    """The behaviour of a job whose model has no choice in it (glossary extraction)."""
    counted_as: float = 1.0
    """The server's tokens for each of honyaku's, as ``count_as`` applied it to ``cost``."""
    tokens: TokenCounter = SCRIPT_RATIO
    """The model's tokenizer, where honyaku ships it; else the per-script ratio."""
    ratio: TokenRatio = field(default_factory=TokenRatio)
    """What earlier jobs' providers reported against honyaku's counts: ``cost`` is scaled by
    it already."""

    def behaviour(self) -> Behaviour:
        return self.fixed or self.tally.behaviour()

    def chunk_chars(self) -> int:
        return best_chunk_chars(
            self.cost,
            self.behaviour(),
            self.weights,
            most=self.most,
            paragraph_chars=self.paragraph_chars,
            window=self.window,
        )

    def count_as(self, factor: float) -> None:
        """Count tokens as the server does, ``factor`` times honyaku's count, where that is
        more than counted so far."""
        if factor > self.counted_as:
            self.rescale(factor / self.counted_as)
            self.counted_as = factor

    def rescale(self, factor: float) -> None:
        """Count every token ``factor`` times as many: the server counts more than honyaku."""
        cost = self.cost
        self.cost = replace(
            cost,
            **{name: getattr(cost, name) * factor for name in _TOKEN_FIELDS},
        )


_TOKEN_FIELDS = (
    "prefix",
    "message",
    "per_char",
    "per_paragraph",
    "written_per_char",
    "written_per_paragraph",
    "per_batch_reply",
    "per_other_reply",
    "per_call",
)


def sizing_for(
    book: Book,
    kind: JobKind,
    *,
    model: str | None,
    record: ModelRecord,
    prices: Prices | None,
    window: int | None = None,
    xml: bool = False,
    glossary: bool = True,
) -> ChunkSizing:
    """How a job of ``kind`` over ``book`` sizes its chunks for ``model`` (``None``: a model
    never named), which earlier jobs left ``record`` of; ``xml``: it speaks the XML protocol;
    ``glossary``: the book has a glossary, and its tools are offered.
    Counted with the model's tokenizer, corrected by what its providers reported before."""
    tokens = token_counter(model)
    ratio = TokenRatio.refined(record.estimated_input_tokens, record.input_tokens, record.jobs)
    work = [p for chapter in book.chapters for p in work_of(chapter, kind)]
    xml_language = book.target_lang if xml else None
    sizing = ChunkSizing(
        text_cost(book, kind, tokens, work, xml_language=xml_language, glossary=glossary),
        Weights.of(prices),
        book.settings.chunk_chars,
        fmean(len(p.text) for p in work) if work else 1.0,
        BehaviourTally.of(record),
        window,
        EXTRACTING if kind is JobKind.EXTRACTION else None,
        tokens=tokens,
        ratio=ratio,
    )
    if ratio.factor != 1.0:
        sizing.rescale(ratio.factor)
    if record.written_chars and record.output_tokens:
        sizing.cost = replace(sizing.cost, written_per_char=_written_per_char(sizing.cost, record))
    return sizing


def _written_per_char(cost: TextCost, record: ModelRecord) -> float:
    """What the model wrote per source character in its earlier jobs, less the JSON around
    each paragraph and the calls: its own language's tokens, as its tokenizer counts them."""
    text = (
        record.output_tokens
        - record.batched_paragraphs * cost.written_per_paragraph
        - record.requests * cost.per_call
    )
    return max(text / record.written_chars, 0.1 * cost.written_per_char)


def text_cost(
    book: Book,
    kind: JobKind,
    tokens: TokenCounter,
    work: list[Paragraph],
    *,
    xml_language: str | None = None,
    glossary: bool = True,
) -> TextCost:
    """What ``book``'s chunks cost a model counted by ``tokens``, measured on ``work``."""
    count = tokens.count
    sample = work[:: max(1, len(work) // SAMPLE_PARAGRAPHS)]
    chars = sum(len(p.text) for p in sample) or 1
    shown = sum(count(p.text) for p in sample)
    markers = [count(f"[{p.index + 1}] [ID: {p.id}] ") + 1 for p in sample] or [1.0]
    written = shown
    if kind in WITH_TRANSLATION:
        translated = sum(count(p.translation or "") for p in sample)
        shown += translated
        written = 0 if kind is JobKind.RATING else translated
        markers = [m + count(TRANSLATION_LINE_PREFIX) + 1 for m in markers]
    return TextCost(
        prefix=_prefix(book, kind, tokens, xml_language, glossary=glossary),
        message=count("Chapter 12, chunk 2/3: 40 work paragraph(s).\n\n"),
        per_char=shown / chars,
        per_paragraph=fmean(markers),
        written_per_char=written / chars,
        written_per_paragraph=count(RATING_JSON if kind is JobKind.RATING else ITEM_JSON),
        per_batch_reply=_batch_reply(tokens),
        per_other_reply=_move_reply(tokens),
        per_call=count(MOVE_CALL),
        moves=3 if kind is JobKind.TRANSLATION else 2,
    )


def title_tokens(tokens: TokenCounter, chapter_id: str, title: str) -> float:
    """A chapter's title block in its first chunk's message."""
    return tokens.count(f"chapter_id: {chapter_id}\ntitle: {title}\n\n")


def _prefix(
    book: Book, kind: JobKind, tokens: TokenCounter, xml_language: str | None, *, glossary: bool
) -> float:
    """Counted as a request is (``llm.messages.request_tokens``): what earlier jobs' providers
    reported against those counts corrects them (``TokenRatio``)."""
    specs = offered_registry(job_registry(kind, book.settings), kind, glossary=glossary).specs
    prompt = tokens.count(job_prompt(book, kind))
    if xml_language is not None:
        return prompt + tokens.count(render_tool_prompt(specs, xml_language))
    return prompt + sum(tokens.count(tool_text(spec)) for spec in specs)


def _batch_reply(tokens: TokenCounter) -> float:
    """A batch as it comes back, without its texts, and its result."""
    workflow = _workflow()
    workflow.move("working")
    ids = list(workflow.assigned)
    result = {"success": True, "accepted": 8, **workflow.accept(ids[:8])}
    call = (
        f'add_translation_batch{{"paragraphs":"saved: {ids[0]} to {ids[7]} (8 paragraph(s); '
        'text left out here)"}'
    )
    return tokens.count(call) + tokens.count(result_json(result))


def _move_reply(tokens: TokenCounter) -> float:
    """A status move and its result."""
    result = {"success": True, **_workflow().move("working")}
    return tokens.count(MOVE_CALL) + tokens.count(result_json(result))


def _workflow() -> ChunkWorkflow:
    """A chunk's workflow halfway: 40 paragraphs of hex ids, as real ones are."""
    ids = [f"{n * 2654435761 % 2**32:08x}" for n in range(40)]
    assigned = {pid: Paragraph(pid, n, "") for n, pid in enumerate(ids)}
    return ChunkWorkflow(JobKind.TRANSLATION, assigned, ("",))
