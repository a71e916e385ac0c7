"""What tokens cost, at the prices a person saved with a model, and how fast a model may be
asked.

Prices change too often to be facts in code. A model profile holds the prices its owner pays,
per million tokens: input, cached input (what a provider's prompt cache serves, usually a
fraction of input) and output; a profile without them takes a known model's standard prices
from a maintained list (``llm.price_list``). A service tier that a provider bills at a
fraction of its standard prices is counted with the factor below, so a profile keeps its
standard prices and changes only its tier.

A prompt cache that is written explicitly (Anthropic's ``cache_control`` breakpoints) bills
the tokens it writes at a price of their own, dearer than input (``cache_write``); a cache
that fills by itself (OpenAI's, DeepSeek's, Gemini's implicit one) bills them as input. The
Batch APIs of OpenAI, Anthropic and Gemini bill half the standard prices (``batch_prices``),
cache reads and writes included where the provider discounts them.
"""

from __future__ import annotations

from dataclasses import dataclass

TOKENS_PER_PRICE_UNIT = 1_000_000
SERVICE_TIER_PRICE_FACTORS = {"flex": 0.5}
"""OpenAI bills Flex processing at its Batch API rates, half the standard ones. Tiers not
named here are billed at the prices as saved."""
BATCH_PRICE_FACTOR = 0.5
"""What the Batch APIs of OpenAI, Anthropic and Gemini bill, of the standard prices."""
ANTHROPIC_CACHE_WRITE_FACTOR = 1.25
"""What Anthropic bills a token written to its prompt cache (for five minutes), of input."""


@dataclass(frozen=True, slots=True)
class Prices:
    """Per million tokens, in whatever currency the person saved them in."""

    input: float
    output: float
    cached_input: float | None = None
    """``None``: cached tokens cost as much as any input."""
    service_tier: str | None = None
    cache_write: float | None = None
    """Per million input tokens written to an explicit prompt cache; ``None``: as input."""

    @property
    def factor(self) -> float:
        return SERVICE_TIER_PRICE_FACTORS.get(self.service_tier or "", 1.0)

    def cost(
        self, uncached: float, cached: float, output: float, cache_written: float = 0
    ) -> float:
        """The price of ``uncached`` and ``cached`` input tokens, ``output`` tokens, and
        ``cache_written`` input tokens written to the prompt cache."""
        cached_price = self.input if self.cached_input is None else self.cached_input
        write_price = self.input if self.cache_write is None else self.cache_write
        total = (
            uncached * self.input
            + cached * cached_price
            + cache_written * write_price
            + output * self.output
        )
        return total * self.factor / TOKENS_PER_PRICE_UNIT


def batch_prices(prices: Prices) -> Prices:
    """``prices`` as a Batch API bills them: every one at ``BATCH_PRICE_FACTOR``. (Where the
    price list knows a model's batch prices, ``llm.price_list`` reads those instead: OpenAI
    and Gemini do not discount cache reads in a batch.)"""
    return Prices(
        prices.input * BATCH_PRICE_FACTOR,
        prices.output * BATCH_PRICE_FACTOR,
        None if prices.cached_input is None else prices.cached_input * BATCH_PRICE_FACTOR,
        None,  # a batch is billed as a batch, whatever tier the profile's requests take
        None if prices.cache_write is None else prices.cache_write * BATCH_PRICE_FACTOR,
    )


@dataclass(frozen=True, slots=True)
class RateLimits:
    """What a provider allows one key per minute; ``None`` is no limit."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None

    def __bool__(self) -> bool:
        return bool(self.requests_per_minute or self.tokens_per_minute)
