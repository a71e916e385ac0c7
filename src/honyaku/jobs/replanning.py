"""A run's plan kept right: chunks waiting to run planned again as the run learns.

As chunks end, the run learns how the model works; when that moves the best size by more
than a quarter, the chunks of the job's plan waiting to run are planned again (never the
parts a round planned: they keep the size their round chose). A chunk whose conversation did
not fit the model's context window hands its rest over, and its chapter's rest (and every
other chapter's) is planned again in chunks that fit; what a fallback, or a part a round
planned, hands over is planned again alone.
"""

from __future__ import annotations

from honyaku.domain.book import Book, Paragraph
from honyaku.domain.failures import Failure, FailureClass
from honyaku.jobs.events import HandOver
from honyaku.jobs.planning import replanner
from honyaku.jobs.records import JobRecords
from honyaku.jobs.sizing import ChunkSizing
from honyaku.llm.models import ContextWindow
from honyaku.store.chunks import Claim, HandedBack
from honyaku.store.jobs import JobCost

RESIZE_CHANGE = 0.25
"""How far the best chunk size must move before the chunks waiting to run are planned again."""


class Replanner:
    def __init__(
        self,
        records: JobRecords,
        book: Book,
        sizing: ChunkSizing,
        window: ContextWindow,
        *,
        chunk_chars: int,
        fixed: int | None,
        alone: bool = False,
    ) -> None:
        self.records = records
        self.book = book
        self.sizing = sizing
        self.window = window
        self.chunk_chars = chunk_chars
        """The size the chunks waiting to run are planned with."""
        self.fixed = fixed
        """The size asked for, if one was: the run does not choose another, but a context
        window too small for it still makes chunks smaller."""
        self.alone = alone
        """What a chunk hands over is planned alone, the run's other chunks as they are: a
        fallback's window sizes only the parts it takes."""

    async def replan(self, chunk_chars: int, handed_back: HandedBack | None = None) -> None:
        """Plan the chunks of the job's plan waiting to run (and what ``handed_back`` gives)
        at ``chunk_chars``; what it gives alone where the replanner plans so."""
        split = replanner(self.book, chunk_chars)
        if handed_back is not None and self.alone:
            await self.records.run(self.records.replan, split, None, handed_back, alone=True)
            return
        await self.records.run(self.records.replan, split, chunk_chars, handed_back)
        self.chunk_chars = chunk_chars

    async def learn(self, paragraphs: int, seen: JobCost) -> None:
        """Count how a chunk went (``seen``: its replies, those with a batch, the paragraphs
        batches saved); plan again if that moves the best size far enough."""
        tally = self.sizing.tally
        tally.add_chunk(paragraphs, seen.requests, seen.batch_replies, seen.batched_paragraphs)
        if self.fixed:
            return
        best = self.sizing.chunk_chars()
        if abs(best - self.chunk_chars) > RESIZE_CHANGE * self.chunk_chars:
            await self.replan(best)

    async def hand_over(
        self, claim: Claim, work: list[Paragraph], over: HandOver
    ) -> Failure | None:
        """Plan what a chunk handed over in chunks that fit the window as now known; a failure
        when no chunk can be smaller than the one that did not fit."""
        window = self.window
        self.sizing.window = window.tokens
        self.sizing.count_as(window.count_factor)
        best = min(self.sizing.chunk_chars(), self.fixed or self.chunk_chars)
        handed = [p for p in work if p.id in set(over.paragraph_ids)]
        if len(handed) == len(work) and best >= sum(len(p.text) for p in handed):
            # Nothing done, and no smaller size would be chosen: halve it all the same.
            if len(handed) <= 1:
                return Failure(
                    FailureClass.CONTEXT,
                    f"the model's context window ({window.tokens or '?'} tokens) cannot hold "
                    f"honyaku's instructions and one paragraph: {over.reason}",
                )
            best = sum(len(p.text) for p in handed) // 2
        kept = tuple(p.id for p in work if p.id not in set(over.paragraph_ids))
        title = claim.item.planned.chapter_id in over.titles
        await self.replan(best, HandedBack(claim.token, kept, over.paragraph_ids, title))
        return None
