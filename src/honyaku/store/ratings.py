"""Ratings: a rating job's scores of translation versions (``domain.rating``).

A rating belongs to the version the judge read, so a paragraph is rated while its selected
version is: a version written later is unrated until a job rates it. A version rated again
keeps every rating; the latest counts.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import func, insert, select

from honyaku.domain.rating import RatingItem
from honyaku.errors import NotFoundError
from honyaku.store.chunks import Held, hold
from honyaku.store.database import Database
from honyaku.store.schema import ChapterRow, ParagraphRow, RatingRow, TranslationRow, table_of


@dataclass(frozen=True, slots=True)
class RatedParagraph:
    chapter_number: int
    paragraph_id: str
    position: int
    """In its chapter, from 1, empty paragraphs counted."""
    text: str
    translation: str
    """The selected version, the one rated."""
    score: int
    issues: tuple[str, ...]
    comment: str
    model: str
    """The judge."""


class Ratings:
    def __init__(self, database: Database) -> None:
        self.database = database

    def add(
        self,
        book_id: str,
        ratings: Sequence[RatingItem],
        *,
        job_id: str,
        model: str,
        claim: Held | None = None,
    ) -> None:
        """Rate each paragraph's selected version, all in one transaction; made under
        ``claim``, only while that claim stands."""
        ids = [item.paragraph_id for item in ratings]
        with self.database.transaction() as session:
            if claim is not None:
                hold(session, claim)
            versions = dict(
                session.execute(
                    select(ParagraphRow.id, TranslationRow.pk)
                    .join(TranslationRow, TranslationRow.paragraph_pk == ParagraphRow.pk)
                    .where(
                        ParagraphRow.book_id == book_id,
                        ParagraphRow.id.in_(ids),
                        TranslationRow.selected,
                    )
                ).all()
            )
            if missing := sorted(set(ids) - set(versions)):
                raise NotFoundError(
                    "no translation to rate for paragraph(s) {ids} of book {book_id}",
                    ids=", ".join(missing),
                    book_id=book_id,
                )
            rows = [
                {
                    "translation_pk": versions[item.paragraph_id],
                    "job_id": job_id,
                    "model": model,
                    "score": item.score,
                    "issues": list(item.issues),
                    "comment": item.comment,
                }
                for item in ratings
            ]
            session.execute(insert(table_of(RatingRow)), rows)

    def rated(
        self,
        book_id: str,
        *,
        below: int | None = None,
        chapter_numbers: Collection[int] | None = None,
        paragraph_ids: Collection[str] | None = None,
    ) -> list[RatedParagraph]:
        """The paragraphs whose selected version is rated (its latest rating under ``below``,
        if given; of ``chapter_numbers`` or ``paragraph_ids`` only, if given), in book order."""
        latest = select(func.max(RatingRow.pk)).group_by(RatingRow.translation_pk).scalar_subquery()
        query = (
            select(
                ChapterRow.position,
                ParagraphRow.id,
                ParagraphRow.position,
                ParagraphRow.text,
                TranslationRow.text,
                RatingRow.score,
                RatingRow.issues,
                RatingRow.comment,
                RatingRow.model,
            )
            .join(TranslationRow, TranslationRow.pk == RatingRow.translation_pk)
            .join(ParagraphRow, ParagraphRow.pk == TranslationRow.paragraph_pk)
            .join(ChapterRow, ChapterRow.pk == ParagraphRow.chapter_pk)
            .where(
                ParagraphRow.book_id == book_id, TranslationRow.selected, RatingRow.pk.in_(latest)
            )
            .order_by(ChapterRow.position, ParagraphRow.position)
        )
        if below is not None:
            query = query.where(RatingRow.score < below)
        if chapter_numbers is not None:
            query = query.where(ChapterRow.position.in_([n - 1 for n in chapter_numbers]))
        if paragraph_ids is not None:
            query = query.where(ParagraphRow.id.in_(list(paragraph_ids)))
        with self.database.transaction() as session:
            return [_rated(*row) for row in session.execute(query)]


def _rated(
    chapter: int,
    paragraph_id: str,
    position: int,
    text: str,
    translation: str,
    score: int,
    issues: list[str],
    comment: str,
    model: str,
) -> RatedParagraph:
    """A row of ``Ratings.rated``'s query, positions from 1."""
    return RatedParagraph(
        chapter + 1,
        paragraph_id,
        position + 1,
        text,
        translation,
        score,
        tuple(issues),
        comment,
        model,
    )
