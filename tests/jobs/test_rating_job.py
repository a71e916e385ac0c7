"""A rating job: a judge model reads each paragraph's source and its selected translation and
scores it through ``rate_paragraphs``, checked like a batch: assigned ids only, each once, a
score from 1 to 5, taken whole or not at all. Each rating is kept on the version it rated, and
the low ones are listed for the translator to read first."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from honyaku.agent.broker import Broker
from honyaku.agent.registry import ToolRegistry
from honyaku.domain import JobKind
from honyaku.domain.book import TranslationKind
from honyaku.domain.chunking import split_into_chunks
from honyaku.domain.workflow import ChunkWorkflow, TaskStatus
from honyaku.jobs.rating_tools import RATING_TOOLS
from honyaku.jobs.records import JobRecords
from honyaku.jobs.tools import ChunkContext
from honyaku.llm.demo.translator import WorkLine
from honyaku.llm.messages import ToolCall
from honyaku.store import Library, Stores
from honyaku.testing import FakeLLMServer, ScriptedTranslator

from .conftest import RunJob

# What a rating job writes, on both databases.
pytestmark = pytest.mark.backends("sqlite", "postgresql")


def strict_judge(line: WorkLine) -> dict[str, Any]:
    """Every third paragraph (by its position in the chapter) gets a 2 for a wrong pronoun."""
    if line.index % 3 == 0:
        return {
            "paragraph_id": line.paragraph_id,
            "score": 2,
            "issues": ["pronoun", "style"],
            "comment": "她 should be 他\nhere",
        }
    return {"paragraph_id": line.paragraph_id, "score": 5, "issues": [], "comment": ""}


def test_each_paragraph_is_rated_on_its_selected_version_and_the_low_ones_are_listed(
    library: Library, book_id: str, run_job: RunJob
) -> None:
    # Given a book translated in full
    with FakeLLMServer() as server:
        run_job(server, book_id)
    stores = Stores.over(library.database)

    # When a judge rates it
    with FakeLLMServer(translator=ScriptedTranslator(rate=strict_judge)) as judge:
        outcome, _ = run_job(judge, book_id, JobKind.RATING)

    # Then every paragraph holds one rating, and "below 3" lists exactly those scored 2
    rated = stores.ratings.rated(book_id)
    low = stores.ratings.rated(book_id, below=3)
    book = library.whole_book(book_id)
    expected = [p.id for c in book.chapters for p in c.work_paragraphs if p.index % 3 == 0]
    assert outcome.ok
    assert outcome.paragraphs_done == outcome.paragraphs_total == 30
    assert len(rated) == 30
    assert [r.paragraph_id for r in low] == expected
    assert {(r.score, r.issues, r.comment) for r in low} == {
        (2, ("pronoun", "style"), "她 should be 他 here")
    }
    assert all(len(library.versions(book_id, r.paragraph_id)) == 1 for r in rated)


def translated_and_rated(run_job: RunJob, book_id: str) -> None:
    """The book translated in full, then rated by ``strict_judge``."""
    with FakeLLMServer() as server:
        run_job(server, book_id)
    with FakeLLMServer(translator=ScriptedTranslator(rate=strict_judge)) as judge:
        run_job(judge, book_id, JobKind.RATING)


def test_a_version_written_after_its_rating_is_not_rated(
    library: Library, book_id: str, run_job: RunJob
) -> None:
    translated_and_rated(run_job, book_id)
    stores = Stores.over(library.database)
    [first, *_] = stores.ratings.rated(book_id, below=3)

    library.add_manual_version(book_id, first.paragraph_id, "他在门下等雨停。")

    assert first.paragraph_id not in {r.paragraph_id for r in stores.ratings.rated(book_id)}


def test_a_polish_of_the_low_paragraphs_reads_the_judges_comments(
    library: Library, book_id: str, run_job: RunJob
) -> None:
    # Given a book translated and rated: every third paragraph 2 for a wrong pronoun
    translated_and_rated(run_job, book_id)
    low = Stores.over(library.database).ratings.rated(book_id, below=3)

    # When the low paragraphs are polished
    with FakeLLMServer() as polisher:
        ids = [r.paragraph_id for r in low]
        outcome, _ = run_job(polisher, book_id, JobKind.POLISH, paragraphs=ids)
        tasks = [polisher.requests[0]["messages"][1]["content"]]

    # Then the model read each one's score, problems and comment under its translation
    assert outcome.ok
    [task] = tasks
    assert 'A "! judge:" line' in task
    assert task.count("! judge: 2/5 pronoun, style: 她 should be 他 here") == task.count("[ID: ")
    # And a translation job reads no judge
    with FakeLLMServer() as translator:
        run_job(translator, book_id, retranslate=True, paragraphs=ids[:1])
        assert "judge" not in translator.requests[0]["messages"][1]["content"]


def rating_tools(library: Library, book_id: str) -> tuple[ToolRegistry, ChunkContext, list[str]]:
    """The rating tools over the first chunk of the book's first chapter, translated, in
    ``working``; and the chunk's ids."""
    for chapter in library.whole_book(book_id).chapters:
        library.add_translations(
            book_id,
            {p.id: f"译{p.index}" for p in chapter.work_paragraphs},
            kind=TranslationKind.TRANSLATION,
        )
    book = library.whole_book(book_id)
    chapter = book.chapters[0]
    [chunk, *_] = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=60)
    workflow = ChunkWorkflow(
        JobKind.RATING,
        {p.id: p for p in chunk.paragraphs},
        (chapter.id,),
        status=TaskStatus.WORKING,
    )
    stores = Stores.over(library.database)
    context = ChunkContext(
        Broker(), "a test", JobRecords(stores), book, "job00000", "judge", chunk, workflow
    )
    return ToolRegistry(RATING_TOOLS, ChunkContext), context, list(workflow.assigned)


def call(registry: ToolRegistry, context: ChunkContext, name: str, **arguments: Any) -> dict:
    return asyncio.run(registry.run(ToolCall("c", name, arguments), context))


def test_unassigned_or_repeated_ids_and_scores_off_the_scale_save_nothing(
    library: Library, book_id: str
) -> None:
    registry, context, ids = rating_tools(library, book_id)
    other = library.whole_book(book_id).chapters[1].work_paragraphs[0].id
    good = {"paragraph_id": ids[0], "score": 4, "issues": ["style"]}

    off_scale = call(
        registry, context, "rate_paragraphs", ratings=[{"paragraph_id": ids[0], "score": 7}]
    )
    unknown_issue = call(
        registry,
        context,
        "rate_paragraphs",
        ratings=[{"paragraph_id": ids[0], "score": 3, "issues": ["vibes"]}],
    )
    wrong_ids = call(
        registry,
        context,
        "rate_paragraphs",
        ratings=[good, good, {"paragraph_id": other, "score": 5}],
    )
    ended_early = call(registry, context, "update_task_status", status="end")

    assert not off_scale["success"]
    assert not unknown_issue["success"]
    assert {p["error_code"] for p in wrong_ids["problems"]} == {
        "DUPLICATE_PARAGRAPH_ID",
        "PARAGRAPH_NOT_ASSIGNED",
    }
    assert {p["paragraph_id"] for p in wrong_ids["problems"]} == {ids[0], other}
    assert ended_early["error_code"] == "WORK_INCOMPLETE"
    assert context.records.stores.ratings.rated(book_id) == []


def test_once_every_paragraph_is_rated_the_task_ends(library: Library, book_id: str) -> None:
    registry, context, ids = rating_tools(library, book_id)

    rated = call(
        registry,
        context,
        "rate_paragraphs",
        ratings=[{"paragraph_id": pid, "score": 5} for pid in ids],
    )
    ended = call(registry, context, "update_task_status", status="end")

    assert (rated["accepted"], rated["remaining"], rated["next"]) == (
        len(ids),
        0,
        'update_task_status("end")',
    )
    assert ended["status"] == "end"
    assert [r.paragraph_id for r in context.records.stores.ratings.rated(book_id)] == ids
