"""What a chunk's conversation costs on paper, and the chunk size that costs least and fits."""

from __future__ import annotations

import pytest

from honyaku.domain.chunk_sizing import (
    UNSEEN,
    Behaviour,
    TextCost,
    Weights,
    best_chunk_chars,
    chunk_bill,
    largest_context,
)
from honyaku.domain.pricing import Prices

COST = TextCost(
    prefix=1300,
    message=15,
    per_char=0.85,
    per_paragraph=15,
    written_per_char=0.9,
    written_per_paragraph=18,
    per_batch_reply=85,
    per_other_reply=45,
    per_call=8,
    moves=3,
)
WHOLE = Behaviour(batch_paragraphs=None, other_replies=0.0, chunks_seen=4)
STEPWISE = Behaviour(batch_paragraphs=None, other_replies=3.5, chunks_seen=4)
CAREFUL = Behaviour(batch_paragraphs=7.5, other_replies=3.5, chunks_seen=4)


def best(behaviour: Behaviour, window: int | None = None, paragraph_chars: float = 80) -> int:
    return best_chunk_chars(
        COST, behaviour, Weights(), most=6000, paragraph_chars=paragraph_chars, window=window
    )


def test_a_model_that_does_a_chunk_in_one_reply_is_best_served_by_the_largest_chunks():
    assert best(WHOLE) == best(STEPWISE) == 6000


def test_a_careful_model_is_best_served_by_smaller_chunks_the_shorter_its_paragraphs():
    assert best(CAREFUL, paragraph_chars=150) < 6000
    assert best(CAREFUL, paragraph_chars=30) < best(CAREFUL, paragraph_chars=150)


def test_a_chunk_and_its_longest_reply_fit_the_window_with_room_to_spare():
    chars = best(WHOLE, window=8192)

    paragraphs = round(chars / 80)
    assert 300 <= chars < 6000
    assert largest_context(COST, WHOLE, chars, paragraphs) <= 0.85 * 8192


def test_a_model_not_seen_yet_may_write_its_whole_chunk_in_one_reply():
    seen_careful = largest_context(COST, CAREFUL, 3000, 40)

    assert largest_context(COST, UNSEEN, 3000, 40) > seen_careful


def test_a_careful_conversation_resends_the_chunk_each_reply_from_the_cache():
    whole = chunk_bill(COST, WHOLE, 3000, 40, cached_prefix=True)
    careful = chunk_bill(COST, CAREFUL, 3000, 40, cached_prefix=True)

    assert whole.requests == 1
    assert whole.cached == COST.prefix
    assert careful.requests == pytest.approx(3.5 + 40 / 7.5 + 0.5)
    assert careful.cached > 5 * whole.input
    assert careful.output == pytest.approx(whole.output + 6 * COST.per_call, rel=0.05)
    assert careful.requests == pytest.approx(3.5 + CAREFUL.batches(40))


def test_the_first_chunk_of_a_job_pays_the_prefix_uncached():
    first = chunk_bill(COST, WHOLE, 3000, 40, cached_prefix=False)

    assert first.cached == 0
    assert first.input == chunk_bill(COST, WHOLE, 3000, 40, cached_prefix=True).input


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        # Four chunks of 40 paragraphs, each in one reply holding its batch.
        ({"replies": 4, "batch_replies": 4, "batched": 160}, WHOLE),
        # Each in five replies, one of them with the whole batch.
        ({"replies": 20, "batch_replies": 4, "batched": 160}, Behaviour(None, 4.0, 4)),
        # Each in nine replies, six with batches of a few paragraphs, the last half full.
        ({"replies": 36, "batch_replies": 24, "batched": 160}, Behaviour(160 / 22, 3.0, 4)),
    ],
)
def test_a_models_way_is_learned_from_its_ended_chunks(counts, expected):
    assert Behaviour.observed(chunks=4, paragraphs=160, **counts) == expected


def test_nothing_is_learned_before_a_chunk_ends():
    assert Behaviour.observed(chunks=0, paragraphs=0, replies=0, batch_replies=0, batched=0) is None


def test_a_bill_is_weighed_by_the_models_prices():
    weights = Weights.of(Prices(input=2.0, output=8.0, cached_input=0.5))

    assert (weights.cached, weights.output) == (0.25, 4.0)
    assert Weights.of(None) == Weights()
