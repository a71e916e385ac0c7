"""A run's models: the one chosen, then its fallbacks, each opened the first time a part needs
it and closed with the run.

Every model of a run talks with the same system prompt and tools, and pays from the same
spending cap, at its own prices. A fallback takes the parts it is given as they are: it plans
nothing again by what it learns, only what does not fit its context window.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass

from honyaku.agent.registry import ToolRegistry
from honyaku.domain.book import Book
from honyaku.jobs.chunk_driver import ModelDeps
from honyaku.jobs.chunk_run import ChunkTalk
from honyaku.jobs.records import JobRecords
from honyaku.jobs.replanning import Replanner
from honyaku.jobs.requests import JobRequest
from honyaku.jobs.sizing import ChunkSizing, sizing_for
from honyaku.jobs.spending import Purse
from honyaku.jobs.tools import ChunkContext
from honyaku.llm.models import ConnectedModel, ModelChoice, ModelOpener, ToolProtocol


@dataclass(frozen=True, slots=True)
class Connected:
    """A model opened for the run, and the sizing of the book's chunks for it."""

    model: ConnectedModel
    sizing: ChunkSizing


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
        self._fallbacks: list[ModelChoice] = []
        self._lock = asyncio.Lock()
        self._records: JobRecords | None = None
        self._chunk_chars = 0

    async def connect(self, choice: ModelChoice, records: JobRecords) -> Connected:
        """Open ``choice`` for the run, and size the book's chunks for it."""
        model = await self._opened.enter_async_context(
            self._open_model(choice, language=self.book.target_lang)
        )
        name, kind = model.provider.model, self.request.kind
        record = await records.model_record(name, kind)
        glossary = await records.has_glossary(self.book.id)
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
        return Connected(model, sizing)

    def start(
        self,
        first: Connected,
        replanner: Replanner,
        fallbacks: tuple[ModelChoice, ...],
        chunk_chars: int,
    ) -> None:
        """The chain's first model, planned with ``replanner``; its fallbacks, to be opened
        when a part needs them, take parts of ``chunk_chars`` at most."""
        self._chain = [ModelDeps(self._talk(first), replanner, self.spending)]
        self._fallbacks = list(fallbacks)
        self._records, self._chunk_chars = replanner.records, chunk_chars

    async def model(self, at: int) -> ModelDeps | None:
        """The model at ``at`` in the chain, opened if it is not yet; ``None`` past its end."""
        async with self._lock:
            while len(self._chain) <= at and len(self._chain) <= len(self._fallbacks):
                self._chain.append(await self._fallback(self._fallbacks[len(self._chain) - 1]))
        return self._chain[at] if at < len(self._chain) else None

    async def _fallback(self, choice: ModelChoice) -> ModelDeps:
        assert self._records is not None
        connected = await self.connect(choice, self._records)
        size = self._chunk_chars
        replanner = Replanner(
            self._records,
            self.book,
            connected.sizing,
            connected.model.window,
            chunk_chars=size,
            fixed=size,
        )
        pays = self.spending.at_prices(choice.prices) if self.spending and choice.prices else None
        return ModelDeps(self._talk(connected), replanner, pays)

    def _talk(self, connected: Connected) -> ChunkTalk:
        """How every chunk talks to a model: the same prompt and tools for each."""
        model = connected.model
        return ChunkTalk(
            model.provider,
            self._registry,
            self._prompt,
            self.request.limits,
            model.window,
            connected.sizing.tokens,
        )
