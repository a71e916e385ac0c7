"""The assistant's conversations as they are kept: sessions, and entries of a transcript."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any


class EntryKind(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    """A reply: its text, its reasoning, the calls it made, what its provider must get back."""
    TOOL_RESULT = "tool_result"
    QUESTION = "question"
    """A question to the person and its outcome, in short."""
    NOTICE = "notice"
    """Something the person was told: a reply stopped, a fallback to plain chat."""
    SUMMARY = "summary"
    """Stands in, in what the model is sent, for every entry before it."""


@dataclass(frozen=True, slots=True)
class ChatSession:
    id: str
    book_id: str | None
    title: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ChatEntry:
    pk: int
    kind: EntryKind
    payload: dict[str, Any]
    created_at: datetime
