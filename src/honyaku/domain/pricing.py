"""What tokens cost, at the prices a person saved with a model, and how fast a model may be
asked.

Prices change too often to be facts in code. A model profile holds the prices its owner pays,
per million tokens: input, cached input (what a provider's prompt cache serves, usually a
fraction of input) and output; a profile without them takes a known model's standard prices
from a maintained list (``llm.price_list``). A service tier that a provider bills at a
fraction of its standard prices is counted with the factor below, so a profile keeps its
standard prices and changes only its tier.
"""

from __future__ import annotations

from dataclasses import dataclass

TOKENS_PER_PRICE_UNIT = 1_000_000
SERVICE_TIER_PRICE_FACTORS = {"flex": 0.5}
"""OpenAI bills Flex processing at its Batch API rates, half the standard ones. Tiers not
named here are billed at the prices as saved."""


@dataclass(frozen=True, slots=True)
class Prices:
    """Per million tokens, in whatever currency the person saved them in."""

    input: float
    output: float
    cached_input: float | None = None
    """``None``: cached tokens cost as much as any input."""
    service_tier: str | None = None

    @property
    def factor(self) -> float:
        return SERVICE_TIER_PRICE_FACTORS.get(self.service_tier or "", 1.0)

    def cost(self, uncached: float, cached: float, output: float) -> float:
        """The price of ``uncached`` and ``cached`` input tokens and ``output`` tokens."""
        cached_price = self.input if self.cached_input is None else self.cached_input
        total = uncached * self.input + cached * cached_price + output * self.output
        return total * self.factor / TOKENS_PER_PRICE_UNIT


@dataclass(frozen=True, slots=True)
class RateLimits:
    """What a provider allows one key per minute; ``None`` is no limit."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None

    def __bool__(self) -> bool:
        return bool(self.requests_per_minute or self.tokens_per_minute)
