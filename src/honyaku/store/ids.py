"""Fresh ids for the rows keyed by a short random id: books, jobs, chats, plan tasks."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from honyaku.domain.ids import new_id
from honyaku.store.schema import Base


@dataclass(frozen=True, slots=True)
class _Taken:
    """The ids of ``row``'s table, asked one candidate at a time: never every id read."""

    session: Session
    row: type[Base]

    def __contains__(self, candidate: object) -> bool:
        return self.session.get(self.row, candidate) is not None


def fresh_id(session: Session, row: type[Base]) -> str:
    """An id that no row of ``row``'s table has."""
    return new_id(_Taken(session, row))
