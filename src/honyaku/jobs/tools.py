"""The tools a translation, polish or proofreading model works with, and the context they
work on.

Their docstrings are what the model reads about them. A tool checks the call with the chunk's
workflow (pure rules, in ``domain``), writes through the library, then tells the workflow
what was accepted.

A batch's texts keep their paragraphs' inline-markup placeholders as the work lines show them
(``domain.placeholders``): they are checked with the batch, and what is saved is each text
clean, its marks beside it. A conversation on a part's last attempt may keep a text whose
placeholders do not match, without its markup and flagged (``drop_markup_allowed``).

A batch saved without a warning is sent back in the conversation without its texts
(``saved_text_left_out``): a careful model that submits a few paragraphs a reply would
otherwise pay for every translation again on each later turn. The shortened call names the
paragraphs it saved; ``get_paragraph_info`` reads their text back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field

from honyaku.agent.loop import Shortening
from honyaku.agent.registry import Result, Tool, ToolContext, tool
from honyaku.domain.batch import MAX_BATCH_ITEMS, BatchItem, BatchTexts, read_batch
from honyaku.domain.book import Book, TranslationKind
from honyaku.domain.chunking import Chunk, marked_lines
from honyaku.domain.placeholders import MarkedText, markup_lost, markup_refusals
from honyaku.domain.quality import QualityWarning
from honyaku.domain.workflow import ChunkWorkflow, JobKind, TaskStatus
from honyaku.errors import ToolError
from honyaku.jobs.batch_quality import batch_warnings, warnings_result
from honyaku.jobs.events import Where
from honyaku.jobs.glossary_prompts import chunk_forms
from honyaku.jobs.records import JobRecords
from honyaku.llm.messages import ToolCall
from honyaku.store.chunks import Held
from honyaku.store.glossary import BookGlossary
from honyaku.store.library import Library, LocatedParagraph

MAX_CONTEXT_PARAGRAPHS = 20

VERSION_KINDS = {
    JobKind.TRANSLATION: TranslationKind.TRANSLATION,
    JobKind.POLISH: TranslationKind.POLISH,
    JobKind.PROOFREADING: TranslationKind.PROOFREADING,
}


@dataclass
class ChunkContext(ToolContext):
    """What the tools of one chunk's conversation work on."""

    records: JobRecords
    """The run's one door to the database, which every write of a tool goes through."""
    book: Book
    job_id: str
    model: str
    chunk: Chunk
    workflow: ChunkWorkflow
    glossary: BookGlossary | None = None
    """The job's view of the book's glossary, shared by its chunks; made when first needed."""
    claim: Held | None = None
    """The chunk's claim (those of the chunks sharing its conversation), which every write of
    its tools shows (``store.chunks``)."""
    drop_markup_allowed: bool = False
    """A text whose placeholders do not match its line's is kept without the paragraph's
    markup and flagged ``MARKUP_LOST``, not refused: a part's last attempt, where the book's
    ``lost_markup`` setting keeps the text."""
    markup_refused: set[str] = field(default_factory=set)
    """The paragraphs whose last text was refused for its placeholders, and are not saved
    yet: a part that fails with some fails for its markup (``FailureClass.MARKUP``)."""
    _lines: dict[str, MarkedText] | None = field(default=None, repr=False)

    @property
    def library(self) -> Library:
        """The book's paragraphs, for the tools that read around one."""
        return self.records.library

    @property
    def where(self) -> Where:
        return Where(self.chunk.chapter.order, self.chunk.number, self.chunk.chapter.id)

    @property
    def markup(self) -> dict[str, MarkedText]:
        """The chunk's work lines with their placeholders, by paragraph id."""
        if self._lines is None:
            kind, ruby = self.workflow.kind, self.book.settings.ruby
            self._lines = marked_lines(self.chunk.all_paragraphs, kind, ruby)
        return self._lines

    def book_glossary(self) -> BookGlossary:
        if self.glossary is None:
            self.glossary = self.records.book_glossary(self.book.id)
        return self.glossary


ParagraphId = str
Count = Annotated[int, Field(ge=1, le=MAX_CONTEXT_PARAGRAPHS)]
_MOVES_TO = [s.value for s in TaskStatus if s is not TaskStatus.PLANNING]
"""Where a task may move: it starts in planning and never goes back there."""


@tool()
def update_task_status(
    context: ChunkContext,
    status: Annotated[str, Field(json_schema_extra={"enum": _MOVES_TO})],
) -> dict[str, Any]:
    """Move the task to the status its steps name."""
    moved = context.workflow.move(status)
    if context.claim is not None:
        context.records.move(context.claim, moved["status"])
    return moved


@tool()
def update_chapter_title(
    context: ChunkContext,
    chapter_id: Annotated[str, Field(description="From the chunk's chapter_id line.")],
    translated_title: str,
) -> dict[str, Any]:
    """Submit the chapter title's translation."""
    title = context.workflow.check_title(chapter_id, translated_title)
    context.records.save_title(context.book.id, chapter_id, title, context.claim)
    return context.workflow.accept_title(chapter_id)


@tool()
def add_translation_batch(
    context: ChunkContext,
    paragraphs: Annotated[
        list[BatchItem], Field(json_schema_extra={"minItems": 1, "maxItems": MAX_BATCH_ITEMS})
    ],
) -> dict[str, Any]:
    """Submit paragraphs' new text. Checked whole: one wrong item saves nothing."""
    # A text a paragraph already holds is not saved again (``Library.add_translations``): the
    # workflow tells the model which of its paragraphs were already saved.
    workflow = context.workflow
    read = _checked(context, paragraphs)
    texts = _new_texts(workflow, read)
    warnings = _warnings(context, texts)
    for pid in read.lost & set(texts):
        warnings.setdefault(pid, []).append(markup_lost(pid))
    stored: set[str] = set()
    if texts:
        stored = context.records.save_versions(
            context.book.id,
            texts,
            kind=VERSION_KINDS[workflow.kind],
            model=context.model,
            flags=warnings,
            claim=context.claim,
            marks=read.marks,
        )
    context.markup_refused -= set(read.texts)
    lost = {"markup_lost": sorted(read.lost)} if read.lost else {}
    return {
        **workflow.accept((item.paragraph_id for item in paragraphs), stored=stored),
        **warnings_result({pid: w for pid, w in warnings.items() if pid not in read.lost}),
        **lost,
    }


def _checked(context: ChunkContext, paragraphs: list[BatchItem]) -> BatchTexts:
    """The batch checked whole (ids, then placeholders, unless the part's last attempt may
    drop markup), read into texts and marks; a paragraph refused for its placeholders is
    remembered, so a conversation that ends on it fails for its markup."""
    checked = {} if context.drop_markup_allowed else context.markup
    try:
        context.workflow.check_batch(paragraphs, _in_book(context, paragraphs), markup=checked)
    except ToolError as refused:
        context.markup_refused |= markup_refusals(refused)
        raise
    return read_batch(paragraphs, context.workflow.assigned, context.markup)


def _warnings(context: ChunkContext, texts: Mapping[str, str]) -> dict[str, list[QualityWarning]]:
    """What the quality checks say of the new texts: the glossary's terms and the agreed
    forms of address between the chunk's characters."""
    glossary = context.book_glossary()
    matcher = glossary.matcher()
    forms = [shown.form for shown in chunk_forms(context.chunk, glossary.cast(), matcher)]
    return batch_warnings(context.book, context.workflow.assigned, texts, matcher, forms)


def saved_text_left_out(context: ChunkContext) -> Shortening:
    """What a batch saved without warnings is sent back as: which paragraphs it saved, in
    runs of the chunk's order, not their texts."""
    order = {pid: n for n, pid in enumerate(context.workflow.assigned)}

    def shorten(call: ToolCall, result: Result) -> Mapping[str, Any] | None:
        if call.name != add_translation_batch.name or not result.get("success"):
            return None
        if "warnings" in result:
            return None
        items = call.arguments.get("paragraphs") or ()
        ids = [item["paragraph_id"] for item in items if isinstance(item, dict)]
        runs = _id_runs(ids, order)
        return {"paragraphs": f"saved: {runs} ({len(ids)} paragraph(s); text left out here)"}

    return shorten


def _id_runs(ids: Sequence[str], order: Mapping[str, int]) -> str:
    """``ids`` as runs of consecutive paragraphs: ``1a2b3c4d to 9f8e7d6c, 5a6b7c8d``."""
    ranked = sorted(ids, key=lambda pid: order.get(pid, len(order)))
    runs: list[list[str]] = []
    for pid in ranked:
        if runs and order.get(pid) is not None and order.get(runs[-1][-1]) == order[pid] - 1:
            runs[-1].append(pid)
        else:
            runs.append([pid])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]} to {run[-1]}" for run in runs)


def _in_book(context: ChunkContext, items: list[BatchItem]) -> set[str]:
    """The unassigned ids the batch names that are paragraphs of the book."""
    unassigned = {i.paragraph_id for i in items} - set(context.workflow.assigned)
    return set(context.library.paragraphs(context.book.id, unassigned)) if unassigned else set()


def _new_texts(workflow: ChunkWorkflow, read: BatchTexts) -> dict[str, str]:
    """Texts worth a new version: polishing a paragraph into itself changes nothing."""
    if workflow.kind is JobKind.TRANSLATION:
        return read.texts
    return {
        pid: text
        for pid, text in read.texts.items()
        if (text, read.marks.get(pid, ()))
        != (workflow.assigned[pid].translation, workflow.assigned[pid].translation_marks)
    }


@tool()
def get_previous_paragraphs(
    context: ChunkContext, paragraph_id: ParagraphId, count: Count = 3
) -> dict[str, Any]:
    """Context: the paragraphs before one, across chunks and chapters."""
    return _neighbours(context, paragraph_id, "before", count)


@tool()
def get_next_paragraphs(
    context: ChunkContext, paragraph_id: ParagraphId, count: Count = 3
) -> dict[str, Any]:
    """Context: the paragraphs after one, across chunks and chapters."""
    return _neighbours(context, paragraph_id, "after", count)


@tool()
def get_paragraph_position(
    context: ChunkContext,
    paragraph_id: ParagraphId,
    include_previous: bool = False,
    include_next: bool = False,
    count: Count = 3,
) -> dict[str, Any]:
    """Context: a paragraph's chapter and index, optionally with its neighbours."""
    located = _anchor(context, paragraph_id)
    result: dict[str, Any] = {
        **_context(located),
        "in_this_task": paragraph_id in context.workflow.assigned,
    }
    library, book_id = context.library, context.book.id
    if include_previous:
        before = library.neighbours(book_id, paragraph_id, "before", count)
        result["previous"] = [_context(p) for p in before]
    if include_next:
        after = library.neighbours(book_id, paragraph_id, "after", count)
        result["next"] = [_context(p) for p in after]
    return result


@tool()
def get_paragraph_info(context: ChunkContext, paragraph_id: ParagraphId) -> dict[str, Any]:
    """Context: a paragraph's text, translation, chapter and index."""
    located = _anchor(context, paragraph_id)
    versions = context.library.versions(context.book.id, paragraph_id)
    return {
        **_context(located),
        "in_this_task": paragraph_id in context.workflow.assigned,
        "versions": len(versions),
    }


def _neighbours(
    context: ChunkContext, paragraph_id: str, direction: Literal["before", "after"], count: int
) -> dict[str, Any]:
    _anchor(context, paragraph_id)
    found = context.library.neighbours(context.book.id, paragraph_id, direction, count)
    return {"paragraphs": [_context(p) for p in found]}


def _anchor(context: ChunkContext, paragraph_id: str) -> LocatedParagraph:
    located = context.library.locate(context.book.id, paragraph_id)
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
