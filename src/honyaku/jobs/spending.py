"""A cap on what one run of a job spends: it stops before the request that could pass it.

A run counts what each reply cost at the model's prices: the tokens the provider reported,
or honyaku's estimate where it reported none. Before a request goes out, the run adds what
that request could cost at most to what it has spent and to what its requests still in
flight could cost. If that passes the cap, the request waits for those in flight to be
answered; once none are, it is not sent: ``SpendingCapReached`` ends the chunk's chapter,
the other chapters finish the replies they have paid for, and the job stops. Accepted work
is saved, and the job resumes like any stopped one: each run has a cap of its own, so
running it again spends up to the cap again.

A queued job's run is shared by every worker running its chapters: its ledger is kept in the
database (``SharedSpending``), and each worker checks it before a request.

The most a request could cost counts every prompt token as uncached (a provider's cache is
not a promise), and a reply that writes everything the chunk still lacks: each missing
paragraph's text half as long again, in its JSON item, the title, the status moves
(``reply_bound``). A request refused or cut midway counts that much too, since the provider
may bill what was written. The cap may stop a run a request early, never late.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from honyaku.domain.book import Book
from honyaku.domain.pricing import Prices
from honyaku.domain.tokens import estimate_tokens
from honyaku.domain.workflow import ChunkWorkflow, JobKind
from honyaku.errors import (
    ConfigError,
    ContentFilteredError,
    CutStreamError,
    DegenerateReplyError,
    SpendingCapReached,
)
from honyaku.jobs.progress import cost_of
from honyaku.llm.events import ChatProvider, Response, StreamEvent, Usage
from honyaku.llm.messages import ChatRequest, request_tokens
from honyaku.llm.wrapper import ProviderWrapper
from honyaku.store.spending import SpendingLedger

TEXT_GROWTH = 1.5
"""A rewritten text's tokens, at most, for each of its source's (or current translation's)."""
ITEM_TOKENS = 20
"""A batch item's JSON around its text: the keys and the paragraph id."""
MOVES_TOKENS = 60
"""The status moves and the call names around them."""
BILLED_UNANSWERED = (ContentFilteredError, CutStreamError, DegenerateReplyError)
"""Requests that get no reply, yet may be billed for what the model wrote before it stopped."""
SETTLED_POLL_S = 0.2
"""How often a queued run's request that waits for others in flight looks again."""


def check_cap(cap: float | None, prices: Prices | None) -> None:
    """Refuse a cap that cannot be kept: without prices, spending cannot be counted."""
    if cap is not None and prices is None:
        raise ConfigError(
            "a spending cap needs the model's prices: save them with the model",
            terminal_hint="honyaku models add NAME --input-price P --output-price P, "
            "and use --model NAME",
        )


def spending_cap(asked: float | None, book: Book, prices: Prices | None) -> float | None:
    """A run's cap: the one asked for, else the book's; refused where it cannot be kept."""
    cap = asked if asked is not None else book.settings.max_cost
    check_cap(cap, prices)
    return cap


def purse(
    cap: float | None, prices: Prices | None, shared: tuple[SpendingLedger, str] | None = None
) -> Purse | None:
    """What a run may spend, where it has a cap. A queued run's ledger is ``shared`` by every
    worker running it: the ledger, and the run's key."""
    if cap is None or prices is None:
        return None
    if shared is not None:
        return SharedSpending(shared[0], shared[1], cap, prices)
    return Spending(cap, prices)


def reply_bound(workflow: ChunkWorkflow, titles: Mapping[str, str]) -> float:
    """The most tokens a reply in the chunk could write: all that is still missing
    (``titles``: the chunk's chapters' titles by id)."""
    texts = [
        p.text if workflow.kind is JobKind.TRANSLATION else p.translation or p.text
        for pid, p in workflow.assigned.items()
        if pid not in workflow.accepted
    ]
    work = sum(estimate_tokens(t) * TEXT_GROWTH + ITEM_TOKENS for t in texts)
    for chapter in workflow.missing_titles:
        work += estimate_tokens(titles[chapter]) * TEXT_GROWTH + ITEM_TOKENS
    return work + MOVES_TOKENS


def usage_cost(usage: Usage, prices: Prices) -> float:
    """What a reply cost: the reported tokens, or honyaku's estimate where none were."""
    return cost_of(usage).price(prices)


@dataclass
class _Tally:
    """What a run has spent, and what its requests in flight could cost, in money."""

    spent: float = 0.0
    in_flight: float = 0.0
    settled: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Spending:
    """What one run has spent, and may spend, at one model's prices."""

    cap: float
    prices: Prices
    tally: _Tally = field(default_factory=_Tally)

    def at_prices(self, prices: Prices) -> Spending:
        """The same run's spending, for a request to a model with other prices."""
        return Spending(self.cap, prices, self.tally)

    async def reserve(self, request: ChatRequest, reply_tokens: float) -> float:
        """Count the most ``request`` could cost as in flight. While that could pass the cap,
        wait for the requests in flight to be answered (they may cost less than they could);
        with none left in flight, raise."""
        most = self.prices.cost(request_tokens(request), 0, reply_tokens)
        tally = self.tally
        while tally.spent + tally.in_flight + most > self.cap:
            if not tally.in_flight:
                raise SpendingCapReached(self.cap, tally.spent, most)
            await tally.settled.wait()
        tally.in_flight += most
        return most

    async def try_reserve(self, request: ChatRequest, reply_tokens: float) -> float | None:
        """``reserve`` for a request that need not go now (a line of the next batch): the
        most it could cost counted as in flight if that fits, else ``None`` while requests
        are in flight, else ``SpendingCapReached``."""
        most = self.prices.cost(request_tokens(request), 0, reply_tokens)
        tally = self.tally
        if tally.spent + tally.in_flight + most > self.cap:
            if not tally.in_flight:
                raise SpendingCapReached(self.cap, tally.spent, most)
            return None
        tally.in_flight += most
        return most

    async def settle(self, reserved: float, usage: Usage | None) -> None:
        """The request is answered (``usage``) or gave up (``None``)."""
        tally = self.tally
        tally.in_flight -= reserved
        if usage is not None:
            tally.spent += usage_cost(usage, self.prices)
        settled, tally.settled = tally.settled, asyncio.Event()
        settled.set()


class SharedSpending:
    """What one queued run has spent, and may spend, across every worker running it: the
    same rule as ``Spending``, kept in the database's ledger (``store.spending``). A request
    that does not fit waits for those in flight anywhere to be answered."""

    def __init__(self, ledger: SpendingLedger, run: str, cap: float, prices: Prices) -> None:
        self.ledger, self.run, self.cap, self.prices = ledger, run, cap, prices

    def at_prices(self, prices: Prices) -> SharedSpending:
        return SharedSpending(self.ledger, self.run, self.cap, prices)

    async def reserve(self, request: ChatRequest, reply_tokens: float) -> int:
        most = self.prices.cost(request_tokens(request), 0, reply_tokens)
        while True:
            found = await asyncio.to_thread(self.ledger.reserve, self.run, self.cap, most)
            if found.reservation is not None:
                return found.reservation
            if not found.in_flight:
                raise SpendingCapReached(self.cap, found.spent, most)
            await asyncio.sleep(SETTLED_POLL_S)

    async def try_reserve(self, request: ChatRequest, reply_tokens: float) -> int | None:
        most = self.prices.cost(request_tokens(request), 0, reply_tokens)
        found = await asyncio.to_thread(self.ledger.reserve, self.run, self.cap, most)
        if found.reservation is None and not found.in_flight:
            raise SpendingCapReached(self.cap, found.spent, most)
        return found.reservation

    async def settle(self, reserved: int, usage: Usage | None) -> None:
        cost = usage_cost(usage, self.prices) if usage is not None else 0.0
        # Written even if the run is being cancelled: the ledger must not keep it in flight.
        await asyncio.shield(asyncio.to_thread(self.ledger.settle, reserved, cost))


class Purse(Protocol):
    """A run's spending: in this process (``Spending``) or shared (``SharedSpending``)."""

    def at_prices(self, prices: Prices) -> Purse:
        """The same spending, counted at another model's prices (a fallback's)."""
        ...

    async def reserve(self, request: ChatRequest, reply_tokens: float) -> Any: ...

    async def try_reserve(self, request: ChatRequest, reply_tokens: float) -> Any | None:
        """The most ``request`` could cost, reserved if it fits now; ``None`` if it must wait
        for requests in flight; ``SpendingCapReached`` if it cannot fit."""
        ...

    async def settle(self, reserved: Any, usage: Usage | None) -> None: ...


class CappedProvider(ProviderWrapper):
    """A provider whose requests go out only while the run's spending stays under its cap;
    ``reply_bound`` says how long the next reply could be."""

    def __init__(
        self, inner: ChatProvider, spending: Purse, reply_bound: Callable[[], float]
    ) -> None:
        super().__init__(inner)
        self.spending = spending
        self.reply_bound = reply_bound

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        bound = self.reply_bound()
        reserved = await self.spending.reserve(request, bound)
        usage = None
        try:
            async for event in self.inner.stream(request):
                if isinstance(event, Response):
                    usage = event.usage
                yield event
        except BILLED_UNANSWERED:
            # The provider wrote part of a reply before it was refused or cut, and may bill
            # it: counted at the most it could cost, so that the cap is never passed.
            usage = Usage(0, 0, request_tokens(request), int(bound))
            raise
        finally:
            await self.spending.settle(reserved, usage)
