"""The assistant's conversations: sessions, and each one's transcript, only ever added to.

An entry is a kind and a JSON payload; what the kinds hold is the assistant's business
(``assistant.transcript``). A summary that stands in for older turns is an entry too: the
transcript itself always stays whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from honyaku.domain.chat import ChatEntry, ChatSession, EntryKind
from honyaku.errors import NotFoundError
from honyaku.store.database import Database
from honyaku.store.ids import fresh_id
from honyaku.store.schema import ChatMessageRow, ChatSessionRow, table_of, utc_now


class ChatStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def create(self, title: str, book_id: str | None = None) -> ChatSession:
        with self.database.transaction() as session:
            now = utc_now()
            row = ChatSessionRow(
                id=fresh_id(session, ChatSessionRow),
                book_id=book_id,
                title=title,
                created_at=now,
                updated_at=now,
            )
            session.add(row)
            return _session(row)

    def get(self, session_id: str) -> ChatSession:
        with self.database.transaction() as session:
            return _session(_row(session, session_id))

    def sessions(self, book_id: str | None = None) -> list[ChatSession]:
        """The sessions about ``book_id`` (every session when ``None``), latest first."""
        query = select(ChatSessionRow).order_by(ChatSessionRow.updated_at.desc())
        if book_id is not None:
            query = query.where(ChatSessionRow.book_id == book_id)
        with self.database.transaction() as session:
            return [_session(row) for row in session.scalars(query)]

    def entries(self, session_id: str) -> list[ChatEntry]:
        with self.database.transaction() as session:
            _row(session, session_id)
            rows = session.scalars(
                select(ChatMessageRow)
                .where(ChatMessageRow.session_id == session_id)
                .order_by(ChatMessageRow.pk)
            )
            return [
                ChatEntry(row.pk, EntryKind(row.kind), row.payload, row.created_at) for row in rows
            ]

    def append(self, session_id: str, entries: Sequence[tuple[EntryKind, dict[str, Any]]]) -> None:
        if not entries:
            return
        with self.database.transaction() as session:
            now = utc_now()
            session.execute(
                insert(table_of(ChatMessageRow)),
                [
                    {
                        "session_id": session_id,
                        "kind": kind.value,
                        "payload": payload,
                        "created_at": now,
                    }
                    for kind, payload in entries
                ],
            )
            session.execute(
                update(ChatSessionRow).where(ChatSessionRow.id == session_id).values(updated_at=now)
            )

    def rename(self, session_id: str, title: str) -> None:
        with self.database.transaction() as session:
            _row(session, session_id).title = title

    def delete(self, session_id: str) -> None:
        with self.database.transaction() as session:
            session.delete(_row(session, session_id))


def _row(session: Session, session_id: str) -> ChatSessionRow:
    row = session.get(ChatSessionRow, session_id)
    if row is None:
        raise NotFoundError("no chat session {session_id!r}", session_id=session_id)
    return row


def _session(row: ChatSessionRow) -> ChatSession:
    return ChatSession(row.id, row.book_id, row.title, row.created_at, row.updated_at)
