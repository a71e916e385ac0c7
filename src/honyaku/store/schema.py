"""The tables. Portable SQL only: the same schema serves SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utc_now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


def table_of(row: type[Base]) -> Table:
    """The Core table behind a mapped class: bulk inserts through Core cost a fifth of the
    time the ORM takes for hundreds of rows."""
    return cast(Table, row.__table__)


class BookRow(Base):
    __tablename__ = "books"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    author: Mapped[str | None] = mapped_column(Text)
    source_lang: Mapped[str] = mapped_column(String(35))
    target_lang: Mapped[str] = mapped_column(String(35))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class ChapterRow(Base):
    __tablename__ = "chapters"
    __table_args__ = (
        Index("uq_chapters_book_id", "book_id", "id", unique=True),
        Index("uq_chapters_book_position", "book_id", "position", unique=True),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    book_id: Mapped[str] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    id: Mapped[str] = mapped_column(String(8))
    position: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(Text)
    translated_title: Mapped[str | None] = mapped_column(Text)


class ParagraphRow(Base):
    __tablename__ = "paragraphs"
    __table_args__ = (
        Index("uq_paragraphs_book_id", "book_id", "id", unique=True),
        Index("ix_paragraphs_chapter_position", "chapter_pk", "position", unique=True),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    book_id: Mapped[str] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    chapter_pk: Mapped[int] = mapped_column(ForeignKey("chapters.pk", ondelete="CASCADE"))
    id: Mapped[str] = mapped_column(String(8))
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)


class TranslationRow(Base):
    """One version of a paragraph's target text. Rows are only ever added; one is selected."""

    __tablename__ = "translations"
    __table_args__ = (Index("ix_translations_paragraph", "paragraph_pk"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    paragraph_pk: Mapped[int] = mapped_column(ForeignKey("paragraphs.pk", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(20))
    model: Mapped[str | None] = mapped_column(Text)
    job_id: Mapped[str | None] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    selected: Mapped[bool] = mapped_column(Boolean, default=False)


# At most one selected version per paragraph; a partial index both databases understand.
Index(
    "uq_translations_selected",
    TranslationRow.paragraph_pk,
    unique=True,
    sqlite_where=TranslationRow.selected,
    postgresql_where=TranslationRow.selected,
)


class JobRow(Base):
    """One AI run over a scope of chapters, with its running cost."""

    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    book_id: Mapped[str] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))
    chapters: Mapped[list[int] | None] = mapped_column(JSON)
    model: Mapped[str] = mapped_column(Text)
    protocol: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(12))
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    requests: Mapped[int] = mapped_column(Integer, default=0)
    retries: Mapped[int] = mapped_column(Integer, default=0)
    input_chars: Mapped[int] = mapped_column(Integer, default=0)
    output_chars: Mapped[int] = mapped_column(Integer, default=0)
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cached_tokens: Mapped[int] = mapped_column(Integer, default=0)
    reasoning_tokens: Mapped[int] = mapped_column(Integer, default=0)
    estimated_input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    """What honyaku's estimate said the same requests would cost, to refine the next one."""
    estimated_output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    owner: Mapped[str | None] = mapped_column(Text)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    retranslate: Mapped[bool] = mapped_column(Boolean, default=False)
    stop_requested: Mapped[bool] = mapped_column(Boolean, default=False)


class ChunkRow(Base):
    """One chunk of a job's plan: the work item a process claims, runs and finishes."""

    __tablename__ = "job_chunks"
    __table_args__ = (
        Index("uq_job_chunks_position", "job_id", "chapter_number", "number", unique=True),
        Index("ix_job_chunks_book_status", "book_id", "status"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    book_id: Mapped[str] = mapped_column(String(8))
    chapter_id: Mapped[str] = mapped_column(String(8))
    chapter_number: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    chunks_in_chapter: Mapped[int] = mapped_column(Integer)
    paragraph_ids: Mapped[list[str]] = mapped_column(JSON)
    shows_title: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(10))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    owner: Mapped[str | None] = mapped_column(Text)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    error: Mapped[str | None] = mapped_column(Text)


class ActionRow(Base):
    """Something that happened in a job's conversation: a call, a result, a question…"""

    __tablename__ = "actions"
    __table_args__ = (Index("ix_actions_job", "job_id", "pk"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    chapter_id: Mapped[str | None] = mapped_column(String(8))
    chunk: Mapped[int | None] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))
    name: Mapped[str | None] = mapped_column(Text)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class LearnedProtocolRow(Base):
    """What honyaku learned about a model on a server: how it calls tools."""

    __tablename__ = "learned_protocols"

    base_url: Mapped[str] = mapped_column(Text, primary_key=True)
    model: Mapped[str] = mapped_column(Text, primary_key=True)
    protocol: Mapped[str] = mapped_column(String(10))
    checked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class ModelProfileRow(Base):
    """A model saved under a name. Never a key: only the variable that holds it."""

    __tablename__ = "model_profiles"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    model: Mapped[str] = mapped_column(Text)
    provider: Mapped[str | None] = mapped_column(String(20))
    base_url: Mapped[str | None] = mapped_column(Text)
    protocol: Mapped[str] = mapped_column(String(10))
    api_key_env: Mapped[str | None] = mapped_column(Text)
    replay_reasoning: Mapped[bool] = mapped_column(Boolean, default=False)
    input_price: Mapped[float | None] = mapped_column(Float)
    cached_input_price: Mapped[float | None] = mapped_column(Float)
    output_price: Mapped[float | None] = mapped_column(Float)
    service_tier: Mapped[str | None] = mapped_column(String(20))
    requests_per_minute: Mapped[int | None] = mapped_column(Integer)
    tokens_per_minute: Mapped[int | None] = mapped_column(Integer)
    saved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
