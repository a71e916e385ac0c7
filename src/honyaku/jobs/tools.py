"""The tools a translation, polish or proofreading model works with (seeds 000, 001, 004).

Their docstrings are what the model reads about them.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from honyaku.agent.registry import Tool, tool
from honyaku.domain.batch import MAX_BATCH_ITEMS, BatchItem
from honyaku.domain.workflow import TaskStatus
from honyaku.errors import ToolError
from honyaku.jobs.task import ChunkTask
from honyaku.store.library import LocatedParagraph

MAX_CONTEXT_PARAGRAPHS = 20

ParagraphId = Annotated[
    str, Field(description="The 8-character id from a paragraph's [ID: …] marker.")
]
Count = Annotated[
    int, Field(ge=1, le=MAX_CONTEXT_PARAGRAPHS, description="How many paragraphs to return.")
]


@tool()
def update_task_status(
    task: ChunkTask,
    status: Annotated[
        str,
        Field(
            description="The status to move to.",
            json_schema_extra={"enum": [s.value for s in TaskStatus]},
        ),
    ],
) -> dict[str, Any]:
    """Move this task to the next workflow status. Translation: planning → working → review →
    end (review may go back to working). Polish and proofreading: planning → working → end."""
    return task.move(status)


@tool()
def update_chapter_title(
    task: ChunkTask,
    chapter_id: Annotated[str, Field(description="The chapter_id shown above the chunk.")],
    translated_title: Annotated[
        str, Field(description="The chapter title in the target language.")
    ],
) -> dict[str, Any]:
    """Submit the chapter's title in the target language. Only in status working."""
    return task.set_title(chapter_id, translated_title)


@tool()
def add_translation_batch(
    task: ChunkTask,
    paragraphs: Annotated[
        list[BatchItem],
        Field(
            description="One item per paragraph, keyed by paragraph_id.",
            json_schema_extra={"minItems": 1, "maxItems": MAX_BATCH_ITEMS},
        ),
    ],
) -> dict[str, Any]:
    """Submit the text of many paragraphs at once, keyed by paragraph_id (never index). Only in
    status working. The batch is checked whole: if any item is wrong, nothing is saved and the
    error names each offending paragraph_id."""
    return task.accept_batch(paragraphs)


@tool()
def get_previous_paragraphs(
    task: ChunkTask, paragraph_id: ParagraphId, count: Count = 3
) -> dict[str, Any]:
    """Context: the paragraphs before one, across chunk and chapter boundaries. Read only."""
    _anchor(task, paragraph_id)
    found = task.library.neighbours(task.book.id, paragraph_id, "before", count)
    return {"paragraphs": [_context(p) for p in found]}


@tool()
def get_next_paragraphs(
    task: ChunkTask, paragraph_id: ParagraphId, count: Count = 3
) -> dict[str, Any]:
    """Context: the paragraphs after one, across chunk and chapter boundaries. Read only."""
    _anchor(task, paragraph_id)
    found = task.library.neighbours(task.book.id, paragraph_id, "after", count)
    return {"paragraphs": [_context(p) for p in found]}


@tool()
def get_paragraph_position(
    task: ChunkTask,
    paragraph_id: ParagraphId,
    include_previous: bool = False,
    include_next: bool = False,
    count: Count = 3,
) -> dict[str, Any]:
    """Where a paragraph sits: its chapter and index, optionally with the paragraphs around it
    (across chunk and chapter boundaries)."""
    located = _anchor(task, paragraph_id)
    result: dict[str, Any] = {
        **_context(located),
        "in_this_task": paragraph_id in task.assigned,
    }
    if include_previous:
        before = task.library.neighbours(task.book.id, paragraph_id, "before", count)
        result["previous"] = [_context(p) for p in before]
    if include_next:
        after = task.library.neighbours(task.book.id, paragraph_id, "after", count)
        result["next"] = [_context(p) for p in after]
    return result


@tool()
def get_paragraph_info(task: ChunkTask, paragraph_id: ParagraphId) -> dict[str, Any]:
    """A paragraph's text, current translation, chapter and index."""
    located = _anchor(task, paragraph_id)
    versions = task.library.versions(task.book.id, paragraph_id)
    return {
        **_context(located),
        "in_this_task": paragraph_id in task.assigned,
        "versions": len(versions),
    }


def _anchor(task: ChunkTask, paragraph_id: str) -> LocatedParagraph:
    located = task.library.locate(task.book.id, paragraph_id)
    if located is None:
        raise ToolError("PARAGRAPH_NOT_FOUND", f"no paragraph {paragraph_id} in this book")
    return located


def _context(located: LocatedParagraph) -> dict[str, Any]:
    paragraph = located.paragraph
    return {
        "paragraph_id": paragraph.id,
        "paragraph_index": paragraph.index,
        "chapter_id": located.chapter_id,
        "chapter_number": located.chapter_number,
        "text": paragraph.text,
        "translation": paragraph.translation,
    }


TASK_TOOLS: tuple[Tool, ...] = (
    update_task_status,
    update_chapter_title,
    add_translation_batch,
    get_previous_paragraphs,
    get_next_paragraphs,
    get_paragraph_position,
    get_paragraph_info,
)
