"""What a job will cost, before anything is sent: chunks, requests, tokens and money.

The job is planned exactly as it would run (``planning.split_book``), and each chunk's
conversation is played out on paper. Its first request carries the fixed prefix (system
prompt and tool schemas) and the chunk message; each later request adds the replies and
results before it. Tokens are estimated script by script (``domain.tokens``). As a provider's
prompt cache does, a request's prefix that an earlier request already sent is counted as
cached: the fixed prefix from the job's second chunk on, and within a chunk everything the
previous request held.

What the model writes is its calls: each paragraph's text (about as long as the source for a
translation, the current translation for a revision) in its JSON item, the title, the status
moves. How many replies a chunk takes depends on the model: by default one per workflow step
(a cautious model: working, title, paragraphs, review, end), until earlier jobs with the same
model tell better. Those jobs also correct the token estimate: what their provider reported
against what honyaku estimated for the same requests (``TokenRatio``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from honyaku.domain.book import Book, Paragraph
from honyaku.domain.chunking import Chunk
from honyaku.domain.glossary import GlossaryMatcher
from honyaku.domain.pricing import Prices
from honyaku.domain.tokens import TokenRatio, estimate_tokens
from honyaku.domain.workflow import JobKind
from honyaku.jobs.glossary_prompts import chunk_glossary, glossary_section
from honyaku.jobs.planning import split_book
from honyaku.jobs.prompts import chunk_message
from honyaku.jobs.service import job_prompt, job_registry
from honyaku.store.glossary import BookGlossary
from honyaku.store.jobs import ModelRecord
from honyaku.store.stores import Stores

ITEM_JSON = '{"paragraph_id":"1a2b3c4d","translated_text":""},'
"""What a model writes around each paragraph's text."""
CALL_TOKENS = 12
"""A call's name and the JSON around its arguments."""
RESULT_TOKENS = 30
"""A tool result as it goes back: success, status or counts, and what to call next."""


@dataclass(frozen=True, slots=True)
class Estimate:
    chunks: int
    paragraphs: int
    requests: float
    input_tokens: int
    cached_tokens: int
    """Of ``input_tokens``, those a provider's prompt cache would serve."""
    output_tokens: int
    replies_per_chunk: float
    learned_from: int
    """Earlier jobs with the same model that refined the estimate; 0 for none."""
    token_factor: float
    cost: float | None = None
    """In the currency of the prices; ``None`` without prices."""


def estimate_job(
    stores: Stores,
    book_id: str,
    kind: JobKind,
    *,
    chapters: list[int] | None = None,
    paragraphs: list[str] | None = None,
    retranslate: bool = False,
    model: str | None = None,
    prices: Prices | None = None,
) -> Estimate:
    """The estimate for a job over ``book_id``'s ``chapters`` (or only its ``paragraphs``)
    with ``model``; sends nothing."""
    only = None
    if paragraphs is not None:
        only = set(paragraphs)
        chapters = stores.library.chapter_numbers_of(book_id, only)
    book = stores.library.get_book(book_id, chapter_numbers=chapters)
    record = stores.jobs.model_record(model) if model else ModelRecord()
    ratio = TokenRatio.refined(record.estimated_input_tokens, record.input_tokens, record.jobs)
    learned = record.requests / record.chunks if record.chunks else None
    chapters_chunks = split_book(book, kind, retranslate=retranslate, written=set(), only=only)
    prefix = _prefix_tokens(book, kind)
    matcher = BookGlossary(stores.glossary, book.id).matcher()
    total = _Tally()
    for chunks in chapters_chunks:
        for chunk in chunks:
            conversation = _conversation(chunk, kind, len(chunks), prefix, matcher)
            replies = learned or conversation.steps
            total.add(conversation.billed(replies, cached_prefix=total.requests > 0))
    chunk_count = sum(len(chunks) for chunks in chapters_chunks)
    tokens = (
        round(total.input * ratio.factor),
        round(total.cached * ratio.factor),
        round(total.output * ratio.factor),
    )
    cost = prices.cost(tokens[0] - tokens[1], tokens[1], tokens[2]) if prices else None
    return Estimate(
        chunk_count,
        sum(len(c.paragraphs) for chunks in chapters_chunks for c in chunks),
        total.requests,
        *tokens,
        total.requests / chunk_count if chunk_count else 0.0,
        record.jobs if learned or ratio.samples else 0,
        ratio.factor,
        cost,
    )


def _prefix_tokens(book: Book, kind: JobKind) -> float:
    """The system prompt and the tool schemas, as the job sends them."""
    schemas = "".join(
        spec.name + spec.description + json.dumps(spec.parameters, ensure_ascii=False)
        for spec in job_registry(kind, book.settings).specs
    )
    return estimate_tokens(job_prompt(book, kind)) + estimate_tokens(schemas)


@dataclass(frozen=True, slots=True)
class _Billed:
    requests: float
    input: float
    cached: float
    output: float


@dataclass
class _Tally:
    requests: float = 0.0
    input: float = 0.0
    cached: float = 0.0
    output: float = 0.0

    def add(self, billed: _Billed) -> None:
        self.requests += billed.requests
        self.input += billed.input
        self.cached += billed.cached
        self.output += billed.output


@dataclass(frozen=True, slots=True)
class _Conversation:
    """One chunk's conversation on paper: what its model writes, and in how many steps."""

    prompt: float
    """The fixed prefix and the chunk message."""
    prefix: float
    work: float
    """The calls that carry text: the paragraphs and the title."""
    work_calls: int
    moves: int
    """Status moves, each a call of its own."""

    @property
    def steps(self) -> int:
        """Replies a model takes that makes one call a reply."""
        return self.moves + self.work_calls

    def billed(self, replies: float, *, cached_prefix: bool) -> _Billed:
        """The bill for ``replies`` replies (between two whole numbers, the mean of both)."""
        low, high = math.floor(replies), math.ceil(replies)
        if low == high or low < 1:
            return self._billed(max(1, high), cached_prefix)
        a, b = self._billed(low, cached_prefix), self._billed(high, cached_prefix)
        weight = replies - low
        mix = [x * (1 - weight) + y * weight for x, y in zip(_values(a), _values(b), strict=True)]
        return _Billed(*mix)

    def _billed(self, replies: int, cached_prefix: bool) -> _Billed:
        # The work lands in the reply before the last moves (review and end, or end alone),
        # as the prompt's steps order it; moves and their results fill the other replies.
        small = (self.moves * CALL_TOKENS + (self.moves + 1) * RESULT_TOKENS) / replies
        work_at = max(1, replies - (2 if self.moves >= 3 else 1))
        history, uncached, cached = 0.0, 0.0, 0.0
        for reply in range(1, replies + 1):
            shared = history + self.prompt if reply > 1 else (self.prefix if cached_prefix else 0)
            written = small + (self.work if reply == work_at else 0)
            sent = self.prompt + history
            cached += shared
            uncached += sent - shared
            history += written + RESULT_TOKENS
        output = self.work + self.moves * CALL_TOKENS
        return _Billed(replies, uncached + cached, cached, output)


def _values(billed: _Billed) -> tuple[float, float, float, float]:
    return billed.requests, billed.input, billed.cached, billed.output


def _conversation(
    chunk: Chunk, kind: JobKind, in_chapter: int, prefix: float, matcher: GlossaryMatcher
) -> _Conversation:
    message = chunk_message(chunk, kind, chunks_in_chapter=in_chapter)
    glossary = glossary_section(chunk_glossary(chunk, matcher), kind)
    work = sum(_item_tokens(p, kind) for p in chunk.paragraphs)
    calls = 0
    if chunk.paragraphs:
        work += CALL_TOKENS
        calls += 1
    if chunk.shows_title:
        work += CALL_TOKENS + estimate_tokens(chunk.chapter.id + chunk.chapter.title) + 8
        calls += 1
    moves = 3 if kind is JobKind.TRANSLATION else 2
    prompt = prefix + estimate_tokens(message) + estimate_tokens(glossary)
    return _Conversation(prompt, prefix, work, calls, moves)


def _item_tokens(paragraph: Paragraph, kind: JobKind) -> float:
    text = paragraph.text if kind is JobKind.TRANSLATION else paragraph.translation or ""
    return estimate_tokens(ITEM_JSON) + estimate_tokens(text)
