"""What a job will cost, before anything is sent: chunks, requests, tokens and money.

The job is planned exactly as it would run: at the chunk size the job would choose for the
model (``sizing``), and each chunk's conversation is billed on paper as it would go
(``domain.chunk_sizing.chunk_bill``): the fixed prefix (system prompt and tool schemas) and
the chunk's message with its glossary entries and forms of address, the replies the model
takes, what each adds to the conversation, and the prompt cache of a provider, which serves
every request's prefix that an earlier request sent. The memory's references, which depend
on what the job itself translates, are not counted.

Tokens are counted with the model's own tokenizer where honyaku ships it, else by the
per-script ratio (``llm.tokenizers``); the estimate says which. How many replies a chunk
takes is the model's: learned from its earlier jobs of the same kind. For a model never seen,
each figure lies halfway (as ratios go) between the bill of a careful model (a few paragraphs
a reply, each move a reply of its own, in the chunks the job starts with for a model never
seen) and that of one that does a chunk in one reply, and ``spread`` says how far either may
be.
Earlier jobs also correct the count: what their provider reported against what honyaku
counted for the same requests (``TokenRatio``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from honyaku.domain.book import Book
from honyaku.domain.chunk_sizing import NOTHING, Behaviour, ChunkBill, chunk_bill
from honyaku.domain.chunking import joined_chunks, marked_lines
from honyaku.domain.placeholders import without_hints
from honyaku.domain.pricing import Prices
from honyaku.domain.tokens import TokenCounter
from honyaku.domain.workflow import JobKind
from honyaku.jobs.glossary_prompts import (
    chunk_forms,
    chunk_glossary,
    forms_section,
    glossary_section,
)
from honyaku.jobs.planning import split_book
from honyaku.jobs.sizing import ChunkSizing, sizing_for, title_tokens
from honyaku.store.glossary import BookGlossary
from honyaku.store.jobs import ModelRecord
from honyaku.store.stores import Stores


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
    counted_with: str = ""
    """The tokenizer that counted: ``o200k``, ``DeepSeek``, ``per-script ratio``…"""
    chunk_chars: int = 0
    """The chunk size the job would plan with."""
    spread: float = 1.0
    """For a model never seen: the bill may be this many times less, or more, as the model
    proves to submit whole chunks at once or a few paragraphs a reply; 1 once it is known."""
    batch_cost: float | None = None
    """The same tokens at the provider's Batch API prices; ``None`` without them."""
    batch_rounds: int = 0
    """The batches a job in batch mode would wait for: one per reply of a part (its parts
    go out together), before any round of retries."""


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
    window: int | None = None,
    xml: bool = False,
    chunk_chars: int | None = None,
    batch_prices: Prices | None = None,
) -> Estimate:
    """The estimate for a job over ``book_id``'s ``chapters`` (or only its ``paragraphs``)
    with ``model`` (whose context holds ``window`` tokens, where known; ``xml``: it speaks the
    XML protocol), in chunks of ``chunk_chars`` if given, billed at ``prices`` and, where
    given, at the Batch API's ``batch_prices`` too; sends nothing."""
    only = None
    if paragraphs is not None:
        only = set(paragraphs)
        chapters = stores.library.chapter_numbers_of(book_id, only)
    book = stores.library.whole_book(book_id, chapter_numbers=chapters)
    record = stores.jobs.model_record(model, kind) if model else ModelRecord()
    glossary = bool(BookGlossary(stores.glossary, book_id).entries())
    sizing = sizing_for(
        book,
        kind,
        model=model,
        record=record,
        prices=prices,
        window=window,
        xml=xml,
        glossary=glossary,
    )
    ratio, tokens, weights = sizing.ratio, sizing.tokens, sizing.weights
    paper = _Paper(book, kind, retranslate, only, sizing, tokens, ratio.factor, stores)
    careful = paper.bill(chunk_chars or sizing.chunk_chars(), sizing.behaviour())
    total, spread = careful.bill, 1.0
    if not sizing.behaviour().chunks_seen and sizing.fixed is None:
        # Never seen: between a model that submits whole chunks and a careful one.
        sizing.fixed = WHOLE_CHUNKS
        whole = paper.bill(chunk_chars or sizing.chunk_chars(), WHOLE_CHUNKS).bill
        whole_billed = whole.billed(weights)  # nothing: a book with nothing left to do
        spread = math.sqrt(careful.bill.billed(weights) / whole_billed) if whole_billed else 1.0
        total = _between(careful.bill, whole, spread)
    uncached = total.input - total.cached
    return Estimate(
        careful.chunks,
        careful.paragraphs,
        total.requests,
        round(total.input),
        round(total.cached),
        round(total.output),
        total.requests / careful.chunks if careful.chunks else 0.0,
        record.jobs if sizing.behaviour().chunks_seen or ratio.samples else 0,
        ratio.factor,
        prices.cost(uncached, total.cached, total.output) if prices else None,
        tokens.name,
        careful.chunk_chars,
        spread,
        batch_prices.cost(uncached, total.cached, total.output) if batch_prices else None,
        max(1, math.ceil(total.requests / careful.chunks)) if careful.chunks else 0,
    )


WHOLE_CHUNKS = Behaviour(batch_paragraphs=None, other_replies=0.0)
"""A model that does a chunk's every step in one reply: the cheapest there is."""


@dataclass(frozen=True, slots=True)
class _Planned:
    chunks: int
    paragraphs: int
    chunk_chars: int
    bill: ChunkBill


@dataclass(frozen=True, slots=True)
class _Paper:
    """A job planned and billed on paper."""

    book: Book
    kind: JobKind
    retranslate: bool
    only: set[str] | None
    sizing: ChunkSizing
    tokens: TokenCounter
    factor: float
    stores: Stores

    def bill(self, chunk_chars: int, behaviour: Behaviour) -> _Planned:
        """The plan at ``chunk_chars``, and its bill with a model that works so."""
        book, kind = self.book, self.kind
        glossary = BookGlossary(self.stores.glossary, book.id)
        matcher, cast = glossary.matcher(), glossary.cast()
        planned = split_book(
            book,
            kind,
            retranslate=self.retranslate,
            written=set(),
            chunk_chars=chunk_chars,
            only=self.only,
        )
        total: ChunkBill = NOTHING
        chunks = joined_chunks(planned, chunk_chars)
        for chunk in chunks:
            forms = chunk_forms(chunk, cast, matcher)
            sections = glossary_section(chunk_glossary(chunk, matcher), kind) + forms_section(
                forms, kind, chapters=len(chunk.sections)
            )
            title = sum(title_tokens(self.tokens, c.id, c.title) for c in chunk.titles)
            paragraphs = chunk.all_paragraphs
            # The work lines as the model reads them: placeholders are read and written back,
            # reading hints only read.
            shown = marked_lines(paragraphs, kind, book.settings.ruby)
            chars = sum(
                len(without_hints(shown[p.id].text, shown[p.id])) if p.id in shown else len(p.text)
                for p in paragraphs
            )
            hints = "".join(hint for line in shown.values() for hint in line.hints)
            total += chunk_bill(
                self.sizing.cost,
                behaviour,
                chars,
                len(paragraphs),
                title=title * self.factor,
                shown=self.tokens.count(sections + hints) * self.factor,
                cached_prefix=total.requests > 0,
            )
        # Parts as the job plans them, each chapter's own; billed as the conversations go.
        parts = sum(len(chunks) for chunks in planned)
        done = sum(len(chunk.all_paragraphs) for chunk in chunks)
        return _Planned(parts, done, chunk_chars, total)


def _between(careful: ChunkBill, whole: ChunkBill, spread: float) -> ChunkBill:
    """Halfway between the two bills, as ratios go: the careful one ``spread`` times less,
    in the same parts; requests halfway between their counts."""
    return ChunkBill(
        math.sqrt(careful.requests * whole.requests),
        careful.input / spread,
        careful.cached / spread,
        careful.output / spread,
    )
