"""The tables. Portable SQL only: the same schema serves SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
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
    __table_args__ = (Index("ix_books_trial_of", "trial_of"),)

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    author: Mapped[str | None] = mapped_column(Text)
    source_lang: Mapped[str] = mapped_column(String(35))
    target_lang: Mapped[str] = mapped_column(String(35))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    translated_title: Mapped[str | None] = mapped_column(Text)
    trial_of: Mapped[str | None] = mapped_column(String(8))
    """The book a trial copied this one from (``store.trials``): a copy is never listed, and
    goes with its trial."""


class OriginalFileRow(Base):
    """The file a book was imported from, kept whole for in-place exports."""

    __tablename__ = "book_originals"

    book_id: Mapped[str] = mapped_column(
        ForeignKey("books.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(Text)
    media_type: Mapped[str] = mapped_column(String(100))
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)


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
    title_translated_from: Mapped[str | None] = mapped_column(Text)
    """The title ``translated_title`` was made for, once a new edition renamed the chapter;
    ``NULL`` while it is ``title``."""


class ParagraphRow(Base):
    __tablename__ = "paragraphs"
    __table_args__ = (
        Index("uq_paragraphs_book_id", "book_id", "id", unique=True),
        Index("ix_paragraphs_chapter_position", "chapter_pk", "position", unique=True),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    book_id: Mapped[str] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    chapter_pk: Mapped[int | None] = mapped_column(ForeignKey("chapters.pk", ondelete="CASCADE"))
    """``NULL`` for a paragraph a new edition left out: kept, with its versions, in the book's
    history (``GoneParagraphRow``)."""
    id: Mapped[str] = mapped_column(String(8))
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    left_on_purpose: Mapped[bool] = mapped_column(Boolean, default=False)
    """The translator keeps it as it is (a copyright line, a word play in the original): no
    job translates it, and it is not listed among what needs them."""


class ParagraphSourceRow(Base):
    """Where a paragraph came from in its book's original file (see ``domain.sources``)."""

    __tablename__ = "paragraph_sources"

    paragraph_pk: Mapped[int] = mapped_column(
        ForeignKey("paragraphs.pk", ondelete="CASCADE"), primary_key=True
    )
    document: Mapped[str] = mapped_column(Text)
    locator: Mapped[str] = mapped_column(Text)
    marks: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True))


class ChapterTitleSourceRow(Base):
    """The heading a chapter's title was read from in its book's original file."""

    __tablename__ = "chapter_title_sources"

    chapter_pk: Mapped[int] = mapped_column(
        ForeignKey("chapters.pk", ondelete="CASCADE"), primary_key=True
    )
    document: Mapped[str] = mapped_column(Text)
    locator: Mapped[str] = mapped_column(Text)
    marks: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True))


class TranslationRow(Base):
    """One version of a paragraph's target text. Rows are only ever added, never with a text
    the paragraph already holds (``Library.add_translations``); one is selected."""

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
    translated_from: Mapped[str | None] = mapped_column(Text)
    """The paragraph's text this version was made for, once a new edition changed it;
    ``NULL`` while it is the paragraph's text. A selected version made for another text is
    stale."""
    marks: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True))
    """Where the source's inline marks land in ``text`` (``domain.placeholders.PlacedMark``:
    the marks by index, a start and an end); ``NULL`` for a text without any."""


# At most one selected version per paragraph; a partial index both databases understand.
Index(
    "uq_translations_selected",
    TranslationRow.paragraph_pk,
    unique=True,
    sqlite_where=TranslationRow.selected,
    postgresql_where=TranslationRow.selected,
)


class EditionRow(Base):
    """One file a book was read from: its import is edition 1, each new edition the next."""

    __tablename__ = "book_editions"
    __table_args__ = (Index("uq_book_editions_number", "book_id", "number", unique=True),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    book_id: Mapped[str] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    name: Mapped[str | None] = mapped_column(Text)
    sha256: Mapped[str | None] = mapped_column(String(64))
    imported_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    """What the edition changed (``domain.edition.EditionSummary``); ``NULL`` for an import."""


class GoneParagraphRow(Base):
    """A paragraph a new edition left out, and where it was: its row and versions stay."""

    __tablename__ = "gone_paragraphs"
    __table_args__ = (Index("ix_gone_paragraphs_book", "book_id", "edition"),)

    paragraph_pk: Mapped[int] = mapped_column(
        ForeignKey("paragraphs.pk", ondelete="CASCADE"), primary_key=True
    )
    book_id: Mapped[str] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    edition: Mapped[int] = mapped_column(Integer)
    """The edition that left it out."""
    chapter_id: Mapped[str] = mapped_column(String(8))
    chapter_title: Mapped[str] = mapped_column(Text)


class GoneChapterRow(Base):
    """A chapter a new edition left out: its titles (its paragraphs are ``GoneParagraphRow``)."""

    __tablename__ = "gone_chapters"
    __table_args__ = (Index("ix_gone_chapters_book", "book_id", "edition"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    book_id: Mapped[str] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    edition: Mapped[int] = mapped_column(Integer)
    chapter_id: Mapped[str] = mapped_column(String(8))
    title: Mapped[str] = mapped_column(Text)
    translated_title: Mapped[str | None] = mapped_column(Text)


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
    batch_replies: Mapped[int] = mapped_column(Integer, default=0)
    """Replies that carried a batch, and the paragraphs those batches saved: how the model
    works through a chunk, for the chunk size of its next jobs."""
    batched_paragraphs: Mapped[int] = mapped_column(Integer, default=0)
    conversations: Mapped[int] = mapped_column(Integer, default=0)
    """Conversations run to an end, done or failed, and the work paragraphs they held."""
    conversation_paragraphs: Mapped[int] = mapped_column(Integer, default=0)
    cache_write_tokens: Mapped[int] = mapped_column(Integer, default=0)
    """Input tokens written to an explicit prompt cache, billed at a price of their own."""
    chunk_chars: Mapped[int | None] = mapped_column(Integer)
    """The size the job's chunks waiting to run were last planned with."""
    owner: Mapped[str | None] = mapped_column(Text)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    retranslate: Mapped[bool] = mapped_column(Boolean, default=False)
    queued: Mapped[bool] = mapped_column(Boolean, default=False)
    """Run by workers from the job queue, not by the process that started it."""
    stop_requests: Mapped[int] = mapped_column(Integer, default=0)
    """How many times someone asked the job to stop: each process running it stops when the
    count grows past what it was when the process opened the job. A count, not a flag, so that
    no process can clear a stop another has yet to see."""
    paragraphs: Mapped[list[str] | None] = mapped_column(JSON(none_as_null=True))
    """The paragraph ids a job over some paragraphs only works on; null for whole chapters."""


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
    """Raised by every claim: the claim's token, which each write made under it shows."""
    owner: Mapped[str | None] = mapped_column(Text)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    error: Mapped[str | None] = mapped_column(Text)
    """Why it failed, in the model's or its server's own words."""
    failure: Mapped[str | None] = mapped_column(String(10))
    """Why it failed, as a failure class (``domain.failures``)."""
    workflow_status: Mapped[str | None] = mapped_column(String(10))
    """Where the chunk's conversation is in its workflow (``domain.workflow``)."""
    round: Mapped[int] = mapped_column(Integer, default=1)
    """The round that planned it: 1 for the job's plan. A part a later round planned keeps
    its size: it is never planned again as the run learns."""
    model: Mapped[str | None] = mapped_column(Text)
    """The model that last ran it to its end."""


class JobModelCostRow(Base):
    """What one model of a job's chain (the one chosen, or a fallback) spent on it."""

    __tablename__ = "job_model_costs"

    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    model: Mapped[str] = mapped_column(Text, primary_key=True)
    requests: Mapped[int] = mapped_column(Integer, default=0)
    retries: Mapped[int] = mapped_column(Integer, default=0)
    input_chars: Mapped[int] = mapped_column(Integer, default=0)
    output_chars: Mapped[int] = mapped_column(Integer, default=0)
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cached_tokens: Mapped[int] = mapped_column(Integer, default=0)
    reasoning_tokens: Mapped[int] = mapped_column(Integer, default=0)
    estimated_input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    estimated_output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    batch_replies: Mapped[int] = mapped_column(Integer, default=0)
    batched_paragraphs: Mapped[int] = mapped_column(Integer, default=0)
    conversations: Mapped[int] = mapped_column(Integer, default=0)
    conversation_paragraphs: Mapped[int] = mapped_column(Integer, default=0)
    cache_write_tokens: Mapped[int] = mapped_column(Integer, default=0)


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


class LearnedModelRow(Base):
    """What honyaku learned about a model on a server: how it calls tools, its context window,
    its pace."""

    # Named when it held the protocol alone; renaming a table would need a migration.
    __tablename__ = "learned_protocols"

    base_url: Mapped[str] = mapped_column(Text, primary_key=True)
    model: Mapped[str] = mapped_column(Text, primary_key=True)
    protocol: Mapped[str | None] = mapped_column(String(10))
    checked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    context_window: Mapped[int | None] = mapped_column(Integer)
    """Tokens the model's context holds on that server, where it was learned."""
    prompt_tokens_per_s: Mapped[float | None] = mapped_column(Float)
    """The pace (``domain.pace.Pace``), once a reply was timed."""
    output_tokens_per_s: Mapped[float | None] = mapped_column(Float)
    longest_reply_tokens: Mapped[int | None] = mapped_column(Integer)
    timed_replies: Mapped[int | None] = mapped_column(Integer)


class ModelProfileRow(Base):
    """A model saved under a name. Never a key: only the variable that holds it, or its name
    in the key store."""

    __tablename__ = "model_profiles"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    model: Mapped[str] = mapped_column(Text)
    provider: Mapped[str | None] = mapped_column(String(20))
    base_url: Mapped[str | None] = mapped_column(Text)
    protocol: Mapped[str] = mapped_column(String(10))
    api_key_env: Mapped[str | None] = mapped_column(Text)
    key_name: Mapped[str | None] = mapped_column(String(100))
    replay_reasoning: Mapped[bool] = mapped_column(Boolean, default=False)
    input_price: Mapped[float | None] = mapped_column(Float)
    cached_input_price: Mapped[float | None] = mapped_column(Float)
    output_price: Mapped[float | None] = mapped_column(Float)
    service_tier: Mapped[str | None] = mapped_column(String(20))
    requests_per_minute: Mapped[int | None] = mapped_column(Integer)
    tokens_per_minute: Mapped[int | None] = mapped_column(Integer)
    context_window: Mapped[int | None] = mapped_column(Integer)
    thinking_tokens: Mapped[int | None] = mapped_column(Integer)
    more_endpoints: Mapped[list[dict[str, str | None]]] = mapped_column(JSON, default=list)
    """Where else the model is served: base URLs and key variables' names, never keys."""
    fallbacks: Mapped[list[str] | None] = mapped_column(JSON)
    """The profiles that take over the parts this model could not do, in order."""
    saved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class KeyAddressRow(Base):
    """A key's name bound to a server by the profile saved with it
    (``domain.key_addresses``): kept when the profile goes, so that no key is freed to go
    elsewhere. A name, never a key."""

    __tablename__ = "key_addresses"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    server: Mapped[str] = mapped_column(String(300), primary_key=True)
    """``scheme://host:port``."""
    named_at_terminal: Mapped[bool] = mapped_column(Boolean, default=False)
    """A terminal named it for this server: its environment variable is read for it."""
    bound_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class ChatSessionRow(Base):
    """A conversation with the assistant, about one book or none."""

    __tablename__ = "chat_sessions"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    book_id: Mapped[str | None] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class ChatMessageRow(Base):
    """One entry of a session's transcript; entries are only ever added."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_session", "session_id", "pk"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("chat_sessions.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class PlanTaskRow(Base):
    """An item of the translator's plan (the assistant's planner): its area is a book."""

    __tablename__ = "plan_tasks"
    __table_args__ = (Index("ix_plan_tasks_date", "scheduled_date"),)

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    book_id: Mapped[str | None] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    chapters: Mapped[list[int] | None] = mapped_column(JSON)
    job_kind: Mapped[str | None] = mapped_column(String(20))
    scheduled_date: Mapped[date | None] = mapped_column(Date)
    completed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class GlossaryRow(Base):
    """A book's own glossary (``book_id``), or a shared one a series of books attach to
    (``name``)."""

    __tablename__ = "glossaries"
    __table_args__ = (
        Index("uq_glossaries_book", "book_id", unique=True),
        Index("uq_glossaries_name", "name", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    book_id: Mapped[str | None] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    name: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class GlossaryAttachmentRow(Base):
    """A book that uses a shared glossary."""

    __tablename__ = "glossary_attachments"

    book_id: Mapped[str] = mapped_column(
        ForeignKey("books.id", ondelete="CASCADE"), primary_key=True
    )
    glossary_id: Mapped[int] = mapped_column(
        ForeignKey("glossaries.id", ondelete="CASCADE"), primary_key=True
    )


class GlossaryEntryRow(Base):
    """One version of a glossary entry. Rows are only ever added: the latest of a key is the
    entry as it stands, and a removal is a version too."""

    __tablename__ = "glossary_entries"
    __table_args__ = (Index("ix_glossary_entries_key", "glossary_id", "key", "pk"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    glossary_id: Mapped[int] = mapped_column(ForeignKey("glossaries.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(Text)
    """The normalized source (``domain.glossary.match_key``)."""
    source: Mapped[str] = mapped_column(Text)
    target: Mapped[str] = mapped_column(Text)
    note: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(40))
    aliases: Mapped[list[str]] = mapped_column(JSON)
    gender: Mapped[str] = mapped_column(String(40))
    reading: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10))
    """proposed, accepted or removed."""
    origin: Mapped[str] = mapped_column(Text)
    """Who wrote this version: a person (``manual``, ``import``) or a job and its model."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    pronoun: Mapped[str] = mapped_column(String(40), default="", server_default="")
    """A character's pronoun in the target language."""
    speech: Mapped[str] = mapped_column(Text, default="", server_default="")
    """How a character speaks."""


class AddressFormRow(Base):
    """One version of a row of a glossary's address book (``domain.forms_of_address``):
    rows are only ever added, the latest of a key is the row as it stands, and a removal is
    a version too, as for glossary entries."""

    __tablename__ = "address_forms"
    __table_args__ = (Index("ix_address_forms_key", "glossary_id", "key", "pk"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    glossary_id: Mapped[int] = mapped_column(ForeignKey("glossaries.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(Text)
    """Speaker, listener, form (normalized) and point: ``FormOfAddress.key``."""
    speaker: Mapped[str] = mapped_column(Text)
    listener: Mapped[str] = mapped_column(Text)
    source_form: Mapped[str] = mapped_column(Text)
    rendering: Mapped[str] = mapped_column(Text)
    register: Mapped[str] = mapped_column(String(40))
    note: Mapped[str] = mapped_column(Text)
    since_book: Mapped[str | None] = mapped_column(String(8))
    since_chapter: Mapped[int | None] = mapped_column(Integer)
    since_index: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(10))
    origin: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class MemoryReferenceRow(Base):
    """Another translator's translation of a paragraph, imported into the translation memory
    (``store.memory``): never a version of the paragraph, only shown to models as a reference."""

    __tablename__ = "memory_references"
    __table_args__ = (Index("uq_memory_references_paragraph", "paragraph_pk", unique=True),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    paragraph_pk: Mapped[int] = mapped_column(ForeignKey("paragraphs.pk", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(Text)
    origin: Mapped[str] = mapped_column(Text)
    """Where it came from: the file's name."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class QualityFlagRow(Base):
    """A quality check's warning about one translation version (``domain.quality``)."""

    __tablename__ = "quality_flags"
    __table_args__ = (Index("ix_quality_flags_translation", "translation_pk"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    translation_pk: Mapped[int] = mapped_column(ForeignKey("translations.pk", ondelete="CASCADE"))
    code: Mapped[str] = mapped_column(String(40))
    message: Mapped[str] = mapped_column(Text)
    dismissed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When the translator dismissed the warning: no mistake, the paragraph is not flagged."""


class RatingRow(Base):
    """A rating job's score of one translation version (``domain.rating``): the version
    selected when the judge read it."""

    __tablename__ = "ratings"
    __table_args__ = (
        Index("ix_ratings_translation", "translation_pk"),
        Index("ix_ratings_job", "job_id"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    translation_pk: Mapped[int] = mapped_column(ForeignKey("translations.pk", ondelete="CASCADE"))
    job_id: Mapped[str] = mapped_column(String(8))
    model: Mapped[str] = mapped_column(Text)
    score: Mapped[int] = mapped_column(Integer)
    issues: Mapped[list[str]] = mapped_column(JSON)
    comment: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class TrialRow(Base):
    """Models tried on the same sample of a book, each on its own copy (``store.trials``)."""

    __tablename__ = "trials"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    book_id: Mapped[str] = mapped_column(ForeignKey("books.id", ondelete="CASCADE"))
    chapters: Mapped[list[int]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(Integer)
    """Shuffles the versions a judge reads, the same way every time."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    judge: Mapped[str | None] = mapped_column(Text)
    judge_book_id: Mapped[str | None] = mapped_column(String(8))
    """The copy the judge rates: every model's version of each paragraph, names hidden."""
    judge_job_id: Mapped[str | None] = mapped_column(String(8))
    blind: Mapped[dict[str, list[Any]] | None] = mapped_column(JSON(none_as_null=True))
    """Each paragraph of the judge's copy: the entry and the paragraph whose version it holds."""
    reference: Mapped[dict[str, str] | None] = mapped_column(JSON(none_as_null=True))
    """The translator's own translation of the sample, by paragraph id, where they gave one."""
    used: Mapped[str | None] = mapped_column(Text)
    """The model whose versions the translator took into the book."""


class TrialEntryRow(Base):
    """One model of a trial: the copy it translated and the job that did."""

    __tablename__ = "trial_entries"

    trial_id: Mapped[str] = mapped_column(
        ForeignKey("trials.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    model: Mapped[str] = mapped_column(Text)
    """The saved profile's name."""
    book_id: Mapped[str] = mapped_column(String(8))
    job_id: Mapped[str | None] = mapped_column(String(8))


class QuestionRow(Base):
    """A question a queued job's model asked, kept until a person answers it or its deadline
    passes; its chunk waits meanwhile, its conversation kept here (``store.questions``)."""

    __tablename__ = "questions"
    __table_args__ = (Index("ix_questions_status", "status", "deadline_at"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    chunk_pk: Mapped[int] = mapped_column(ForeignKey("job_chunks.pk", ondelete="CASCADE"))
    chapter_number: Mapped[int] = mapped_column(Integer)
    asker: Mapped[str] = mapped_column(Text)
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The questions as the person reads them (``agent.broker.QuestionRequest``)."""
    conversation: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    """The chunk's messages up to the call that asked (``llm.messages``)."""
    workflow: Mapped[dict[str, Any]] = mapped_column(JSON)
    """Where the chunk's workflow stood (``domain.workflow``)."""
    status: Mapped[str] = mapped_column(String(10))
    reply: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    deadline_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class RateLimitRow(Base):
    """A rate limit shared by every process on the database: one row per model profile,
    locked by whoever counts a request against it (``store.rate_log``)."""

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    held_until: Mapped[float] = mapped_column(Float, default=0.0)
    """Seconds since the epoch before which nothing is sent: the server said so."""


class RateSendRow(Base):
    """A request counted against a rate limit: when it was sent, and its tokens."""

    __tablename__ = "rate_limit_sends"
    __table_args__ = (Index("ix_rate_limit_sends_key", "key", "sent_at"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(ForeignKey("rate_limits.key", ondelete="CASCADE"))
    sent_at: Mapped[float] = mapped_column(Float)
    tokens: Mapped[int] = mapped_column(Integer)


class SpendingRow(Base):
    """What one run of a job has spent, or may spend for a request in flight: the ledger
    every process of the run checks before a request (``store.spending``)."""

    __tablename__ = "spending"
    __table_args__ = (Index("ix_spending_run", "run"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run: Mapped[str] = mapped_column(ForeignKey("spending_runs.run", ondelete="CASCADE"))
    reserved: Mapped[float] = mapped_column(Float)
    """The most the request in flight could cost; 0 once it is answered."""
    cost: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class SpendingRunRow(Base):
    """One run's cap, and the row its processes lock to count against it."""

    __tablename__ = "spending_runs"

    run: Mapped[str] = mapped_column(String(80), primary_key=True)
    cap: Mapped[float] = mapped_column(Float)


class JobBatchRow(Base):
    """A batch a job sent through a provider's Batch API: the provider's id, its state and
    counts as last polled, and the handle (``llm.batches.BatchHandle``) that finds it again,
    custom ids and the conversations they belong to included."""

    __tablename__ = "job_batches"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    provider: Mapped[str] = mapped_column(String(20))
    model: Mapped[str] = mapped_column(Text)
    batch_id: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(20))
    handle: Mapped[dict[str, Any]] = mapped_column(JSON)
    counts: Mapped[dict[str, Any]] = mapped_column(JSON)
    submitted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class BatchConversationRow(Base):
    """A part's conversation in batch mode, kept before each of its requests goes out in a
    batch: its messages (the request) and where its workflow stood (``jobs.parking``'s
    records), and the custom id of its line, so that any later process takes it back up
    where it waits (``store.batches``)."""

    __tablename__ = "batch_conversations"

    id: Mapped[str] = mapped_column(String(8), primary_key=True)
    """The conversation's key: its lines' custom ids begin with it."""
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    chunk_pk: Mapped[int] = mapped_column(
        ForeignKey("job_chunks.pk", ondelete="CASCADE"), index=True
    )
    conversation: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    workflow: Mapped[dict[str, Any]] = mapped_column(JSON)
    custom_id: Mapped[str | None] = mapped_column(Text)
    """The line of its request waiting for a batch's answer; ``None`` before the first."""
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
