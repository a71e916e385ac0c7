"""A careful model, as real models often are (one call a reply, 3 to 12 paragraphs a batch,
``review`` tried before the title), over real HTTP in both protocols: every paragraph lands
where it belongs, every mistake is refused as with any model, and what it already saved is
not sent back at length on every later turn, while each request still begins with the whole
of the one before (so a provider's cache serves it). Invited to make calls together, it does,
and spends a request a batch and one more."""

from __future__ import annotations

import itertools
import json

import pytest

from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.jobs.prompts import system_prompt
from honyaku.llm.demo import Turn
from honyaku.store import Library
from honyaku.testing import FakeLLMServer, Mistake, ScriptedTranslator, hanzi_translation

from .conftest import RunJob, tool_results

pytestmark = pytest.mark.protocols("native", "xml")

PARAGRAPHS = 40


@pytest.fixture
def chapter_id(library: Library) -> str:
    """One chapter of 40 paragraphs: several batches of a careful model, in one chunk."""
    lines = tuple(f"第{n}段。下人は羅生門の下で雨やみを待っていた。" for n in range(PARAGRAPHS))
    draft = BookDraft("羅生門", (ChapterDraft("一", lines),))
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")


@pytest.fixture
def careful(fake_model: FakeLLMServer) -> FakeLLMServer:
    """A careful model that translates well: its batches get no warnings."""
    fake_model.translator = ScriptedTranslator.careful(translate=hanzi_translation)
    return fake_model


def assert_aligned(library: Library, book_id: str) -> None:
    [chapter] = library.whole_book(book_id).chapters
    assert chapter.translated_title == hanzi_translation(chapter.title)
    for paragraph in chapter.work_paragraphs:
        assert paragraph.translation == hanzi_translation(paragraph.text)


def conversations(server: FakeLLMServer) -> list[list[list[dict]]]:
    """Each chunk's requests, as message lists, in order."""
    by_chunk: dict[str, list[list[dict]]] = {}
    for body in server.requests:
        by_chunk.setdefault(body["messages"][1]["content"], []).append(body["messages"])
    return list(by_chunk.values())


def test_a_careful_model_translates_a_chapter_with_every_paragraph_aligned(
    run_job: RunJob, library, jobs, careful, chapter_id
):
    outcome, _ = run_job(careful, chapter_id, chunk_chars=6000)

    assert outcome.ok
    assert_aligned(library, chapter_id)
    batches = [r["accepted"] for r in tool_results(jobs, chapter_id, "add_translation_batch")]
    assert sum(batches) == PARAGRAPHS
    assert len(batches) >= PARAGRAPHS // 12
    assert all(3 <= accepted <= 12 for accepted in batches[:-1])


@pytest.mark.parametrize(
    ("mistake", "tool", "code"),
    [
        (Mistake.WRONG_STATUS_MOVE, "update_task_status", "INVALID_TRANSITION"),
        (Mistake.INDEX_INSTEAD_OF_ID, "add_translation_batch", "INDEX_NOT_ALLOWED"),
        (Mistake.FOREIGN_ID, "add_translation_batch", "PARAGRAPH_NOT_ASSIGNED"),
        (Mistake.DUPLICATE_ID, "add_translation_batch", "DUPLICATE_PARAGRAPH_ID"),
        (Mistake.PREFIX_MISMATCH, "add_translation_batch", "PREFIX_MISMATCH"),
        (Mistake.UNKNOWN_TOOL, "translate_everything", "TOOL_NOT_FOUND"),
        (Mistake.BAD_ARGUMENTS, "update_task_status", "MISSING_PARAMETER"),
    ],
)
def test_every_mistake_of_a_careful_model_is_refused_and_nothing_lands_out_of_place(
    run_job: RunJob, library, jobs, careful, chapter_id, mistake, tool, code
):
    careful.translator.mistakes = {mistake}

    outcome, _ = run_job(careful, chapter_id, chunk_chars=6000)

    refused = [r for r in tool_results(jobs, chapter_id, tool) if not r["success"]]
    assert refused[0]["error_code"] == code
    assert outcome.ok
    assert_aligned(library, chapter_id)
    [chapter] = library.whole_book(chapter_id).chapters
    assert all(len(library.versions(chapter_id, p.id)) == 1 for p in chapter.work_paragraphs)


def test_a_later_turn_sends_saved_batches_back_without_their_text_and_keeps_its_prefix(
    run_job: RunJob, library, careful, chapter_id
):
    outcome, _ = run_job(careful, chapter_id, chunk_chars=6000)

    assert outcome.ok
    [conversation] = conversations(careful)
    for earlier, later in itertools.pairwise(conversation):
        assert later[: len(earlier)] == earlier
    last = json.dumps(conversation[-1], ensure_ascii=False)
    translations = [
        p.translation or "" for p in library.whole_book(chapter_id).chapters[0].work_paragraphs
    ]
    assert not any(translation in last for translation in translations)
    assert last.count("text left out here") >= PARAGRAPHS // 12


def test_a_careful_model_told_the_title_is_missing_translates_it_before_review(
    run_job: RunJob, jobs, careful, chapter_id
):
    outcome, _ = run_job(careful, chapter_id, chunk_chars=6000)

    assert outcome.ok
    moves = tool_results(jobs, chapter_id, "update_task_status")
    assert all(result["success"] for result in moves)
    assert [r["status"] for r in moves] == ["working", "review", "end"]


def test_a_careful_model_invited_to_make_calls_together_spends_a_request_a_batch_and_one_more(
    run_job: RunJob, jobs, careful, chapter_id
):
    outcome, _ = run_job(careful, chapter_id, chunk_chars=6000)

    assert outcome.ok
    batches = tool_results(jobs, chapter_id, "add_translation_batch")
    [conversation] = conversations(careful)
    # The move to working with the first batch, the title with the second, review and end
    # together once the last batch's result said nothing is left.
    assert len(conversation) == len(batches) + 1


CHUNK = "Chapter 1, chunk 1/1: 1 work paragraph(s).\n\n[1] [ID: 1a2b3c4d] 下人は待っていた。"


@pytest.mark.parametrize("target", ["zh-CN", "en"])
def test_a_careful_model_makes_calls_together_only_where_it_is_told_to(target):
    model = ScriptedTranslator.careful(translate=hanzi_translation)
    told = system_prompt(JobKind.TRANSLATION, "ja", target)
    untold = told.replace("在同一次回复中", "").replace("In one reply: ", "")

    invited = model.reply(told, [Turn("user", CHUNK)]).calls
    alone = model.reply(untold, [Turn("user", CHUNK)]).calls

    assert [c.name for c in invited] == ["update_task_status", "add_translation_batch"]
    assert [c.name for c in alone] == ["update_task_status"]
