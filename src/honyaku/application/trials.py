"""Trials of models on the translator's own book, as every front end asks for them.

Each model translates the same sample through the same tools, glossary and checks, each on
its own copy (``store.trials``), all at once; the book's selected translations change only
when the translator takes one model's versions (``use``). A judge then rates every model's
versions blind: one rating job over a copy holding, for each paragraph, every model's version
in the order the trial's seed shuffles (``domain.trial.blind_order``), no name shown.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from honyaku.application.heavy_work import run_heavy
from honyaku.application.jobs import Jobs
from honyaku.application.models import Models
from honyaku.domain.book import Book, BookDraft, ChapterDraft, TranslationKind
from honyaku.domain.pricing import Prices
from honyaku.domain.trial import (
    ModelResult,
    Scores,
    TrialTokens,
    align_reference,
    blind_order,
    chrf_plus_plus,
    sample_chapters,
)
from honyaku.domain.workflow import JobKind
from honyaku.errors import ConfigError, NotFoundError, UserError
from honyaku.jobs import JobProgress, JobRequest
from honyaku.store import Stores
from honyaku.store.jobs import ACTIVE, JobStatus
from honyaku.store.trials import Blind, Trial, TrialEntry

COPIED = "copied for a trial"
"""The origin of a glossary entry a trial's copy took from its book."""


@dataclass(frozen=True, slots=True)
class SideBySide:
    """One paragraph of the sample, with each model's version (``None``: not done)."""

    chapter: int
    paragraph_id: str
    text: str
    reference: str | None
    """The translator's own version, where they wrote one."""
    versions: tuple[str | None, ...]
    """In the order of the trial's models."""
    scores: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    trial: Trial
    results: tuple[ModelResult, ...]
    judge_status: JobStatus | None = None
    """Of the judge's job, once one was started."""

    @property
    def running(self) -> bool:
        """A model still translates."""
        return any(result.status in ACTIVE for result in self.results)

    @property
    def judging(self) -> bool:
        return self.judge_status in ACTIVE


class Trials:
    def __init__(self, stores: Stores, jobs: Jobs, models: Models) -> None:
        self._stores = stores
        self._jobs = jobs
        self._models = models
        self._chrf_of: dict[tuple[str, int], tuple[bytes, float | None]] = {}
        """Each model's chrF++ by trial and position, with the digest of what it scored."""
        self._scoring: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Lock]] = {}

    async def start(
        self,
        book_id: str,
        models: Sequence[str],
        *,
        chapters: list[int] | None = None,
        seed: int | None = None,
        reference: Sequence[str] | None = None,
    ) -> Trial:
        """Let each saved model translate the sample (``chapters``, by default the first few
        thousand characters), all at once; the trial, its jobs started. ``reference``: the
        translator's own translation of the sample, a paragraph each, in order (chrF++ is
        measured against it)."""
        names = list(dict.fromkeys(models))
        if not names:
            raise UserError("name the saved models to try, e.g. --models deepseek,gpt")
        if await asyncio.to_thread(self._stores.library.trial_of, book_id) is not None:
            raise NotFoundError("no book with id {book_id!r}", book_id=book_id)
        choices = [
            await self._models.with_fallbacks(await self._models.saved(n), []) for n in names
        ]
        for choice in choices:
            choice.check()
            await asyncio.to_thread(choice.check_key)
        seed = random.randrange(2**31) if seed is None else seed
        trial = await asyncio.to_thread(self._prepare, book_id, names, chapters, seed, reference)
        started: list[str] = []
        try:
            for entry, choice in zip(trial.entries, choices, strict=True):
                request = JobRequest(book_id=entry.book_id, kind=JobKind.TRANSLATION)
                started.append(await self._jobs.start(request, choice))
                await asyncio.to_thread(
                    self._stores.trials.started, trial.id, entry.position, started[-1]
                )
        except BaseException:
            # A model that cannot start leaves no half trial behind.
            for job_id in started:
                await self._jobs.stop(job_id)
            await asyncio.to_thread(self._remove, trial)
            raise
        return await self.get(trial.id)

    async def judge(self, trial_id: str, model: str) -> Trial:
        """Let the saved ``model`` rate every model's versions, blind."""
        comparison = await self.compare(trial_id)
        trial = comparison.trial
        if comparison.running:
            raise UserError("the trial's models are still translating: judge it once they end")
        if comparison.judging:
            raise UserError("a judge is rating this trial already: wait for it to end")
        choice = await self._models.with_fallbacks(await self._models.saved(model), [])
        choice.check()
        copy, blind = await asyncio.to_thread(self._blind_copy, trial)
        request = JobRequest(book_id=copy, kind=JobKind.RATING)
        job_id = await self._jobs.start(request, choice)
        await asyncio.to_thread(self._stores.trials.judged, trial.id, model, copy, job_id, blind)
        return await self.get(trial_id)

    async def get(self, trial_id: str) -> Trial:
        return await asyncio.to_thread(self._stores.trials.get, trial_id)

    async def of_book(self, book_id: str) -> list[Trial]:
        return await asyncio.to_thread(self._stores.trials.of_book, book_id)

    async def compare(self, trial_id: str) -> Comparison:
        """Each model's figures, as they stand now."""
        trial = await self.get(trial_id)
        # The judge's status before its scores: a judge said to have finished has written
        # every score read after (a page stops asking once it reads "finished").
        judge = trial.judge_job_id
        status = None if judge is None else (await self._jobs.progress(judge)).status
        scores = await asyncio.to_thread(self._judged, trial)
        chrf = await self._chrf(trial)
        results = []
        for entry, score in zip(trial.entries, chrf, strict=True):
            result = await self._result(entry, scores.get(entry.position, Scores()))
            results.append(replace(result, chrf=score))
        return Comparison(trial, tuple(results), status)

    async def side_by_side(self, trial_id: str) -> list[SideBySide]:
        """The sample, paragraph by paragraph, with every model's version."""
        trial = await self.get(trial_id)
        return await asyncio.to_thread(self._side_by_side, trial)

    async def _chrf(self, trial: Trial) -> list[float | None]:
        """Each model's chrF++ against the translator's versions, in the trial's order:
        computed off the event loop, once for each state of its versions and the reference,
        by one request at a time (the others wait for it, then read it)."""
        references = await asyncio.to_thread(self._references, trial)
        versions = await asyncio.to_thread(self._versions, trial)
        loop = asyncio.get_running_loop()
        lock = self._scoring.get(trial.id)
        if lock is None or lock[0] is not loop:  # a lock waits on the loop it was made in
            lock = self._scoring[trial.id] = (loop, asyncio.Lock())
        async with lock[1]:
            return await run_heavy(self._scored, trial, versions, references)

    def _scored(
        self, trial: Trial, versions: list[dict[str, str]], references: dict[str, str]
    ) -> list[float | None]:
        found = []
        for entry, done in zip(trial.entries, versions, strict=True):
            pairs = [(done[pid], text) for pid, text in references.items() if pid in done]
            digest = _digest(pairs)
            kept = self._chrf_of.get((trial.id, entry.position))
            if kept is None or kept[0] != digest:
                score = chrf_plus_plus([t for t, _ in pairs], [r for _, r in pairs])
                kept = self._chrf_of[(trial.id, entry.position)] = (digest, score)
            found.append(kept[1])
        return found

    async def use(self, trial_id: str, model: str, *, fallbacks: Sequence[str] = ()) -> int:
        """Take ``model``'s versions and chapter titles into the book, selected (its other
        versions are kept) with their quality warnings, and make it the book's model, with
        ``fallbacks``; how many paragraphs it gave."""
        if model in fallbacks:
            raise ConfigError("a model cannot be its own fallback")
        trial = await self.get(trial_id)
        entry = trial.entry(model)
        if (await self.compare(trial_id)).running:
            raise UserError("the trial's models are still translating: use one once they end")
        chosen = await self._models.saved(model)
        for name in fallbacks:
            await self._models.saved(name)

        def use() -> int:
            library = self._stores.library
            copy = library.whole_book(entry.book_id)
            texts = _translations(copy)
            flags = {f.paragraph_id: f.warnings for f in self._stores.quality.flagged(copy.id)}
            marks = {
                p.id: p.translation_marks
                for chapter in copy.chapters
                for p in chapter.paragraphs
                if p.id in texts
            }
            library.add_translations(
                trial.book_id,
                texts,
                kind=TranslationKind.TRANSLATION,
                model=chosen.model,
                flags=flags,
                marks=marks,
            )
            for chapter in copy.chapters:
                if chapter.translated_title:
                    library.set_chapter_title(trial.book_id, chapter.id, chapter.translated_title)
            library.update_settings(trial.book_id, model=model, fallbacks=list(fallbacks))
            self._stores.trials.used(trial.id, model)
            return len(texts)

        return await asyncio.to_thread(use)

    # -- in a worker thread ---------------------------------------------------------------

    def _prepare(
        self,
        book_id: str,
        names: list[str],
        chapters: list[int] | None,
        seed: int,
        reference: Sequence[str] | None,
    ) -> Trial:
        library = self._stores.library
        if chapters is None:
            book = library.whole_book(book_id)
            sizes = [sum(len(p.text) for p in chapter.paragraphs) for chapter in book.chapters]
            chapters = sample_chapters(sizes)
        aligned = None
        if reference is not None:
            sample = library.whole_book(book_id, chapter_numbers=chapters)
            aligned = align_reference(sample, reference)
        copies = [(name, library.copy_for_trial(book_id, chapters)) for name in names]
        for _, copy in copies:
            self._copy_glossary(book_id, copy)
        return self._stores.trials.add(book_id, chapters, seed, copies, aligned)

    def _remove(self, trial: Trial) -> None:
        for entry in trial.entries:
            self._stores.library.delete_book(entry.book_id)
        self._stores.trials.remove(trial.id)

    def _copy_glossary(self, book_id: str, copy: str) -> None:
        glossary = self._stores.glossary
        own, *shared = glossary.glossaries_of(book_id)
        entries = [stored.entry for stored in glossary.current([own])]
        glossary.add(glossary.book_glossary(copy), entries, origin=COPIED)
        for attached in shared:
            glossary.attach(copy, attached)

    def _blind_copy(self, trial: Trial) -> tuple[str, dict[str, Blind]]:
        """A book of every model's version of each sample paragraph, in blind order."""
        library = self._stores.library
        book = library.whole_book(trial.book_id, chapter_numbers=trial.chapters)
        done = self._versions(trial)
        chapters, read = [], []
        for chapter in book.chapters:
            texts = []
            for paragraph in chapter.paragraphs:
                count = len(trial.entries)
                for entry in blind_order(trial.seed, paragraph.id, count):
                    if paragraph.id in done[entry]:
                        texts.append(paragraph.text)
                        read.append((entry, paragraph.id, done[entry][paragraph.id]))
            chapters.append(ChapterDraft(chapter.title, tuple(texts)))
        draft = BookDraft(book.title, tuple(chapters))
        copy = library.add_book(
            draft, source_lang=book.source_lang, target_lang=book.target_lang, trial_of=book.id
        )
        self._copy_glossary(trial.book_id, copy)
        ids = [p.id for c in library.whole_book(copy).chapters for p in c.paragraphs]
        library.add_translations(
            copy,
            {pid: text for pid, (_, _, text) in zip(ids, read, strict=True)},
            kind=TranslationKind.TRANSLATION,
        )
        blind = {pid: Blind(entry, of) for pid, (entry, of, _) in zip(ids, read, strict=True)}
        return copy, blind

    def _versions(self, trial: Trial) -> list[dict[str, str]]:
        """Each model's versions of the sample, by paragraph id, in the trial's order."""
        library = self._stores.library
        return [_translations(library.whole_book(entry.book_id)) for entry in trial.entries]

    def _judged(self, trial: Trial) -> dict[int, Scores]:
        scores: dict[int, list[int]] = {}
        for (entry, _), score in self._scores_by_paragraph(trial).items():
            scores.setdefault(entry, []).append(score)
        return {entry: Scores(tuple(found)) for entry, found in scores.items()}

    def _references(self, trial: Trial) -> dict[str, str]:
        """The translator's own versions of the sample's paragraphs, by paragraph id: those
        written by hand, and the reference given with the trial, which wins."""
        library = self._stores.library
        book = library.whole_book(trial.book_id, chapter_numbers=trial.chapters)
        found = {}
        for chapter in book.chapters:
            for paragraph in chapter.paragraphs:
                manual = [
                    version
                    for version in library.versions(book.id, paragraph.id)
                    if version.kind is TranslationKind.MANUAL
                ]
                if manual:
                    found[paragraph.id] = manual[-1].text
        return found | (trial.reference or {})

    def _side_by_side(self, trial: Trial) -> list[SideBySide]:
        library = self._stores.library
        book = library.whole_book(trial.book_id, chapter_numbers=trial.chapters)
        done = self._versions(trial)
        references = self._references(trial)
        scores = self._scores_by_paragraph(trial)
        rows = []
        for number, chapter in zip(trial.chapters, book.chapters, strict=True):
            for paragraph in chapter.paragraphs:
                if paragraph.is_empty:
                    continue
                rows.append(
                    SideBySide(
                        number,
                        paragraph.id,
                        paragraph.text,
                        references.get(paragraph.id),
                        tuple(versions.get(paragraph.id) for versions in done),
                        tuple(scores.get((e.position, paragraph.id)) for e in trial.entries),
                    )
                )
        return rows

    def _scores_by_paragraph(self, trial: Trial) -> dict[tuple[int, str], int]:
        """The judge's score of each (model's position, paragraph id) it rated."""
        if trial.judge_book_id is None or trial.blind is None:
            return {}
        return {
            (trial.blind[r.paragraph_id].entry, trial.blind[r.paragraph_id].paragraph_id): r.score
            for r in self._stores.ratings.rated(trial.judge_book_id)
        }

    async def _prices(self, model: str) -> Prices | None:
        """The saved model's prices; none for a model removed since it was tried."""
        try:
            return (await self._models.saved(model)).prices
        except NotFoundError:
            return None

    async def _result(self, entry: TrialEntry, judged: Scores) -> ModelResult:
        if entry.job_id is None:
            return ModelResult(entry.model, "not started", 0, 0, 0, judged=judged)
        progress = await self._jobs.progress(entry.job_id)
        job = await self._jobs.get(entry.job_id)
        prices = await self._prices(entry.model)
        stores = self._stores
        parts = len(await asyncio.to_thread(stores.chunks.items, entry.job_id))
        rejected = await asyncio.to_thread(stores.jobs.rejected_calls, entry.job_id)
        cost = progress.cost
        wall = job.finished_at - job.created_at if job.finished_at else None
        return ModelResult(
            entry.model,
            str(progress.status),
            progress.paragraphs_total,
            progress.paragraphs_done,
            parts,
            dict(Counter(str(failure.failure.kind) for failure in progress.failures)),
            rejected,
            cost.retries,
            cost.requests,
            _tokens(progress),
            cost.price(prices) if prices else None,
            wall.total_seconds() if wall else None,
            judged,
        )


def _digest(pairs: list[tuple[str, str]]) -> bytes:
    """What tells one state of a model's versions and their references from another."""
    digest = hashlib.blake2b(digest_size=16)
    for version, reference in pairs:
        for text in (version, reference):
            encoded = text.encode()
            digest.update(len(encoded).to_bytes(8, "big") + encoded)
    return digest.digest()


def _tokens(progress: JobProgress) -> TrialTokens:
    cost = progress.cost
    cached = min(cost.cached_tokens, cost.billed_input_tokens)
    return TrialTokens(cost.billed_input_tokens - cached, cached, cost.billed_output_tokens)


def _translations(book: Book) -> dict[str, str]:
    return {
        paragraph.id: paragraph.translation
        for chapter in book.chapters
        for paragraph in chapter.paragraphs
        if paragraph.translation is not None and not paragraph.is_empty
    }
