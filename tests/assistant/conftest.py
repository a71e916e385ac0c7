"""A chat with the assistant over HTTP against the fake model, scripted as an assistant."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest

from honyaku.agent.broker import (
    Answer,
    ApprovalReply,
    ApprovalRequest,
    PersonReply,
    PersonRequest,
    QuestionReply,
)
from honyaku.application import Honyaku
from honyaku.assistant import ChatEvent, ChatModel, ChatService
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.domain.chat import ChatSession
from honyaku.llm.models import ModelChoice, ToolProtocol
from honyaku.store import Library, Stores
from honyaku.testing import FakeLLMServer, ScriptedAssistant, ScriptedTranslator, Step

from ..jobs.conftest import connected


@pytest.fixture
def book_id(library: Library) -> str:
    draft = BookDraft(
        "羅生門",
        (
            ChapterDraft(
                "一", ("ある日の暮方の事である。", "一人の下人が羅生門の下で雨やみを待っていた。")
            ),
            ChapterDraft("二", ("広い門の下には、この男のほかに誰もいない。",)),
        ),
    )
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")


@dataclass
class Person:
    """The translator at the other end: approves (always, if ``always``) or not, answers with
    the first suggestion."""

    allows: bool = True
    always: bool = False
    dialogs: list[PersonRequest] = field(default_factory=list)

    async def ask(self, request: PersonRequest) -> PersonReply:
        self.dialogs.append(request)
        await asyncio.sleep(0)
        if isinstance(request, ApprovalRequest):
            return ApprovalReply(self.allows, self.always)
        return QuestionReply(
            tuple(Answer(n, q.suggested_answers[0], 0) for n, q in enumerate(request.questions))
        )


@dataclass
class Chat:
    """One assistant, its model and the person answering it."""

    service: ChatService
    model: ChatModel
    server: FakeLLMServer
    person: Person

    async def say(self, message: str, session: ChatSession | None = None) -> list[ChatEvent]:
        """Every event of the reply to ``message``, in a new session unless one is given."""
        session = session or await self.service.session(None, self.book_id, message)
        self.session = session
        return [event async for event in self.service.reply(session, message, self.model)]

    book_id: str | None = None
    session: ChatSession | None = None


@pytest.fixture
def chat_with(library: Library, book_id: str, protocol: str):
    """``chat_with(scripts, **server_options)``: a chat about the book, as a context."""

    @contextmanager
    def open_chat(
        scripts: Mapping[str, Sequence[Step]], *, allows: bool = True, **server: object
    ) -> Iterator[Chat]:
        translator = ScriptedTranslator(assistant=ScriptedAssistant(scripts))
        with FakeLLMServer(translator, **server) as fake:  # type: ignore[arg-type]
            person = Person(allows)
            honyaku = Honyaku(Stores.over(library.database))
            with honyaku.broker.attached(person):
                service = ChatService(
                    honyaku, honyaku.stores.chats, honyaku.broker, honyaku.open_model
                )
                choice = ModelChoice("fake", fake.url, protocol=ToolProtocol(protocol))
                model = ChatModel(connected(fake, protocol), choice)
                yield Chat(service, model, fake, person, book_id)

    return open_chat
