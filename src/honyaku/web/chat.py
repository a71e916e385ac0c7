"""The assistant in the browser: the chat stream of seed 002, and the sessions to reopen.

``POST /api/ai/chat/stream`` answers ``text/event-stream``: ``message`` events (text, tool
cards, questions, notices), then one ``done`` or ``error``. A comment every 15 s keeps
proxies from closing a quiet stream. A client that goes away stops the reply: the model's
request is closed with it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse

from honyaku.assistant import (
    ChatDone,
    ChatEvent,
    ChatFailed,
    ChatNotice,
    ChatRetry,
    ChatText,
    QuestionWaiting,
    ToolCard,
    ToolOutcome,
    friendly_error,
)
from honyaku.errors import HonyakuError
from honyaku.llm.models import DEMO_MODEL
from honyaku.store.chats import ChatSession
from honyaku.web.api import HEARTBEAT_S, Bench
from honyaku.web.workbench import Workbench

router = APIRouter(prefix="/api/ai/chat")


class ChatIn(BaseModel):
    session_id: str | None = None
    book_id: str | None = None
    message: str = Field(min_length=1, max_length=20_000)
    model: str | None = Field(
        default=None, description="A saved model profile; by default the first one, or demo."
    )


class SessionOut(BaseModel):
    id: str
    book_id: str | None
    title: str
    updated_at: str

    @classmethod
    def of(cls, session: ChatSession) -> SessionOut:
        return cls(
            id=session.id,
            book_id=session.book_id,
            title=session.title,
            updated_at=session.updated_at.isoformat(timespec="seconds"),
        )


class EntryOut(BaseModel):
    kind: str
    payload: dict[str, Any]


class SessionDetail(SessionOut):
    entries: list[EntryOut]


@router.post("/stream", response_class=EventSourceResponse)
async def chat_stream(bench: Bench, chat: ChatIn) -> EventSourceResponse:
    """The assistant's reply to ``message`` as server-sent events (seed 002)."""
    name = chat.model or _default_model(bench)
    choice = bench.model(name)
    session = await run_in_threadpool(
        bench.chats.session, chat.session_id, chat.book_id, chat.message
    )

    async def stream() -> AsyncIterator[dict[str, Any]]:
        yield _message({"type": "session", "session_id": session.id, "title": session.title})
        target = bench.library.book(session.book_id).target_lang if session.book_id else "en"
        try:
            model = await bench.chats.model(choice, name, language=target)
            async for event in bench.chats.reply(session, chat.message, model):
                yield _sse(event)
        except HonyakuError as exc:
            yield {
                "event": "error",
                "data": _json({"type": "error", "message": friendly_error(exc)}),
            }

    return EventSourceResponse(stream(), ping=HEARTBEAT_S)


@router.get("/sessions")
def list_sessions(bench: Bench, book_id: str | None = None) -> list[SessionOut]:
    return [SessionOut.of(s) for s in bench.chats.chats.sessions(book_id)]


@router.get("/sessions/{session_id}")
def get_session(bench: Bench, session_id: str) -> SessionDetail:
    store = bench.chats.chats
    entries = [EntryOut(kind=e.kind.value, payload=e.payload) for e in store.entries(session_id)]
    return SessionDetail(**SessionOut.of(store.get(session_id)).model_dump(), entries=entries)


@router.delete("/sessions/{session_id}", status_code=204)
def delete_session(bench: Bench, session_id: str) -> None:
    bench.chats.chats.delete(session_id)


def _default_model(bench: Workbench) -> str:
    saved = bench.profiles.all()
    return saved[0].name if saved else DEMO_MODEL


def _sse(event: ChatEvent) -> dict[str, Any]:
    match event:
        case ChatText(content=content):
            return _message({"type": "text", "content": content})
        case ToolCard(id=id, name=name, status=status, arguments=arguments):
            card = {"type": "tool_call", "id": id, "name": name, "status": status}
            return _message(card | ({"arguments": dict(arguments)} if arguments else {}))
        case ToolOutcome(id=id, name=name, success=success, message=said):
            return _message(
                {"type": "tool_result", "id": id, "name": name, "success": success, "message": said}
            )
        case QuestionWaiting(id=id, name=name, questions=questions):
            return _message({"type": "question", "id": id, "name": name, "questions": questions})
        case ChatNotice(text=text):
            return _message({"type": "notice", "message": text})
        case ChatRetry(attempt=attempt, reason=reason):
            return _message({"type": "retry", "attempt": attempt, "reason": reason})
        case ChatDone(session_id=session_id, usage=usage):
            return {
                "event": "done",
                "data": _json({"type": "done", "session_id": session_id, "usage": usage}),
            }
        case ChatFailed(message=message):
            return {"event": "error", "data": _json({"type": "error", "message": message})}


def _message(data: dict[str, Any]) -> dict[str, Any]:
    return {"event": "message", "data": _json(data)}


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, default=str)
