"""Trials: models tried on the same sample of a book (``application.trials``).

Each model translates its own copy of the sample (a book with ``trial_of`` set, never
listed), so the book's own translations stay as they are until the translator takes one
model's versions into it. A copy keeps the sample's chapter and paragraph ids: a paragraph is
the same id in the book and in every copy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from honyaku.errors import NotFoundError
from honyaku.store.database import Database
from honyaku.store.ids import fresh_id
from honyaku.store.schema import TrialEntryRow, TrialRow, utc_now


@dataclass(frozen=True, slots=True)
class TrialEntry:
    position: int
    model: str
    """The saved profile's name."""
    book_id: str
    """Its copy of the sample."""
    job_id: str | None


@dataclass(frozen=True, slots=True)
class Blind:
    """What the judge read, paragraph by paragraph of its copy: which model's version
    (``entry``, a position) of which paragraph of the book."""

    entry: int
    paragraph_id: str


@dataclass(frozen=True, slots=True)
class Trial:
    id: str
    book_id: str
    chapters: list[int]
    seed: int
    created_at: datetime
    entries: tuple[TrialEntry, ...]
    judge: str | None = None
    judge_book_id: str | None = None
    judge_job_id: str | None = None
    blind: dict[str, Blind] | None = None
    """By paragraph id of the judge's copy."""
    reference: dict[str, str] | None = None
    """The translator's own translation of the sample, by paragraph id."""
    used: str | None = None

    def entry(self, model: str) -> TrialEntry:
        for entry in self.entries:
            if entry.model == model:
                return entry
        raise NotFoundError("model {model!r} was not tried in trial {id}", model=model, id=self.id)


class Trials:
    def __init__(self, database: Database) -> None:
        self.database = database

    def add(
        self,
        book_id: str,
        chapters: Sequence[int],
        seed: int,
        copies: Sequence[tuple[str, str]],
        reference: Mapping[str, str] | None = None,
    ) -> Trial:
        """A trial of each ``(model, copy)`` on the book's ``chapters``, beside the
        translator's ``reference`` (by paragraph id), if given."""
        with self.database.transaction() as session:
            trial_id = fresh_id(session, TrialRow)
            session.add(
                TrialRow(
                    id=trial_id,
                    book_id=book_id,
                    chapters=list(chapters),
                    seed=seed,
                    created_at=utc_now(),
                    reference=dict(reference) if reference else None,
                )
            )
            session.flush()
            for position, (model, copy) in enumerate(copies):
                session.add(
                    TrialEntryRow(trial_id=trial_id, position=position, model=model, book_id=copy)
                )
        return self.get(trial_id)

    def started(self, trial_id: str, position: int, job_id: str) -> None:
        with self.database.transaction() as session:
            row = session.get(TrialEntryRow, (trial_id, position))
            if row is None:
                raise NotFoundError(
                    "trial {id} has no entry {position}", id=trial_id, position=position
                )
            row.job_id = job_id

    def judged(
        self, trial_id: str, judge: str, book_id: str, job_id: str, blind: dict[str, Blind]
    ) -> None:
        with self.database.transaction() as session:
            row = _row(session, trial_id)
            row.judge, row.judge_book_id, row.judge_job_id = judge, book_id, job_id
            row.blind = {pid: [seen.entry, seen.paragraph_id] for pid, seen in blind.items()}

    def used(self, trial_id: str, model: str) -> None:
        with self.database.transaction() as session:
            _row(session, trial_id).used = model

    def remove(self, trial_id: str) -> None:
        """Forget the trial (its copies are the library's to delete)."""
        with self.database.transaction() as session:
            session.delete(_row(session, trial_id))

    def get(self, trial_id: str) -> Trial:
        with self.database.transaction() as session:
            row = _row(session, trial_id)
            entries = session.scalars(
                select(TrialEntryRow)
                .where(TrialEntryRow.trial_id == trial_id)
                .order_by(TrialEntryRow.position)
            ).all()
            return _trial(row, entries)

    def of_book(self, book_id: str) -> list[Trial]:
        """The book's trials, newest first."""
        with self.database.transaction() as session:
            ids = session.scalars(
                select(TrialRow.id)
                .where(TrialRow.book_id == book_id)
                .order_by(TrialRow.created_at.desc(), TrialRow.id)
            ).all()
        return [self.get(trial_id) for trial_id in ids]


def _row(session: Session, trial_id: str) -> TrialRow:
    row = session.get(TrialRow, trial_id)
    if row is None:
        raise NotFoundError("no trial {id}", id=trial_id)
    return row


def _trial(row: TrialRow, entries: Sequence[TrialEntryRow]) -> Trial:
    blind = None
    if row.blind is not None:
        blind = {pid: Blind(entry, paragraph) for pid, (entry, paragraph) in row.blind.items()}
    return Trial(
        row.id,
        row.book_id,
        list(row.chapters),
        row.seed,
        row.created_at,
        tuple(TrialEntry(e.position, e.model, e.book_id, e.job_id) for e in entries),
        row.judge,
        row.judge_book_id,
        row.judge_job_id,
        blind,
        row.reference,
        row.used,
    )
