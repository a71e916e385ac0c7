"""What one chunk's conversation costs, on paper, and the chunk size that costs least.

A chunk's conversation is a run of requests. The first holds the fixed prefix (system prompt
and tool schemas) and the chunk's message; each later one holds the whole of the one before,
plus the reply and the results that came back (a saved batch comes back without its texts),
so a provider's prompt cache serves all but that growth. Hence, for ``R`` replies:

- the uncached input is the last request, less the prefix where an earlier chunk sent it;
- the cached input is every earlier request of the chunk, and that prefix;
- the output is every paragraph's text in its JSON item, the title, and each call's name.

How many replies a chunk takes is the model's ``Behaviour``: how many paragraphs a reply with
a batch carries (``None``: every missing one at once) and how many replies carry none
(status moves, the title, refused calls). A model that submits everything at once pays the
least with the largest chunks. A careful one, a few paragraphs a reply, resends the chunk
with every reply, so its bill grows with the square of the chunk: the chunk that costs
least per character is found by trying sizes (``best_chunk_chars``). Every size must also
fit the model's context window: its last request and its longest reply, with room to spare.

Costs are weighed as a provider bills them (``Weights``): cached input and output against
uncached input, by the model's prices where known, else by the usual ratios (a quarter,
four times).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from honyaku.domain.pricing import Prices

CACHED_WEIGHT = 0.25
OUTPUT_WEIGHT = 4.0
WINDOW_SHARE = 0.85
"""Of the context window, what a conversation may fill: chat templates add tokens, and the
count of a model whose tokenizer honyaku lacks is an estimate."""
SMALLEST_CHUNK_CHARS = 300
LAST_BATCH = 0.5
"""A chunk's last batch is, on average, half a batch: it holds what is left."""
SIZE_STEPS = 40
"""Sizes tried between the smallest and the largest, evenly on a log scale."""
NEAR_BEST = 1.02
"""Of sizes within 2% of the cheapest, the largest is taken: fewer requests for the same bill."""


@dataclass(frozen=True, slots=True)
class Weights:
    """What a cached input token and an output token cost, in uncached input tokens."""

    cached: float = CACHED_WEIGHT
    output: float = OUTPUT_WEIGHT

    @classmethod
    def of(cls, prices: Prices | None) -> Weights:
        if prices is None or not prices.input:
            return cls()
        cached = prices.input if prices.cached_input is None else prices.cached_input
        return cls(cached / prices.input, prices.output / prices.input)


@dataclass(frozen=True, slots=True)
class Behaviour:
    """How a model works through a chunk."""

    batch_paragraphs: float | None
    """Paragraphs a full batch carries (a chunk's last is shorter); ``None``: every missing
    one at once."""
    other_replies: float
    """Replies a chunk takes that carry no batch: status moves, the title, refused calls."""
    chunks_seen: int = 0
    """Chunks it was learned from; 0 for an assumption."""

    def batches(self, paragraphs: int) -> float:
        """Replies with a batch, on average: full ones, and a last one half full."""
        if not paragraphs:
            return 0.0
        if self.batch_paragraphs is None:
            return 1.0
        return max(1.0, paragraphs / max(1.0, self.batch_paragraphs) + LAST_BATCH)

    def replies(self, paragraphs: int) -> float:
        return max(1.0, self.other_replies + self.batches(paragraphs))

    def reply_paragraphs(self, paragraphs: int) -> float:
        """The most paragraphs one reply writes: twice its mean batch, as batches vary."""
        if self.batch_paragraphs is None:
            return paragraphs
        return min(paragraphs, math.ceil(2 * self.batch_paragraphs))

    @classmethod
    def observed(
        cls, *, chunks: int, paragraphs: int, replies: int, batch_replies: int, batched: int
    ) -> Behaviour | None:
        """The behaviour shown by ``chunks`` ended chunks of ``paragraphs`` work paragraphs in
        all, answered in ``replies`` replies, ``batch_replies`` of which carried batches of
        ``batched`` paragraphs in all; ``None`` before any chunk ended."""
        if chunks <= 0 or replies <= 0:
            return None
        per_batch = batched / batch_replies if batch_replies else None
        # A model whose batches held (nearly) whole chunks submits all it has at once.
        whole = per_batch is None or per_batch >= 0.9 * paragraphs / chunks
        full = batched / max(1.0, batch_replies - LAST_BATCH * chunks)
        return cls(
            None if whole else full,
            max(0.0, (replies - batch_replies) / chunks),
            chunks,
        )


UNSEEN = Behaviour(batch_paragraphs=7.5, other_replies=3.5)
"""What a model never seen is assumed to do: work carefully, as real models often do (3 to 12
paragraphs a batch, a short one last; each move a reply of its own, and a title or a refusal
now and then), so that its first chunks are not the dearest. They then teach the job."""


@dataclass(frozen=True, slots=True)
class TextCost:
    """What a book's chunks cost a model, in its tokens."""

    prefix: float
    """System prompt and tool schemas."""
    message: float
    """The chunk message's header (and a chapter title where shown)."""
    per_char: float
    """Tokens per source character of a work line's text."""
    per_paragraph: float
    """A work line's marker, ``[n] [ID: xxxxxxxx] ``."""
    written_per_char: float
    """Tokens the model writes per source character of the text it renders."""
    written_per_paragraph: float
    """The JSON item around each rendered paragraph."""
    per_batch_reply: float
    """What a reply with a batch adds to the conversation: the batch as sent back (without
    its texts), and its result."""
    per_other_reply: float
    """What a reply with a status move adds: the call and its result."""
    per_call: float
    """A call's name and the JSON around arguments without text (a status move)."""
    moves: int
    """The status moves of the kind's workflow (translation: working, review, end)."""


@dataclass(frozen=True, slots=True)
class ChunkBill:
    requests: float
    input: float
    cached: float
    """Of ``input``, what a provider's prompt cache serves."""
    output: float

    def billed(self, weights: Weights) -> float:
        """In uncached input tokens."""
        return (
            self.input - self.cached + weights.cached * self.cached + weights.output * self.output
        )

    def __add__(self, other: ChunkBill) -> ChunkBill:
        return ChunkBill(
            self.requests + other.requests,
            self.input + other.input,
            self.cached + other.cached,
            self.output + other.output,
        )


NOTHING = ChunkBill(0.0, 0.0, 0.0, 0.0)


def chunk_bill(
    cost: TextCost,
    behaviour: Behaviour,
    chars: int,
    paragraphs: int,
    *,
    title: float = 0.0,
    shown: float = 0.0,
    cached_prefix: bool,
) -> ChunkBill:
    """The bill of a chunk of ``paragraphs`` paragraphs and ``chars`` source characters, with a
    title of ``title`` tokens to translate (0 for none) and ``shown`` more tokens in its
    message (its glossary entries); ``cached_prefix``: an earlier chunk sent the prefix."""
    replies = behaviour.replies(paragraphs)
    growth = _growth(cost, behaviour, paragraphs, replies)
    first = _first_request(cost, chars, paragraphs, title + shown)
    last = first + growth * (replies - 1)
    sent = replies * first + growth * replies * (replies - 1) / 2
    uncached = last - (cost.prefix if cached_prefix else 0.0)
    work = chars * cost.written_per_char + paragraphs * cost.written_per_paragraph
    if title:
        work += title + cost.written_per_paragraph
    calls = cost.moves + (1 if title else 0) + behaviour.batches(paragraphs)
    return ChunkBill(replies, sent, sent - uncached, work + calls * cost.per_call)


def largest_context(cost: TextCost, behaviour: Behaviour, chars: int, paragraphs: int) -> float:
    """The most tokens the chunk's conversation holds at once: its last request and the
    longest reply (for a model not seen yet, one with the whole chunk)."""
    replies = behaviour.replies(paragraphs)
    growth = _growth(cost, behaviour, paragraphs, replies)
    last = _first_request(cost, chars, paragraphs, 0.0) + growth * (replies - 1)
    # A model not yet seen may write the whole chunk in one reply.
    widest = behaviour.reply_paragraphs(paragraphs) if behaviour.chunks_seen else paragraphs
    share = widest / paragraphs if paragraphs else 0.0
    reply = share * (chars * cost.written_per_char + paragraphs * cost.written_per_paragraph)
    return last + reply + cost.per_call * cost.moves


def _growth(cost: TextCost, behaviour: Behaviour, paragraphs: int, replies: float) -> float:
    """What a reply adds to the conversation, on average over the chunk's replies."""
    batches = behaviour.batches(paragraphs)
    return (batches * cost.per_batch_reply + (replies - batches) * cost.per_other_reply) / replies


def _first_request(cost: TextCost, chars: int, paragraphs: int, title: float) -> float:
    return (
        cost.prefix + cost.message + title + chars * cost.per_char + paragraphs * cost.per_paragraph
    )


def fits(
    cost: TextCost, behaviour: Behaviour, chars: int, paragraphs: int, window: int | None
) -> bool:
    return window is None or largest_context(cost, behaviour, chars, paragraphs) <= (
        WINDOW_SHARE * window
    )


def best_chunk_chars(
    cost: TextCost,
    behaviour: Behaviour,
    weights: Weights,
    *,
    most: int,
    paragraph_chars: float,
    window: int | None = None,
) -> int:
    """The chunk size in source characters, at most ``most``, that bills least per character
    and fits ``window``; ``paragraph_chars`` is the book's mean work paragraph."""
    paragraph_chars = max(1.0, paragraph_chars)
    best: list[tuple[float, int]] = []
    for chars in _sizes(min(SMALLEST_CHUNK_CHARS, most), most):
        paragraphs = max(1, round(chars / paragraph_chars))
        if not fits(cost, behaviour, chars, paragraphs, window):
            break
        bill = chunk_bill(cost, behaviour, chars, paragraphs, cached_prefix=True)
        best.append((bill.billed(weights) / chars, chars))
    if not best:
        return min(SMALLEST_CHUNK_CHARS, most)
    lowest = min(per_char for per_char, _ in best)
    return max(chars for per_char, chars in best if per_char <= lowest * NEAR_BEST)


def _sizes(smallest: int, largest: int) -> list[int]:
    if largest <= smallest:
        return [largest]
    ratio = (largest / smallest) ** (1 / SIZE_STEPS)
    return sorted({round(smallest * ratio**step) for step in range(SIZE_STEPS + 1)})
