"""The model's questions and approval requests, waiting for the person: the one a dialog
shows, those queued behind it, and the questions of queued jobs (parked until someone
answers, here or in the terminal); answered through the API, announced as server-sent
events. The dialog itself is drawn on every page (``static/js/dialog.js``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter
from fastapi import Path as PathParam
from sse_starlette import EventSourceResponse

from honyaku.web.events import HEARTBEAT_S, event
from honyaku.web.schemas import (
    ERROR_RESPONSES,
    MAX_NUMBER,
    AnswerIn,
    ParkedQuestionOut,
    Waiting,
)
from honyaku.web.workbench import App, Bench

router = APIRouter(prefix="/api", responses=ERROR_RESPONSES)


@router.get("/questions")
async def waiting(bench: Bench) -> Waiting:
    """What waits for the person: the dialog on screen, how many wait behind it, and the
    questions of queued jobs, parked until someone answers."""
    stored = await bench.honyaku.questions.waiting()
    return Waiting(
        shown=bench.front_end.shown,
        queued=bench.honyaku.broker.queued,
        stored=[ParkedQuestionOut.of(q) for q in stored],
    )


@router.post("/questions/{request_id}/answer", status_code=204)
async def answer(bench: Bench, request_id: str, reply: AnswerIn) -> None:
    bench.front_end.answer(request_id, reply.model_dump())


@router.post("/questions/stored/{question_id}/answer", status_code=204)
async def answer_stored(
    honyaku: App, question_id: Annotated[int, PathParam(ge=1, le=MAX_NUMBER)], reply: AnswerIn
) -> None:
    """Answer a queued job's question: its chunk goes on, on whichever worker takes it."""
    await honyaku.questions.answer(question_id, reply.model_dump())


@router.get("/questions/events", response_class=EventSourceResponse)
async def question_events(bench: Bench) -> EventSourceResponse:
    """Dialogs to show and to close, for as long as a page is open; and the questions of
    queued jobs (``stored``) each time one is asked or settled, on any server."""
    told: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def shown() -> None:
        async for message in bench.front_end.watch():
            await told.put(message)

    async def stored() -> None:
        said: list[dict[str, Any]] | None = None
        async for _change in bench.honyaku.questions.changes():
            found = await bench.honyaku.questions.waiting()
            listed = [ParkedQuestionOut.of(q).model_dump(mode="json") for q in found]
            if listed != said:
                await told.put({"type": "stored", "questions": listed})
                said = listed

    async def stream() -> AsyncIterator[dict[str, Any]]:
        tasks = [asyncio.create_task(shown()), asyncio.create_task(stored())]
        try:
            while True:
                yield event(await told.get())
        finally:
            for task in tasks:
                task.cancel()

    return EventSourceResponse(stream(), ping=HEARTBEAT_S)
