"""Search across a book and replace in its translations, from the chapter page's tools: the
API over ``honyaku.search``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field, StrictBool

from honyaku.application import Replacement, SearchHit
from honyaku.domain.text_search import MAX_PATTERN_CHARS, TextQuery
from honyaku.web.schemas import CHAPTERS_PATTERN, ERROR_RESPONSES, ChaptersQuery
from honyaku.web.workbench import App

router = APIRouter(prefix="/api", responses=ERROR_RESPONSES)


class HitOut(BaseModel):
    chapter_number: int
    paragraph_id: str
    index: int = Field(description="Position in the chapter, empty paragraphs counted.")
    text: str
    translation: str | None
    source_spans: list[tuple[int, int]]
    translation_spans: list[tuple[int, int]]

    @classmethod
    def of(cls, hit: SearchHit) -> HitOut:
        paragraph = hit.located.paragraph
        return cls(
            chapter_number=hit.located.chapter_number,
            paragraph_id=paragraph.id,
            index=paragraph.index,
            text=paragraph.text,
            translation=paragraph.translation,
            source_spans=hit.source_spans,
            translation_spans=hit.translation_spans,
        )


class SearchOut(BaseModel):
    total: int = Field(description="Paragraphs that match in all.")
    hits: list[HitOut] = Field(description="The first of them, in book order.")


class ReplaceIn(BaseModel):
    q: str = Field(min_length=1, max_length=MAX_PATTERN_CHARS)
    replacement: str = Field(max_length=10_000)
    regex: StrictBool = False
    case_sensitive: StrictBool = False
    chapters: str | None = Field(
        default=None, pattern=CHAPTERS_PATTERN, description='e.g. "1-3,7"; null for all.'
    )
    paragraphs: list[str] | None = Field(
        default=None, description="Only in these paragraphs (those chosen in a preview)."
    )
    apply: StrictBool = Field(default=False, description="False: a preview, nothing written.")


class ReplacementOut(BaseModel):
    chapter_number: int
    paragraph_id: str
    index: int
    before: str
    after: str

    @classmethod
    def of(cls, replacement: Replacement) -> ReplacementOut:
        paragraph = replacement.located.paragraph
        return cls(
            chapter_number=replacement.located.chapter_number,
            paragraph_id=paragraph.id,
            index=paragraph.index,
            before=paragraph.translation or "",
            after=replacement.after,
        )


@router.get("/books/{book_id}/search")
async def search_book(
    honyaku: App,
    book_id: str,
    q: Annotated[str, Query(min_length=1, max_length=MAX_PATTERN_CHARS)],
    regex: bool = False,
    case_sensitive: bool = False,
    source: bool = True,
    translation: bool = True,
    chapters: ChaptersQuery = None,
) -> SearchOut:
    """Paragraphs whose source or selected translation holds ``q`` (plain or a regular
    expression)."""
    found = await honyaku.search.find(
        book_id,
        TextQuery(q, regex, case_sensitive),
        source=source,
        translation=translation,
        chapters=await honyaku.books.chapter_numbers(book_id, chapters),
    )
    return SearchOut(total=found.total, hits=[HitOut.of(hit) for hit in found.hits])


@router.post("/books/{book_id}/replace")
async def replace_in_translations(
    honyaku: App, book_id: str, asked: ReplaceIn
) -> list[ReplacementOut]:
    """What replacing gives in the selected translations; with ``apply``, each changed
    paragraph gets it as a new version (selecting the previous one undoes it)."""
    found = await honyaku.search.replace(
        book_id,
        TextQuery(asked.q, asked.regex, asked.case_sensitive),
        asked.replacement,
        paragraphs=set(asked.paragraphs) if asked.paragraphs is not None else None,
        chapters=await honyaku.books.chapter_numbers(book_id, asked.chapters),
        apply=asked.apply,
    )
    return [ReplacementOut.of(r) for r in found]
