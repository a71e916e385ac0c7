"""The assistant in the browser: its page, the chat stream, and the sessions to reopen.

``POST /api/ai/chat/stream`` answers ``text/event-stream``: ``message`` events (text, tool
cards, questions, notices), then one ``done`` or ``error``. Text streams as the model
writes it; once a stretch of text is whole (a tool card or the end follows), a
``markdown`` message carries it as safe HTML (``web.markdown``) for the page to show
instead. A comment every 15 s keeps proxies from closing a quiet stream. A client that
goes away stops the reply: the model's request is closed with it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse

from honyaku.application import ChatEntry, ChatSession, EntryKind
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
from honyaku.web.events import HEARTBEAT_S
from honyaku.web.markdown import render_markdown
from honyaku.web.schemas import ERROR_RESPONSES, Timestamp
from honyaku.web.templating import page
from honyaku.web.workbench import App

router = APIRouter(responses=ERROR_RESPONSES)


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
    updated_at: Timestamp

    @classmethod
    def of(cls, session: ChatSession) -> SessionOut:
        return cls(
            id=session.id,
            book_id=session.book_id,
            title=session.title,
            updated_at=session.updated_at,
        )


class EntryOut(BaseModel):
    kind: str
    payload: dict[str, Any]
    html: str | None = Field(default=None, description="An assistant's text, as safe HTML.")


class SessionDetail(SessionOut):
    entries: list[EntryOut]


@router.get("/chat", include_in_schema=False)
async def chat_page(request: Request, honyaku: App) -> HTMLResponse:
    return page(request, "chat.html", profiles=await honyaku.models.all())


@router.post("/api/ai/chat/stream", response_class=EventSourceResponse)
async def chat_stream(honyaku: App, chat: ChatIn) -> EventSourceResponse:
    """The assistant's reply to ``message`` as server-sent events."""
    chats = honyaku.chats
    choice = await honyaku.models.saved(chat.model) if chat.model else await chats.default_model()
    session = await chats.open(chat.session_id, chat.book_id, chat.message)

    async def stream() -> AsyncIterator[dict[str, Any]]:
        yield _message({"type": "session", "session_id": session.id, "title": session.title})
        said: list[str] = []  # the text since the last tool card, to show as Markdown
        try:
            async for event in chats.reply(session, chat.message, choice):
                if isinstance(event, ChatText):
                    said.append(event.content)
                elif said:
                    yield _message({"type": "markdown", "html": render_markdown("".join(said))})
                    said.clear()
                yield _sse(event)
        except HonyakuError as exc:
            yield {
                "event": "error",
                "data": _json({"type": "error", "message": friendly_error(exc)}),
            }

    return EventSourceResponse(stream(), ping=HEARTBEAT_S)


@router.get("/api/ai/chat/sessions")
async def list_sessions(honyaku: App, book_id: str | None = None) -> list[SessionOut]:
    return [SessionOut.of(s) for s in await honyaku.chats.sessions(book_id)]


@router.get("/api/ai/chat/sessions/{session_id}")
async def get_session(honyaku: App, session_id: str) -> SessionDetail:
    session = await honyaku.chats.get(session_id)
    entries = [
        EntryOut(
            kind=e.kind.value,
            payload=e.payload,
            html=render_markdown(e.payload["text"]) if _is_text(e) else None,
        )
        for e in await honyaku.chats.entries(session_id)
    ]
    return SessionDetail(**SessionOut.of(session).model_dump(), entries=entries)


@router.delete("/api/ai/chat/sessions/{session_id}", status_code=204)
async def delete_session(honyaku: App, session_id: str) -> None:
    await honyaku.chats.delete(session_id)


def _is_text(entry: ChatEntry) -> bool:
    return entry.kind is EntryKind.ASSISTANT and bool(entry.payload.get("text"))


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
