"""A run's models: the one chosen, then its fallbacks, all checked and opened before the
run's first request, and closed with the run.

Every model of a run talks with the same system prompt and tools, and pays from the same
spending cap, at its own prices. A fallback that cannot be opened, or whose server refuses
its key (asked once, with the cheapest request), stops the run before it begins, in one
line naming it. A fallback takes the parts it is given as they are: it plans
nothing again by what it learns, and what does not fit its context window is planned again
alone, the run's other parts as they were.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass

from honyaku.agent.registry import ToolRegistry
from honyaku.domain.book import Book
from honyaku.domain.pricing import Prices
from honyaku.errors import AuthError, FallbackUnavailableError, HonyakuError
from honyaku.jobs.chunk_driver import ModelDeps
from honyaku.jobs.chunk_run import ChunkTalk
from honyaku.jobs.records import JobRecords
from honyaku.jobs.replanning import Replanner
from honyaku.jobs.requests import JobRequest
from honyaku.jobs.sizing import ChunkSizing, sizing_for
from honyaku.jobs.spending import Purse
from honyaku.jobs.tools import ChunkContext
from honyaku.llm.model_check import check_model
from honyaku.llm.models import ConnectedModel, ModelChoice, ModelOpener, ToolProtocol


@dataclass(frozen=True, slots=True)
class Connected:
    """A model opened for the run, and the sizing of the book's chunks for it."""

    model: ConnectedModel
    sizing: ChunkSizing
    prices: Prices | None

    @property
    def name(self) -> str:
        """The name its versions and costs are kept under."""
        return self.model.provider.model


async def _check_key(choice: ModelChoice) -> None:
    """Refuse a fallback whose server refuses its key, with one cheap request: it would
    otherwise be found out only when a round needs it. A model with no key to send (a
    local server) is not asked."""
    if await asyncio.to_thread(lambda: choice.found_key) is None:
        return
    check = await check_model(choice)
    if check.key_accepted is False:
        raise AuthError(check.problem or "the server refused the API key")


class ModelChain:
    def __init__(
        self,
        open_model: ModelOpener,
        opened: AsyncExitStack,
        book: Book,
        request: JobRequest,
        talk: tuple[ToolRegistry[ChunkContext], str],
        spending: Purse | None,
    ) -> None:
        self._open_model, self._opened = open_model, opened
        self.book, self.request = book, request
        self._registry, self._prompt = talk
        self.spending = spending
        self._chain: list[ModelDeps] = []

    async def connect(self, choice: ModelChoice, records: JobRecords) -> list[Connected]:
        """Open ``choice`` and each of its fallbacks for the run, and size the book's chunks
        for each; a fallback that cannot be opened is named in the one line that says why."""
        chain = [await self._connect(choice, records)]
        for fallback in choice.fallbacks:
            try:
                await _check_key(fallback)
                chain.append(await self._connect(fallback, records))
            except HonyakuError as exc:
                raise FallbackUnavailableError(fallback.profile or fallback.model, exc) from exc
        return chain

    def start(self, chain: list[Connected], replanner: Replanner) -> None:
        """The chain's models, ready to talk: the first planned with ``replanner``; each
        fallback taking parts of the size the first planned at most."""
        first, *fallbacks = chain
        self._chain = [ModelDeps(self._talk(first), replanner, self.spending, first.prices)]
        self._chain += [self._fallback(connected, replanner) for connected in fallbacks]

    async def _connect(self, choice: ModelChoice, records: JobRecords) -> Connected:
        model = await self._opened.enter_async_context(
            self._open_model(choice, language=self.book.target_lang)
        )
        name, kind = model.provider.model, self.request.kind
        record = await records.run(records.model_record, name, kind)
        glossary = await records.run(records.has_glossary, self.book.id)
        sizing = await asyncio.to_thread(
            sizing_for,
            self.book,
            kind,
            model=name,
            record=record,
            prices=choice.prices,
            window=model.window.tokens,
            xml=model.protocol is ToolProtocol.XML,
            glossary=glossary,
        )
        return Connected(model, sizing, choice.prices)

    @property
    def first(self) -> ModelDeps:
        return self._chain[0]

    @property
    def prices(self) -> dict[str, Prices | None]:
        """Each model's prices, by the name its versions and costs are kept under."""
        return {deps.name: deps.prices for deps in self._chain}

    @property
    def size(self) -> int:
        """The models of the chain: the one chosen and its fallbacks."""
        return len(self._chain)

    def model(self, at: int) -> ModelDeps:
        """The model at ``at`` in the chain: 0 is the one chosen."""
        return self._chain[at]

    def _fallback(self, connected: Connected, first: Replanner) -> ModelDeps:
        size = first.chunk_chars
        replanner = Replanner(
            first.records,
            self.book,
            connected.sizing,
            connected.model.window,
            chunk_chars=size,
            fixed=size,
            alone=True,
        )
        prices = connected.prices
        pays = self.spending.at_prices(prices) if self.spending and prices else None
        return ModelDeps(self._talk(connected, fallback=True), replanner, pays, prices)

    def _talk(self, connected: Connected, *, fallback: bool = False) -> ChunkTalk:
        """How every chunk talks to a model: the same prompt and tools for each."""
        model = connected.model
        return ChunkTalk(
            model.provider,
            self._registry,
            self._prompt,
            self.request.limits,
            model.window,
            connected.sizing.tokens,
            fallback=fallback,
        )
