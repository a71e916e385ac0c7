"""Quality flags: the checks' warnings about translation versions (``domain.quality``).

A flag belongs to the version it describes, so a paragraph is flagged while its selected
version is: a later version that passes the checks clears it, and nothing is deleted. A
translator who reads a warning and finds no mistake dismisses it: it stays with its version,
dismissed, and flags that version no more.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from sqlalchemy import CursorResult, insert, select, update
from sqlalchemy.orm import Session

from honyaku.domain.quality import QualityWarning
from honyaku.store.database import Database
from honyaku.store.schema import (
    ChapterRow,
    ParagraphRow,
    QualityFlagRow,
    TranslationRow,
    table_of,
    utc_now,
)


@dataclass(frozen=True, slots=True)
class FlaggedParagraph:
    chapter_number: int
    chapter_id: str
    paragraph_id: str
    index: int
    """Position in the chapter, empty paragraphs counted."""
    text: str
    translation: str
    warnings: tuple[QualityWarning, ...]


def add_flags(session: Session, by_paragraph_pk: Mapping[int, Sequence[QualityWarning]]) -> None:
    """Flag the selected versions of these paragraphs (just written, in ``session``)."""
    if not by_paragraph_pk:
        return
    versions = dict(
        session.execute(
            select(TranslationRow.paragraph_pk, TranslationRow.pk).where(
                TranslationRow.paragraph_pk.in_(list(by_paragraph_pk)), TranslationRow.selected
            )
        ).all()
    )
    rows = [
        {"translation_pk": versions[pk], "code": w.code, "message": w.message}
        for pk, warnings in by_paragraph_pk.items()
        for w in warnings
    ]
    if rows:
        session.execute(insert(table_of(QualityFlagRow)), rows)


class QualityFlags:
    def __init__(self, database: Database) -> None:
        self.database = database

    def flagged(
        self, book_id: str, *, chapter_numbers: Collection[int] | None = None
    ) -> list[FlaggedParagraph]:
        """The paragraphs whose selected version has flags, in book order."""
        query = (
            select(
                ChapterRow.position,
                ChapterRow.id,
                ParagraphRow.id,
                ParagraphRow.position,
                ParagraphRow.text,
                TranslationRow.text,
                QualityFlagRow.code,
                QualityFlagRow.message,
            )
            .join(TranslationRow, TranslationRow.pk == QualityFlagRow.translation_pk)
            .join(ParagraphRow, ParagraphRow.pk == TranslationRow.paragraph_pk)
            .join(ChapterRow, ChapterRow.pk == ParagraphRow.chapter_pk)
            .where(
                ParagraphRow.book_id == book_id,
                TranslationRow.selected,
                QualityFlagRow.dismissed_at.is_(None),
            )
            .order_by(ChapterRow.position, ParagraphRow.position, QualityFlagRow.pk)
        )
        if chapter_numbers is not None:
            query = query.where(ChapterRow.position.in_([n - 1 for n in chapter_numbers]))
        found: dict[str, FlaggedParagraph] = {}
        with self.database.transaction() as session:
            for cpos, cid, pid, ppos, text, translation, code, message in session.execute(query):
                warning = QualityWarning(code, message, pid)
                if before := found.get(pid):
                    found[pid] = replace(before, warnings=(*before.warnings, warning))
                else:
                    found[pid] = FlaggedParagraph(
                        cpos + 1, cid, pid, ppos, text, translation, (warning,)
                    )
        return list(found.values())

    def dismiss(self, book_id: str, paragraph_id: str, codes: Collection[str] = ()) -> int:
        """Dismiss the warnings (of ``codes``, or all) on the paragraph's selected version;
        how many were dismissed."""
        selected = (
            select(TranslationRow.pk)
            .join(ParagraphRow, ParagraphRow.pk == TranslationRow.paragraph_pk)
            .where(
                ParagraphRow.book_id == book_id,
                ParagraphRow.id == paragraph_id,
                TranslationRow.selected,
            )
        )
        query = update(QualityFlagRow).where(
            QualityFlagRow.translation_pk.in_(selected), QualityFlagRow.dismissed_at.is_(None)
        )
        if codes:
            query = query.where(QualityFlagRow.code.in_(list(codes)))
        with self.database.transaction() as session:
            result = session.execute(query.values(dismissed_at=utc_now()))
            return cast(CursorResult[Any], result).rowcount
