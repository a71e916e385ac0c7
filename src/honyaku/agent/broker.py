"""Between tools that need a person and the front ends that reach one.

Questions (``ask_user``, ``ask_user_batch``) and approvals of risky calls wait in one FIFO queue,
so at most one dialog is shown at a time across every concurrent job. A front end (the
terminal, later the web app) registers itself; with none registered (CI, a pipe) a request
fails at once with a readable reason instead of waiting for no one. A job that is cancelled
while its request waits withdraws it: the person never sees it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from honyaku.errors import HonyakuError, NoFrontEndError

NO_FRONT_END = (
    "nobody can answer: honyaku is running without a terminal or web app to ask the "
    "translator (CI, a pipe). Decide yourself and go on; mention the doubt in your work if "
    "it matters."
)


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    suggested_answers: tuple[str, ...] = ()
    allow_free_text: bool = True


@dataclass(frozen=True, slots=True)
class QuestionRequest:
    """One dialog: a single question, or a batch the person steps through."""

    questions: tuple[Question, ...]
    asker: str
    """Who asks, for the person: e.g. "translation of chapter 2"."""
    batch: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    question_index: int
    answer: str
    selected_index: int | None = None
    """0-based index into the question's suggestions, when one was picked."""


@dataclass(frozen=True, slots=True)
class QuestionReply:
    answers: tuple[Answer, ...]
    """In question order; on cancel, only those given so far."""
    cancelled: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    tool: str
    arguments: Mapping[str, Any]
    asker: str


@dataclass(frozen=True, slots=True)
class ApprovalReply:
    allowed: bool
    always: bool = False
    """Allow this tool from now on without asking again."""


class QuestionParked(HonyakuError):
    """A front end's word that the question will be answered later, elsewhere (a queued
    job's): not a tool's failure, so the tool registry lets it through, and the conversation
    is kept for when the answer comes."""

    def __init__(self, request: QuestionRequest) -> None:
        super().__init__("the question waits for a person; its chunk is parked meanwhile")
        self.request = request


PersonRequest = QuestionRequest | ApprovalRequest
PersonReply = QuestionReply | ApprovalReply


class FrontEnd(Protocol):
    """Something that can show a request to the person and bring back the reply."""

    async def ask(self, request: PersonRequest) -> PersonReply: ...


class Broker:
    def __init__(self, front_end: FrontEnd | None = None) -> None:
        self._front_end = front_end
        self._turn = asyncio.Lock()  # FIFO: waiters are served in the order they came
        self._queued = 0

    @property
    def queued(self) -> int:
        """Requests waiting behind the one on screen."""
        return self._queued

    @contextmanager
    def attached(self, front_end: FrontEnd) -> Iterator[None]:
        """Let ``front_end`` answer requests while the block runs."""
        self._front_end = front_end
        try:
            yield
        finally:
            self._front_end = None

    async def ask(self, request: PersonRequest) -> PersonReply:
        """Wait for the person's reply; raises ``NoFrontEndError`` if no one can answer."""
        if self._front_end is None:
            raise NoFrontEndError(NO_FRONT_END)
        self._queued += 1
        try:
            await self._turn.acquire()
        finally:
            self._queued -= 1
        try:
            if self._front_end is None:
                raise NoFrontEndError(NO_FRONT_END)
            return await self._front_end.ask(request)
        finally:
            self._turn.release()


@dataclass
class ApprovalPolicy:
    """Which calls need the person's yes before they run, and asking for it.

    ``remember_always`` keeps an "always allow" beyond this run (the book's settings); it may
    block, and runs in a worker thread.
    """

    broker: Broker
    required: set[str] = field(default_factory=set)
    always_allowed: set[str] = field(default_factory=set)
    remember_always: Callable[[str], None] = lambda tool: None

    def needs_approval(self, tool: str, marked: bool) -> bool:
        return (marked or tool in self.required) and tool not in self.always_allowed

    async def refusal(self, tool: str, arguments: Mapping[str, Any], asker: str) -> str | None:
        """``None`` if the call may run, else why not, in words for the model."""
        try:
            reply = await self.broker.ask(ApprovalRequest(tool, arguments, asker))
        except NoFrontEndError:
            return f"{tool} needs the translator's approval, and nobody can give it now"
        assert isinstance(reply, ApprovalReply)
        if reply.always:
            self.always_allowed.add(tool)
            await asyncio.to_thread(self.remember_always, tool)
        if reply.allowed:
            return None
        return f"the translator did not allow this {tool} call: {_brief(arguments)}"


def _brief(arguments: Mapping[str, Any]) -> str:
    text = json.dumps(dict(arguments), ensure_ascii=False)
    return text if len(text) <= 200 else text[:199] + "…"
