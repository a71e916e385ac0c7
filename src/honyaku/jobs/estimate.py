"""What a job will cost, before anything is sent: chunks, requests, tokens and money.

The job is planned exactly as it would run: at the chunk size the job would choose for the
model (``sizing``), and each chunk's conversation is billed on paper as it would go
(``domain.chunk_sizing.chunk_bill``): the fixed prefix (system prompt and tool schemas) and
the chunk's message with its glossary entries, the replies the model takes, what each adds
to the conversation, and the prompt cache of a provider, which serves every request's
prefix that an earlier request sent.

Tokens are counted with the model's own tokenizer where honyaku ships it, else by the
per-script ratio (``llm.tokenizers``); the estimate says which. How many replies a chunk
takes is the model's: learned from its earlier jobs of the same kind, or, for a model never
seen, that of a careful model (a few paragraphs a reply, each move a reply of its own).
Earlier jobs also correct the count: what their provider reported against what honyaku
counted for the same requests (``TokenRatio``).
"""

from __future__ import annotations

from dataclasses import dataclass

from honyaku.domain.chunk_sizing import NOTHING, ChunkBill, Weights, chunk_bill
from honyaku.domain.pricing import Prices
from honyaku.domain.tokens import TokenRatio
from honyaku.domain.workflow import JobKind
from honyaku.jobs.glossary_prompts import chunk_glossary, glossary_section
from honyaku.jobs.planning import split_book
from honyaku.jobs.sizing import chunk_sizing, title_tokens
from honyaku.llm.tokenizers import token_counter
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


def estimate_job(
    stores: Stores,
    book_id: str,
    kind: JobKind,
    *,
    chapters: list[int] | None = None,
    retranslate: bool = False,
    model: str | None = None,
    prices: Prices | None = None,
    window: int | None = None,
    xml: bool = False,
    chunk_chars: int | None = None,
) -> Estimate:
    """The estimate for a job over ``book_id``'s ``chapters`` with ``model`` (whose context
    holds ``window`` tokens, where known; ``xml``: it speaks the XML protocol), in chunks of
    ``chunk_chars`` if given; sends nothing."""
    book = stores.library.get_book(book_id, chapter_numbers=chapters)
    record = stores.jobs.model_record(model, kind) if model else ModelRecord()
    ratio = TokenRatio.refined(record.estimated_input_tokens, record.input_tokens, record.jobs)
    tokens = token_counter(model)
    sizing = chunk_sizing(
        book,
        kind,
        tokens,
        record=record,
        weights=Weights.of(prices),
        factor=ratio.factor,
        window=window,
        xml_language=book.target_lang if xml else None,
    )
    chunk_chars = chunk_chars or sizing.chunk_chars()
    behaviour = sizing.behaviour()
    matcher = BookGlossary(stores.glossary, book.id).matcher()
    planned = split_book(
        book, kind, retranslate=retranslate, written=set(), chunk_chars=chunk_chars
    )
    total: ChunkBill = NOTHING
    for chunks in planned:
        for chunk in chunks:
            glossary = glossary_section(chunk_glossary(chunk, matcher), kind)
            chapter = chunk.chapter
            title = title_tokens(tokens, chapter.id, chapter.title) if chunk.shows_title else 0.0
            total += chunk_bill(
                sizing.cost,
                behaviour,
                sum(len(p.text) for p in chunk.paragraphs),
                len(chunk.paragraphs),
                title=title * ratio.factor,
                shown=tokens.count(glossary) * ratio.factor,
                cached_prefix=total.requests > 0,
            )
    count = sum(len(chunks) for chunks in planned)
    uncached = total.input - total.cached
    return Estimate(
        count,
        sum(len(c.paragraphs) for chunks in planned for c in chunks),
        total.requests,
        round(total.input),
        round(total.cached),
        round(total.output),
        total.requests / count if count else 0.0,
        record.jobs if behaviour.chunks_seen or ratio.samples else 0,
        ratio.factor,
        prices.cost(uncached, total.cached, total.output) if prices else None,
        tokens.name,
        chunk_chars,
    )
