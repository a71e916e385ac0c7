"""The application as the assistant sees it: the use cases its tools call.

The assistant reads and changes the library the way every front end does, through the
application's use cases (``honyaku.application``), which sit above it: so it declares here
what it calls, and the application hands itself over (as pydantic-ai hands a run its
dependencies). Nothing the assistant does reaches the stores another way.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import date
from typing import Any, Protocol

from honyaku.agent.broker import ApprovalPolicy, Broker
from honyaku.domain.book import Book
from honyaku.domain.chat import ChatEntry, ChatSession, EntryKind
from honyaku.domain.library import BookSummary, ChapterProgress, LocatedParagraph, Version
from honyaku.domain.plan import PlanTask, PlanView
from honyaku.domain.text_search import TextQuery
from honyaku.jobs.progress import JobProgress
from honyaku.jobs.requests import JobRequest
from honyaku.llm.models import ModelChoice, ModelOptions


class Books(Protocol):
    async def all(self) -> list[BookSummary]: ...

    async def resolve(self, ref: str) -> str: ...

    async def info(self, book_id: str) -> Book: ...

    async def whole(self, book_id: str, chapters: Collection[int] | None = None) -> Book: ...

    async def progress(self, book_id: str) -> list[ChapterProgress]: ...

    async def chapter_numbers(self, book_id: str, chapters: str | None) -> list[int] | None: ...


class Found(Protocol):
    """A search's first hits and how many paragraphs matched in all."""

    @property
    def hits(self) -> Sequence[Hit]: ...

    @property
    def total(self) -> int: ...


class Hit(Protocol):
    @property
    def located(self) -> LocatedParagraph: ...


class Search(Protocol):
    async def find(
        self,
        book_id: str,
        query: TextQuery,
        *,
        source: bool = True,
        translation: bool = True,
        chapters: Collection[int] | None = None,
    ) -> Found: ...


class Versions(Protocol):
    async def all(self, book_id: str, paragraph_id: str) -> list[Version]: ...

    async def write(self, book_id: str, paragraph_id: str, text: str) -> list[Version]: ...

    async def select(self, book_id: str, paragraph_id: str, version_id: int) -> list[Version]: ...


class Plans(Protocol):
    async def create(
        self,
        title: str,
        *,
        book_id: str | None = None,
        scheduled_date: date | None = None,
        chapters: list[int] | None = None,
        job_kind: str | None = None,
    ) -> PlanTask: ...

    async def read(self, view: PlanView) -> list[PlanTask]: ...

    async def update(
        self,
        task_id: str,
        *,
        title: str | None = None,
        completed: bool | None = None,
        scheduled_date: date | None = None,
    ) -> PlanTask: ...

    async def delete(self, task_id: str) -> PlanTask: ...


class Jobs(Protocol):
    async def start(self, request: JobRequest, model: ModelChoice) -> str: ...

    async def progress(self, job_id: str) -> JobProgress: ...


class Settings(Protocol):
    async def approvals(self, broker: Broker, book_id: str | None) -> ApprovalPolicy: ...


class Models(Protocol):
    async def choose(self, options: ModelOptions, *, book: str | None = None) -> ModelChoice: ...


class App(Protocol):
    """The use cases the assistant calls."""

    @property
    def models(self) -> Models: ...

    @property
    def books(self) -> Books: ...

    @property
    def search(self) -> Search: ...

    @property
    def versions(self) -> Versions: ...

    @property
    def plans(self) -> Plans: ...

    @property
    def jobs(self) -> Jobs: ...

    @property
    def settings(self) -> Settings: ...


class Transcripts(Protocol):
    """Where chats are kept: sessions and their entries, only ever added to. Called off the
    event loop."""

    def create(self, title: str, book_id: str | None = None) -> ChatSession: ...

    def get(self, session_id: str) -> ChatSession: ...

    def entries(self, session_id: str) -> list[ChatEntry]: ...

    def append(
        self, session_id: str, entries: Sequence[tuple[EntryKind, dict[str, Any]]]
    ) -> None: ...
