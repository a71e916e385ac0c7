"""A chat with the assistant, one reply at a time, as a stream of events for any front end.

``ChatService.reply`` stores the person's message, runs the agent loop over the session's
transcript with the assistant's tools, and yields what a front end shows: text as it
streams, a card per tool call (parsing → running → outcome), questions while they wait,
then ``ChatDone`` or ``ChatFailed`` with a friendly reason. Everything said is stored as it
happens, so a reply that is stopped (the person pressed Stop, the browser went away) keeps
its text; a call still being written when that happens never runs.

A model that refuses tools altogether answers as a plain chat, with a notice saying so.
A session whose transcript outgrows ``context_chars`` is summarised by
the model first, every question and its answer kept in the summary.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from honyaku.agent import (
    QUESTION_TOOL_NAMES,
    ApprovalPolicy,
    Broker,
    LoopLimits,
    ToolFinished,
    ToolRegistry,
    ToolStarted,
    run_loop,
)
from honyaku.assistant import transcript
from honyaku.assistant.app import App, Transcripts
from honyaku.assistant.prompts import assistant_prompt
from honyaku.assistant.summaries import Summariser
from honyaku.assistant.tools import ChatContext, assistant_tools
from honyaku.domain.book import Book
from honyaku.domain.chat import ChatEntry, ChatSession, EntryKind
from honyaku.errors import (
    AuthError,
    FatalProviderError,
    HonyakuError,
    LoopError,
    ProviderError,
    UnreachableError,
)
from honyaku.llm.events import CallStreaming, Response, Retry, TextDelta, Usage, closed_after
from honyaku.llm.messages import AssistantMessage, ChatRequest, Message
from honyaku.llm.models import ConnectedModel, ModelChoice, ModelOpener

MAX_TURNS = 12
CONTEXT_CHARS = 60_000
"""When the transcript sent grows past this, older turns are summarised."""
TITLE_CHARS = 40
NO_TOOLS_STATUS = (400, 422, 501)
PLAIN_CHAT_NOTICE = (
    "This model's server does not take tools, so the assistant answers as a plain chat: "
    "it cannot look into the library, the plan or jobs."
)


@dataclass(frozen=True, slots=True)
class ChatModel:
    """The model a chat talks to, and how jobs started from the chat open it again."""

    connected: ConnectedModel
    choice: ModelChoice


# -- what a front end is told ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChatText:
    content: str


@dataclass(frozen=True, slots=True)
class ToolCard:
    id: str
    name: str
    status: Literal["parsing", "running"]
    arguments: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    id: str
    name: str
    success: bool
    message: str | None


@dataclass(frozen=True, slots=True)
class QuestionWaiting:
    id: str
    name: str
    questions: list[str]


@dataclass(frozen=True, slots=True)
class ChatNotice:
    text: str


@dataclass(frozen=True, slots=True)
class ChatRetry:
    attempt: int
    reason: str


@dataclass(frozen=True, slots=True)
class ChatDone:
    session_id: str
    usage: dict[str, int]


@dataclass(frozen=True, slots=True)
class ChatFailed:
    message: str


ChatEvent = (
    ChatText
    | ToolCard
    | ToolOutcome
    | QuestionWaiting
    | ChatNotice
    | ChatRetry
    | ChatDone
    | ChatFailed
)


# -- the service -----------------------------------------------------------------------------


class _ChatGoal:
    """A chat ends when the model answers without calling a tool; its turns are capped."""

    def __init__(self) -> None:
        self._turns = 0

    def is_reached(self) -> bool:
        return False

    def progress(self) -> int:
        """Every turn of a chat is its own: only the cap on turns ends one that runs on."""
        self._turns += 1
        return self._turns

    def nudge(self, reply_text: str) -> str | None:
        return None


class ChatService:
    def __init__(
        self,
        app: App,
        chats: Transcripts,
        broker: Broker,
        open_model: ModelOpener,
        *,
        context_chars: int = CONTEXT_CHARS,
    ) -> None:
        self.app = app
        self.chats = chats
        self.broker = broker
        self.open_model = open_model
        self.context_chars = context_chars
        self._always_in_session: dict[str, set[str]] = {}
        """What the person always allowed in chats about no book, by session."""
        self._models: dict[tuple[ModelChoice, str], ConnectedModel] = {}
        self._open = AsyncExitStack()

    async def model(self, choice: ModelChoice, *, language: str) -> ChatModel:
        """The model ``choice``, opened once and kept for later replies: its connections are
        reused, and it has learned how its replies begin, so they stream from the first
        character (``llm.reasoning``)."""
        key = (choice, language)
        if key not in self._models:
            opened = self.open_model(choice, language=language)
            self._models[key] = await self._open.enter_async_context(opened)
        return ChatModel(self._models[key], choice)

    async def aclose(self) -> None:
        """Close the models opened for chats."""
        self._models.clear()
        await self._open.aclose()

    async def session(
        self, session_id: str | None, book_id: str | None, message: str
    ) -> ChatSession:
        """The session to reply in: the one named, or a new one titled after ``message``."""
        if session_id:
            return await asyncio.to_thread(self.chats.get, session_id)
        book = await self.app.books.resolve(book_id) if book_id else None
        title = " ".join(message.split())
        if len(title) > TITLE_CHARS:
            title = title[: TITLE_CHARS - 1] + "…"
        return await asyncio.to_thread(self.chats.create, title or "New chat", book)

    async def reply(
        self, session: ChatSession, message: str, model: ChatModel
    ) -> AsyncIterator[ChatEvent]:
        """The assistant's reply to ``message`` in ``session``, as events."""
        book, approval = await self._book_and_approvals(session)
        prompt = assistant_prompt(book, date.today())
        await Summariser(self.chats, model.connected.provider, self.context_chars).fit(
            session.id, prompt
        )
        entries = await asyncio.to_thread(self._said, session.id, message)
        history = transcript.messages(prompt, entries)
        turn = _Turn(self.chats, session.id)
        try:
            try:
                conversation = self._converse(history, book, approval, model, turn)
                async with closed_after(conversation) as events:
                    async for event in events:
                        yield event
            except _NoTools:
                yield ChatNotice(PLAIN_CHAT_NOTICE)
                turn.record(transcript.notice_entry(PLAIN_CHAT_NOTICE))
                plain = model.connected.provider.stream(ChatRequest(tuple(history)))
                async with closed_after(plain) as stream:
                    async for streamed in stream:
                        shown = turn.follow(streamed)
                        await turn.flush()
                        if shown:
                            yield shown
        except (ProviderError, LoopError) as exc:
            yield ChatFailed(friendly_error(exc))
            turn.record(transcript.notice_entry(f"The reply failed: {friendly_error(exc)}"))
            await turn.flush()
            return
        except BaseException:
            turn.stopped()
            raise
        await turn.flush()
        yield ChatDone(session.id, turn.usage)

    async def _book_and_approvals(self, session: ChatSession) -> tuple[Book | None, ApprovalPolicy]:
        if session.book_id is None:
            remembered = self._always_in_session.setdefault(session.id, set())
            return None, ApprovalPolicy(self.broker, always_allowed=remembered)
        book = await self.app.books.info(session.book_id)
        return book, await self.app.settings.approvals(self.broker, book.id)

    def _said(self, session_id: str, message: str) -> list[ChatEntry]:
        """The person's message stored, unless it is the one still waiting for a reply (a
        retry after a reply that failed); the session's entries after it."""
        entries = self.chats.entries(session_id)
        said = [e for e in entries if e.kind is not EntryKind.NOTICE]
        if said and said[-1].kind is EntryKind.USER and said[-1].payload.get("text") == message:
            return entries
        self.chats.append(session_id, [transcript.user_entry(message)])
        return self.chats.entries(session_id)

    async def _converse(
        self,
        history: list[Message],
        book: Book | None,
        approval: ApprovalPolicy,
        model: ChatModel,
        turn: _Turn,
    ) -> AsyncIterator[ChatEvent]:
        questions = not (book and book.settings.skip_ask_user)
        registry = ToolRegistry(
            assistant_tools(questions=questions),
            ChatContext,
            hidden=() if questions else QUESTION_TOOL_NAMES,
            approval=approval,
        )
        context = ChatContext(
            self.broker,
            f"the assistant ({book.title})" if book else "the assistant",
            self.app,
            model.choice,
            book.id if book else None,
        )
        loop = run_loop(
            model.connected.provider,
            history,
            registry,
            context,
            _ChatGoal(),
            LoopLimits(max_turns=MAX_TURNS),
        )
        try:
            async with closed_after(loop) as events:
                async for event in events:
                    shown = turn.follow(event)
                    await turn.flush()
                    if shown:
                        yield shown
        except FatalProviderError as exc:
            if turn.replies == 0 and _refuses_tools(exc):
                raise _NoTools from exc
            raise


class _NoTools(Exception):
    """The model's server refused a request because it carried tools."""


def _refuses_tools(exc: FatalProviderError) -> bool:
    return not isinstance(exc, AuthError) and exc.status_code in NO_TOOLS_STATUS


@dataclass
class _Turn:
    """One reply as it happens: what is shown of it, and what is stored."""

    chats: Transcripts
    session_id: str
    replies: int = 0
    usage: dict[str, int] = field(
        default_factory=lambda: {"requests": 0, "input_tokens": 0, "output_tokens": 0}
    )
    _text: str = ""
    _cards: dict[str, str] = field(default_factory=dict)
    _pending: list[transcript.Entry] = field(default_factory=list)

    def follow(self, event: object) -> ChatEvent | None:
        match event:
            case TextDelta(text=text):
                self._text += text
                return ChatText(text)
            case CallStreaming(index=index, name=name):
                return ToolCard(self._card(index), name, "parsing")
            case Retry(attempt=attempt, reason=reason):
                self._text = ""
                return ChatRetry(attempt, reason)
            case Response(message=message, usage=usage):
                self._replied(message, usage)
            case ToolStarted(call=call) if call.name in QUESTION_TOOL_NAMES:
                return QuestionWaiting(self._cards[call.id], call.name, _questions(call.arguments))
            case ToolStarted(call=call):
                return ToolCard(self._cards[call.id], call.name, "running", dict(call.arguments))
            case ToolFinished(call=call, result=result):
                self.record(transcript.result_entry(call, result))
                success = bool(result.get("success"))
                said = result.get("message") if success else result.get("error")
                if call.name in QUESTION_TOOL_NAMES:
                    question = transcript.question_entry(call, result)
                    self.record(question)
                    said = " · ".join(question[1].get("answers") or ()) or said
                return ToolOutcome(self._cards[call.id], call.name, success, said)
        return None

    def record(self, entry: transcript.Entry) -> None:
        self._pending.append(entry)

    async def flush(self) -> None:
        """Store what the reply has said so far, off the event loop."""
        if self._pending:
            pending, self._pending = self._pending, []
            await asyncio.to_thread(self.chats.append, self.session_id, pending)

    def stopped(self) -> None:
        """The reply was stopped: keep what it had said, and say it was stopped. Written at
        once, on the loop: a stopped task cannot wait for a thread, and it is one short write."""
        if self._text:
            self.record(transcript.assistant_entry(AssistantMessage(self._text), stopped=True))
        self.record(transcript.notice_entry("The reply was stopped."))
        pending, self._pending = self._pending, []
        self.chats.append(self.session_id, pending)

    def _replied(self, message: AssistantMessage, usage: Usage) -> None:
        self._cards = {call.id: self._card(n) for n, call in enumerate(message.tool_calls)}
        self.replies += 1
        self._text = ""
        self.usage["requests"] += 1
        self.usage["input_tokens"] += usage.input_tokens or 0
        self.usage["output_tokens"] += usage.output_tokens or 0
        self.record(transcript.assistant_entry(message))

    def _card(self, index: int) -> str:
        return f"{self.replies + 1}-{index}"


def _questions(arguments: Mapping[str, Any]) -> list[str]:
    asked = arguments.get("questions") or [arguments]
    return [str(q.get("question", "")) for q in asked if isinstance(q, Mapping)]


def friendly_error(exc: HonyakuError) -> str:
    """Why a reply failed, in words for the person."""
    status = _status(exc)
    if isinstance(exc, AuthError) or status in (401, 403):
        return "the model's server refused the API key: check the key set for this model"
    if status == 429:
        return "the model's server is limiting requests (429): wait a little, then retry"
    if status is not None and status >= 500:
        return f"the model's server failed ({status}): retry in a moment"
    if _caused_by(exc, UnreachableError):
        return "cannot reach the model's server: is it running, and is its address right?"
    return str(exc)


def _status(exc: BaseException) -> int | None:
    while exc is not None:
        if isinstance(exc, ProviderError) and exc.status_code is not None:
            return exc.status_code
        exc = exc.__cause__  # type: ignore[assignment]
    return None


def _caused_by(exc: BaseException | None, kind: type[BaseException]) -> bool:
    while exc is not None:
        if isinstance(exc, kind):
            return True
        exc = exc.__cause__
    return False
