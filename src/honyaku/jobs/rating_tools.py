"""The tools of a rating job: its model (the judge) reads a chunk's paragraphs with their
selected translations and scores each (``domain.rating``). It writes no version.

A call is checked whole with the chunk's workflow, then every rating is written in one
transaction under the chunk's claim; the workflow counts a rated paragraph as accepted, so the
task may end only once each is rated.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from honyaku.agent.registry import Tool, tool
from honyaku.domain.batch import MAX_BATCH_ITEMS
from honyaku.domain.rating import RatingItem
from honyaku.jobs.glossary_tools import get_glossary
from honyaku.jobs.tools import (
    ChunkContext,
    get_next_paragraphs,
    get_paragraph_info,
    get_previous_paragraphs,
    update_task_status,
)


@tool()
def rate_paragraphs(
    context: ChunkContext,
    ratings: Annotated[
        list[RatingItem], Field(json_schema_extra={"minItems": 1, "maxItems": MAX_BATCH_ITEMS})
    ],
) -> dict[str, Any]:
    """Score paragraphs' translations against their source. Checked whole: one wrong item
    saves nothing."""
    workflow = context.workflow
    workflow.check_ratings(ratings)
    context.records.save_ratings(context.book.id, ratings, model=context.model, claim=context.claim)
    return workflow.accept(item.paragraph_id for item in ratings)


RATING_TOOLS: tuple[Tool, ...] = (
    update_task_status,
    rate_paragraphs,
    get_glossary,
    get_previous_paragraphs,
    get_next_paragraphs,
    get_paragraph_info,
)
"""A rating job reads and scores: it writes no text."""
