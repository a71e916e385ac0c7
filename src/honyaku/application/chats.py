"""Chats with the assistant: sessions to open, list, reopen and delete, and replies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from honyaku.application.models import DEMO, Models
from honyaku.assistant import ChatEvent, ChatService
from honyaku.llm.models import ModelChoice
from honyaku.store import ChatEntry, ChatSession, ChatStore

LIBRARY_LANGUAGE = "en"
"""What the assistant speaks tools in for a chat about no book in particular."""


class Chats:
    def __init__(self, service: ChatService, store: ChatStore, models: Models) -> None:
        self._service = service
        self._store = store
        self._models = models

    async def sessions(self, book_id: str | None = None) -> list[ChatSession]:
        return await asyncio.to_thread(self._store.sessions, book_id)

    async def get(self, session_id: str) -> ChatSession:
        return await asyncio.to_thread(self._store.get, session_id)

    async def entries(self, session_id: str) -> list[ChatEntry]:
        return await asyncio.to_thread(self._store.entries, session_id)

    async def delete(self, session_id: str) -> None:
        await asyncio.to_thread(self._store.delete, session_id)

    async def open(self, session_id: str | None, book_id: str | None, message: str) -> ChatSession:
        """The session to reply in: the one named, or a new one titled after ``message``."""
        return await self._service.session(session_id, book_id, message)

    async def default_model(self) -> ModelChoice:
        """The first saved model, else the demo model."""
        saved = await self._models.all()
        return await self._models.choice_of(saved[0]) if saved else DEMO

    async def reply(
        self, session: ChatSession, message: str, model: ModelChoice
    ) -> AsyncIterator[ChatEvent]:
        """The assistant's reply to ``message``, as events; the model stays open for the next."""
        language = LIBRARY_LANGUAGE
        if session.book_id:
            language = (await self._service.app.books.info(session.book_id)).target_lang
        chat_model = await self._service.model(model, language=language)
        async for event in self._service.reply(session, message, chat_model):
            yield event
