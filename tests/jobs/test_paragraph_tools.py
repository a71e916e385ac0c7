"""Context tools cross chunk and chapter boundaries; paragraph_index counts empties."""

from __future__ import annotations

import pytest

from honyaku.agent.broker import Broker
from honyaku.agent.registry import ToolRegistry
from honyaku.domain import ChunkWorkflow, JobKind, TaskStatus, split_into_chunks
from honyaku.jobs.records import JobRecords
from honyaku.jobs.tools import TASK_TOOLS, ChunkContext
from honyaku.llm.messages import ToolCall
from honyaku.store import Stores

REGISTRY = ToolRegistry(TASK_TOOLS, ChunkContext)


@pytest.fixture
def chunks(library, book_id):
    """The book's first chapter in chunks of two work paragraphs each."""
    book = library.whole_book(book_id)
    chapter = book.chapters[0]
    return book, split_into_chunks(chapter, chapter.work_paragraphs, max_chars=40)


def task_for(library, book, chunk, status=TaskStatus.PLANNING) -> ChunkContext:
    assigned = {p.id: p for p in chunk.paragraphs}
    workflow = ChunkWorkflow(
        JobKind.TRANSLATION,
        assigned,
        (chunk.chapter.id,),
        tuple(c.id for c in chunk.titles),
        status=status,
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
    )


async def call(task: ChunkContext, name: str, **arguments) -> dict:
    return await REGISTRY.run(ToolCall("call_1", name, arguments), task)


@pytest.mark.anyio
async def test_previous_paragraphs_at_a_chunk_start_come_from_the_chunk_before(library, chunks):
    book, parts = chunks
    second = parts[1]

    result = await call(
        task_for(library, book, second),
        "get_previous_paragraphs",
        paragraph_id=second.paragraphs[0].id,
        count=2,
    )

    assert [p["paragraph_id"] for p in result["paragraphs"]] == list(parts[0].paragraph_ids)


@pytest.mark.anyio
async def test_next_paragraphs_at_a_chapter_end_come_from_the_next_chapter(library, chunks):
    book, parts = chunks
    last = parts[-1].paragraphs[-1]
    second_chapter = library.whole_book(book.id).chapters[1]

    result = await call(
        task_for(library, book, parts[-1]), "get_next_paragraphs", paragraph_id=last.id, count=2
    )

    assert [p["paragraph_id"] for p in result["paragraphs"]] == [
        p.id for p in second_chapter.work_paragraphs[:2]
    ]
    assert {p["chapter_id"] for p in result["paragraphs"]} == {second_chapter.id}


@pytest.mark.anyio
async def test_paragraph_index_is_the_chapter_position_counting_empty_paragraphs(library, chunks):
    book, parts = chunks
    after_empty = book.chapters[0].paragraphs[5]
    assert book.chapters[0].paragraphs[4].text == ""

    info = await call(
        task_for(library, book, parts[0]), "get_paragraph_info", paragraph_id=after_empty.id
    )
    around = await call(
        task_for(library, book, parts[0]),
        "get_next_paragraphs",
        paragraph_id=book.chapters[0].paragraphs[3].id,
        count=2,
    )

    assert info["paragraph_index"] == 5
    assert [p["paragraph_index"] for p in around["paragraphs"]] == [5, 6]


@pytest.mark.anyio
async def test_position_context_includes_paragraphs_outside_the_chunk(library, chunks):
    book, parts = chunks
    first_of_second = parts[1].paragraphs[0]

    result = await call(
        task_for(library, book, parts[1]),
        "get_paragraph_position",
        paragraph_id=first_of_second.id,
        include_previous=True,
        include_next=True,
        count=3,
    )

    assert result["in_this_task"] is True
    assert result["previous"][-1]["paragraph_id"] == parts[0].paragraphs[-1].id
    assert any(p["paragraph_id"] in parts[2].paragraph_ids for p in result["next"])


@pytest.mark.anyio
async def test_query_then_submit_by_paragraph_id_both_succeed_and_translations_show_in_context(
    library, chunks
):
    book, parts = chunks
    task = task_for(library, book, parts[1], status=TaskStatus.WORKING)
    target = parts[1].paragraphs[0]

    context = await call(task, "get_previous_paragraphs", paragraph_id=target.id)
    submitted = await call(
        task,
        "add_translation_batch",
        paragraphs=[
            {
                "paragraph_id": target.id,
                "original_text_prefix": target.text[:4],
                "translated_text": "他走了。",
            }
        ],
    )
    later = await call(task, "get_paragraph_info", paragraph_id=target.id)

    assert context["success"]
    assert submitted["success"]
    assert submitted["remaining_ids"] == list(parts[1].paragraph_ids[1:])
    assert later["translation"] == "他走了。"


@pytest.mark.anyio
async def test_context_paragraphs_are_not_work_items(library, chunks):
    book, parts = chunks
    task = task_for(library, book, parts[1], status=TaskStatus.WORKING)
    outside = parts[0].paragraphs[0]

    result = await call(
        task,
        "add_translation_batch",
        paragraphs=[{"paragraph_id": outside.id, "translated_text": "x"}],
    )

    assert result["error_code"] == "PARAGRAPH_NOT_ASSIGNED"
    assert library.whole_book(book.id).chapters[0].paragraphs[0].translation is None


@pytest.mark.anyio
async def test_submitting_outside_working_says_how_to_get_there(library, chunks):
    book, parts = chunks
    task = task_for(library, book, parts[0])
    pid = parts[0].paragraphs[0].id

    result = await call(
        task, "add_translation_batch", paragraphs=[{"paragraph_id": pid, "translated_text": "x"}]
    )

    assert result["error_code"] == "WRONG_STATUS"
    assert 'update_task_status("working")' in result["error"]


@pytest.mark.anyio
async def test_an_unknown_status_names_the_current_one_and_the_allowed_moves(library, chunks):
    book, parts = chunks

    result = await call(task_for(library, book, parts[0]), "update_task_status", status="done")

    assert result["error_code"] == "INVALID_STATUS"
    assert "current status is planning; allowed next: working" in result["error"]


@pytest.mark.anyio
async def test_a_title_for_another_chapter_is_refused(library, chunks):
    book, parts = chunks
    task = task_for(library, book, parts[0], status=TaskStatus.WORKING)

    result = await call(
        task, "update_chapter_title", chapter_id=book.chapters[1].id, translated_title="第二章"
    )

    assert result["error_code"] == "CHAPTER_NOT_ASSIGNED"
    assert book.chapters[0].id in result["error"]
