"""What known models cost, from the price list ``genai-prices`` ships (hundreds of models,
kept up to date by its maintainers and released monthly).

A model is looked up by its name at its server: the base URL says the provider
(api.openai.com is OpenAI, api.deepseek.com DeepSeek, generativelanguage.googleapis.com Google,
openrouter.ai OpenRouter…, by the list's own patterns), so a model of the same name on a local
server is never priced. Only the snapshot packaged with the installed version is read, never
an update from the network: prices change when genai-prices is upgraded, and the source says
which version and the date of its data.

The list is richer than a profile's three prices, so it is read plainly: the standard prices
(no service-tier variant: a profile's tier is counted by ``domain.pricing``); a price that
changes with the length of the prompt, its base tier (Gemini Pro's prices past 200k tokens
are not counted); one that changed over time, the one in force today; one that changes with
the time of day (DeepSeek's off-peak discount), the dearest of the day, so that an estimate or
a cap never counts on a discount. Prices are in US dollars per million tokens. A cache write
is read where the list has one (Anthropic's five-minute write). The list knows batch prices
too (its ``processing: batch`` variants): ``batch=True`` reads those, which halve cache reads
for Anthropic but not for OpenAI or Gemini.

The list takes half a second to load: it is loaded the first time a price is looked up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import cache
from importlib.metadata import version
from typing import TYPE_CHECKING

from honyaku.domain.pricing import BATCH_PRICE_FACTOR, Prices

if TYPE_CHECKING:
    from genai_prices.data_snapshot import DataSnapshot
    from genai_prices.types import ModelInfo, ModelPrice

PRICE_LIST = "genai-prices"
LISTED_CURRENCY = "USD"
_DATE = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")


@dataclass(frozen=True, slots=True)
class ListedPrices:
    """A model's prices as the list has them, and where they come from."""

    prices: Prices
    source: str
    """``genai-prices 0.2.3 (data of 2026-11-09)``."""
    provider: str
    """The provider's id in the list, e.g. ``openai``."""
    model: str
    """The model's id in the list, e.g. ``gpt-4.1-mini``."""


def listed_prices(
    model: str | None, url: str | None, service_tier: str | None = None, *, batch: bool = False
) -> ListedPrices | None:
    """The list's prices for ``model`` served at ``url`` (``batch``: through its Batch API);
    ``None`` for a model or a server it does not know, or a model it knows no input or output
    price of."""
    if not model or not url:
        return None
    try:
        provider, info = _snapshot().find_provider_model(model, None, None, url)
    except LookupError:
        return None
    price = _dearest_today(info, batch=batch)
    input_price, output_price = _base(price.input_mtok), _base(price.output_mtok)
    if input_price is None or output_price is None:
        return None
    cached, written = _base(price.cache_read_mtok), _base(price.cache_write_mtok)
    prices = Prices(
        float(input_price),
        float(output_price),
        None if cached is None else float(cached),
        None if batch else service_tier,
        None if written is None else float(written),
    )
    return ListedPrices(prices, price_list_source(), provider.id, info.id)


@cache
def price_list_source() -> str:
    """The list's name, version and date: the newest date its data records (a price's start,
    a check noted beside a price) that is not after today."""
    return f"{PRICE_LIST} {version(PRICE_LIST)} (data of {_data_date().isoformat()})"


@cache
def _snapshot() -> DataSnapshot:
    """The packaged snapshot itself, never one a background update set."""
    from genai_prices.data import providers
    from genai_prices.data_snapshot import DataSnapshot

    return DataSnapshot(providers=providers, from_auto_update=False)


def _dearest_today(info: ModelInfo, *, batch: bool = False) -> ModelPrice:
    """The prices in force today; where they change with the time of day, the dearest. A model
    the list knows no batch prices of is billed half its standard ones in a batch."""
    from genai_prices.types import TimeOfDateConstraint

    now = datetime.now(UTC)
    moments = [now]
    if isinstance(info.prices, list):
        moments += [
            datetime.combine(now.date(), price.constraint.start_time)
            for price in info.prices
            if isinstance(price.constraint, TimeOfDateConstraint)
        ]
    context = {"processing": "batch"} if batch else None
    dearest = max(
        (info.get_prices(moment, context) for moment in moments),
        key=lambda p: (_base(p.input_mtok) or 0, _base(p.output_mtok) or 0),
    )
    listed = any(v.when.get("processing") == "batch" for v in info.price_variants or ())
    if batch and not listed:
        return _halved(dearest)
    return dearest


def _halved(price: ModelPrice) -> ModelPrice:
    from copy import copy

    halved = copy(price)
    for name in ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok"):
        value = _base(getattr(price, name))
        setattr(halved, name, None if value is None else value * Decimal(BATCH_PRICE_FACTOR))
    return halved


def _base(price: object) -> Decimal | None:
    """A flat price as it is; a tiered one's base tier (the price of a prompt below the
    first threshold)."""
    from genai_prices.types import TieredPrices

    if isinstance(price, TieredPrices):
        return price.base
    return price if isinstance(price, Decimal) else None


def _data_date() -> date:
    from genai_prices.types import StartDateConstraint

    today = datetime.now(UTC).date()
    found: set[date] = set()
    for provider in _snapshot().providers:
        texts = [provider.price_comments]
        for model in provider.models:
            texts.append(model.price_comments)
            for price in model.prices if isinstance(model.prices, list) else ():
                if isinstance(price.constraint, StartDateConstraint):
                    found.add(price.constraint.start_date)
        for text in filter(None, texts):
            for year, month, day in _DATE.findall(text):
                try:
                    found.add(date(int(year), int(month), int(day)))
                except ValueError:
                    continue
    return max((d for d in found if d <= today), default=today)
