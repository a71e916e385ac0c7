"""Trials, in the workbench: saved models tried on the same sample of a book (each on its own
copy, the book untouched), their figures side by side while they run, a judge that rates
them blind once they end, their versions read paragraph by paragraph, and one model's taken
into the book when the translator says so. A trial is started from its book's page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from honyaku.application import Honyaku
from honyaku.application.heavy_work import run_heavy
from honyaku.application.trials import Trial
from honyaku.web.schemas import (
    ERROR_RESPONSES,
    MAX_NUMBER,
    ComparisonOut,
    ModelFiguresOut,
    TrialJudge,
    TrialOut,
    TrialStart,
    TrialUse,
    TrialUsed,
)
from honyaku.web.templating import page
from honyaku.web.workbench import App

PAGE_ROWS = 200
"""Paragraphs the side-by-side view shows at once; the others a page further."""

router = APIRouter(responses=ERROR_RESPONSES)


@router.get("/trials/{trial_id}", include_in_schema=False)
async def trial_page(
    request: Request,
    honyaku: App,
    trial_id: str,
    start: Annotated[int, Query(ge=0, le=MAX_NUMBER)] = 0,
) -> HTMLResponse:
    compared = await _compared(honyaku, trial_id)
    rows = await honyaku.trials.side_by_side(trial_id)
    # Every model's version of a long sample makes a page of megabytes: drawn off the loop.
    return await run_heavy(
        page,
        request,
        "trial.html",
        book=await honyaku.books.info(compared.book_id),
        trial=compared,
        rows=rows[start : start + PAGE_ROWS],
        start=start,
        total=len(rows),
        page_size=PAGE_ROWS,
        references=any(row.reference is not None for row in rows),
        profiles=await honyaku.models.all(),
    )


@router.post("/api/books/{book_id}/trials", status_code=201)
async def start_trial(honyaku: App, book_id: str, start: TrialStart) -> TrialOut:
    """Let each saved model translate the same sample of the book (``chapters``, by default
    its first few thousand characters), each on its own copy, all at once: the book's own
    translations stay as they are."""
    book = await honyaku.books.resolve(book_id)
    chapters = await honyaku.books.chapter_numbers(book, start.chapters)
    trial = await honyaku.trials.start(
        book, start.models, chapters=chapters, seed=start.seed, reference=start.reference
    )
    return TrialOut.of(trial)


@router.get("/api/books/{book_id}/trials")
async def list_trials(honyaku: App, book_id: str) -> list[TrialOut]:
    """The book's trials, newest first."""
    book = await honyaku.books.resolve(book_id)
    return [TrialOut.of(trial) for trial in await honyaku.trials.of_book(book)]


@router.get("/api/trials/{trial_id}")
async def get_trial(honyaku: App, trial_id: str) -> ComparisonOut:
    """The trial, with each model's figures as they stand now."""
    return await _compared(honyaku, trial_id)


@router.post("/api/trials/{trial_id}/judge", status_code=201)
async def judge_trial(honyaku: App, trial_id: str, judge: TrialJudge) -> TrialOut:
    """Let the saved ``model`` rate every model's versions, names hidden, in an order the
    trial's seed shuffles; refused while a model still translates."""
    return TrialOut.of(await honyaku.trials.judge(trial_id, judge.model))


@router.post("/api/trials/{trial_id}/use")
async def use_model(honyaku: App, trial_id: str, use: TrialUse) -> TrialUsed:
    """Take ``model``'s versions into the book, selected (its other versions are kept), and
    make it the book's model, falling back on ``fallbacks``."""
    used = await honyaku.trials.use(trial_id, use.model, fallbacks=use.fallbacks)
    return TrialUsed(paragraphs=used)


async def book_trials(honyaku: Honyaku, book_id: str) -> list[Trial]:
    """The book's trials, newest first."""
    return await honyaku.trials.of_book(book_id)


async def _compared(honyaku: Honyaku, trial_id: str) -> ComparisonOut:
    comparison = await honyaku.trials.compare(trial_id)
    return ComparisonOut(
        **TrialOut.of(comparison.trial).model_dump(),
        results=[ModelFiguresOut.model_validate(r.figures()) for r in comparison.results],
        running=comparison.running,
        judge_status=comparison.judge_status,
        judging=comparison.judging,
    )
