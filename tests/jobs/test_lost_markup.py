"""A model that cannot keep a paragraph's markup: its part fails for it and goes through the
rounds like any failure; on a part's last attempt, where the book keeps the text, the text is
kept without the markup and flagged, never dropped unseen."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.agent.broker import Broker
from honyaku.agent.loop import LoopLimits
from honyaku.agent.registry import ToolRegistry
from honyaku.domain import BookDraft, ChapterDraft, ChunkWorkflow, JobKind, TaskStatus
from honyaku.domain.chunking import split_into_chunks
from honyaku.domain.failures import FailureClass
from honyaku.domain.placeholders import MARKUP_LOST, MARKUP_MISMATCH
from honyaku.domain.sources import InlineMark, SourceLocation
from honyaku.jobs.records import JobRecords
from honyaku.jobs.tools import TASK_TOOLS, ChunkContext
from honyaku.llm.messages import ToolCall
from honyaku.store import Library, Stores
from honyaku.testing import Mistake

from ..cli.conftest import honyaku

REGISTRY = ToolRegistry(TASK_TOOLS, ChunkContext)
MARKED = "Run lb config as root, then see The Basics."
PLAIN = "Nothing marked here."


def _manual() -> BookDraft:
    """A manual's chapter: a paragraph with code and a link, and one without markup."""
    marks = (
        InlineMark("tt", 4, 13),
        InlineMark("a", 32, 42, (("href", "basics.xhtml#b"),)),
    )
    return BookDraft(
        "Manual",
        (
            ChapterDraft(
                "Start",
                (MARKED, PLAIN),
                (SourceLocation("a.xhtml", "/1/0#0", marks), None),
            ),
        ),
    )


@pytest.fixture
def manual(library: Library) -> str:
    return library.add_book(_manual(), source_lang="en", target_lang="zh-CN")


def test_a_part_whose_markup_the_model_cannot_keep_fails_for_it_and_is_left_with_that_reason(
    fake_model, run_job, library, manual
):
    fake_model.translator.mistakes = {Mistake.LOSES_MARKUP}

    outcome, _ = run_job(fake_model, manual, limits=LoopLimits(max_stalled=2))

    [marked, plain] = library.whole_book(manual).chapters[0].paragraphs
    assert marked.translation is None
    assert plain.translation == f"〈译〉{PLAIN}"
    [left] = [item for item in outcome.left if item.position is not None]
    assert left.id == marked.id
    assert left.failure is not None
    assert left.failure.kind is FailureClass.MARKUP
    assert left.reason.startswith("the model could not keep the paragraph's markup")


def _context(library: Library, book_id: str, *, drop_markup_allowed: bool) -> ChunkContext:
    book = library.whole_book(book_id)
    chapter = book.chapters[0]
    [chunk] = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=4000)
    workflow = ChunkWorkflow(
        JobKind.TRANSLATION,
        {p.id: p for p in chunk.paragraphs},
        (chapter.id,),
        status=TaskStatus.WORKING,
    )
    return ChunkContext(
        Broker(),
        "a test",
        JobRecords(Stores.over(library.database)),
        book,
        "job00000",
        "fake",
        chunk,
        workflow,
        drop_markup_allowed=drop_markup_allowed,
    )


async def _submit(context: ChunkContext, text: str) -> dict:
    pid = context.chunk.paragraphs[0].id
    item = {"paragraph_id": pid, "translated_text": text}
    return await REGISTRY.run(
        ToolCall("call_1", "add_translation_batch", {"paragraphs": [item]}), context
    )


def test_on_a_last_attempt_a_text_without_its_placeholders_is_kept_clean_and_flagged(
    library, manual
):
    refused = _context(library, manual, drop_markup_allowed=False)
    allowed = _context(library, manual, drop_markup_allowed=True)
    pid = refused.chunk.paragraphs[0].id

    first = asyncio.run(_submit(refused, "以 root 运行 lb config，然后参见⟦9⟧基础。"))
    last = asyncio.run(_submit(allowed, "以 root 运行 lb config，然后参见⟦9⟧基础。"))

    assert (first["success"], first["error_code"]) == (False, MARKUP_MISMATCH)
    assert refused.markup_refused == {pid}
    assert last["success"] is True
    assert last["markup_lost"] == [pid]
    [version] = library.versions(manual, pid)
    assert (version.text, version.marks) == ("以 root 运行 lb config，然后参见基础。", ())
    checked = honyaku("check", manual).stdout
    assert f"{MARKUP_LOST}: markup lost: the model could not keep" in checked
