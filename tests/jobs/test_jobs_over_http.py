"""Translation, polish and proofreading jobs against the fake model, over real HTTP.

Each scenario follows a seed: the model works only through tools, honyaku checks every call,
and whatever the model or the network does, every paragraph ends up with its own text.
"""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest
from sqlalchemy import update

from honyaku.agent.loop import LoopLimits
from honyaku.domain import CHUNK_CHARS, JobKind
from honyaku.jobs import JobRequest, ParagraphsBusy
from honyaku.jobs.events import RoundStarted
from honyaku.jobs.planning import plan_chunks, split_book
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.store import ActionKind, JobScope, JobStore, Stores
from honyaku.store.schema import ChunkRow, utc_now
from honyaku.testing import (
    Fault,
    FaultKind,
    Mistake,
    ScriptedTranslator,
    hanzi_translation,
    proofreading_changes,
    pseudo_revision,
    pseudo_translation,
)

from .conftest import (
    assert_one_version_each,
    assert_translated_in_place,
    engine,
    retries,
    run_to_end,
    tool_results,
    with_retries,
)

# The job engine's core, in both tool protocols.
pytestmark = pytest.mark.protocols("native", "xml")

# -- the three job kinds ---------------------------------------------------------------------


def test_translation_gives_every_paragraph_and_title_its_own_translation(
    run_job, library, jobs, fake_model, book_id
):
    outcome, _ = run_job(fake_model, book_id)

    assert outcome.ok
    assert outcome.paragraphs_done == outcome.paragraphs_total == 30
    assert_translated_in_place(library, book_id)


def test_polish_adds_a_new_version_and_keeps_the_translation_it_improved(
    run_job, library, jobs, fake_model, book_id
):
    run_job(fake_model, book_id)
    some = library.whole_book(book_id).chapters[0].work_paragraphs[0]

    outcome, _ = run_job(fake_model, book_id, JobKind.POLISH)

    assert outcome.ok
    for chapter in library.whole_book(book_id).chapters:
        for paragraph in chapter.work_paragraphs:
            assert paragraph.translation == pseudo_revision(
                pseudo_translation(paragraph.text), "polish"
            )
    versions = library.versions(book_id, some.id)
    assert [(v.kind, v.selected) for v in versions] == [
        ("translation", False),
        ("polish", True),
    ]


def test_proofreading_changes_only_the_paragraphs_it_corrects(
    run_job, library, jobs, fake_model, book_id
):
    run_job(fake_model, book_id)

    outcome, _ = run_job(fake_model, book_id, JobKind.PROOFREADING)

    assert outcome.ok
    assert outcome.paragraphs_done == outcome.paragraphs_total
    for paragraph in library.whole_book(book_id).chapters[1].work_paragraphs:
        translated = pseudo_translation(paragraph.text)
        fixed = proofreading_changes(paragraph.index)
        assert paragraph.translation == (
            pseudo_revision(translated, "proofreading") if fixed else translated
        )


def test_running_a_finished_translation_again_has_nothing_left_to_do(
    run_job, library, jobs, fake_model, book_id
):
    run_job(fake_model, book_id)
    requests = len(fake_model.requests)

    outcome, _ = run_job(fake_model, book_id)

    assert outcome.ok
    assert len(fake_model.requests) == requests


def test_retranslate_redoes_chosen_chapters_as_new_versions(
    run_job, library, jobs, fake_model, book_id
):
    run_job(fake_model, book_id)
    # Another model, another wording: the same text again would add no version
    fake_model.translator = ScriptedTranslator(translate=hanzi_translation)

    outcome, _ = run_job(fake_model, book_id, chapters=[2], retranslate=True)

    assert outcome.ok
    assert outcome.paragraphs_total == 10
    second = library.whole_book(book_id).chapters[1].work_paragraphs[0]
    assert [v.text for v in library.versions(book_id, second.id)] == [
        pseudo_translation(second.text),
        hanzi_translation(second.text),
    ]
    first = library.whole_book(book_id).chapters[0].work_paragraphs[0]
    assert len(library.versions(book_id, first.id)) == 1


# -- seed scenarios: the model's mistakes are refused and corrected ---------------------------


def test_seed_000_a_move_outside_the_table_names_the_current_status_and_allowed_moves(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.WRONG_STATUS_MOVE)

    outcome, _ = run_job(fake_model, book_id)

    refused = next(r for r in tool_results(jobs, book_id, "update_task_status") if not r["success"])
    assert refused["error_code"] == "INVALID_TRANSITION"
    assert refused["current_status"] == "planning"
    assert refused["allowed_next"] == ["working"]
    assert outcome.ok
    assert_translated_in_place(library, book_id)


def test_seed_001_an_item_keyed_by_index_is_refused_with_the_fix_and_nothing_is_written(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.INDEX_INSTEAD_OF_ID)

    outcome, _ = run_job(fake_model, book_id)

    first = tool_results(jobs, book_id, "add_translation_batch")[0]
    assert first["success"] is False
    assert first["error_code"] == "INDEX_NOT_ALLOWED"
    assert "paragraph_id" in first["error"]
    assert "[ID: …]" in first["error"]
    review = next(r for r in tool_results(jobs, book_id, "update_task_status") if not r["success"])
    assert review["error_code"] == "WORK_INCOMPLETE"
    assert outcome.ok
    assert_translated_in_place(library, book_id)
    assert all(
        len(library.versions(book_id, p.id)) == 1
        for p in library.whole_book(book_id).chapters[0].work_paragraphs
    )


def test_seed_004_a_batch_with_a_foreign_id_is_rejected_whole_naming_that_id(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.FOREIGN_ID)

    outcome, _ = run_job(fake_model, book_id)

    first = tool_results(jobs, book_id, "add_translation_batch")[0]
    assert first["error_code"] == "PARAGRAPH_NOT_ASSIGNED"
    assert "段落 deadbeef 不在当前任务分配范围内" in first["error"]
    assert [p["paragraph_id"] for p in first["problems"]] == ["deadbeef"]
    assert outcome.ok
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)


@pytest.mark.parametrize(
    ("mistake", "code"),
    [
        (Mistake.DUPLICATE_ID, "DUPLICATE_PARAGRAPH_ID"),
        (Mistake.PREFIX_MISMATCH, "PREFIX_MISMATCH"),
    ],
)
def test_a_faulty_batch_is_rejected_whole_then_resubmitted(
    run_job, library, jobs, fake_model, book_id, mistake, code
):
    fake_model.mistakes.add(mistake)

    outcome, _ = run_job(fake_model, book_id)

    assert tool_results(jobs, book_id, "add_translation_batch")[0]["error_code"] == code
    assert outcome.ok
    assert_translated_in_place(library, book_id)


def test_an_unknown_tool_is_answered_with_the_available_ones(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.UNKNOWN_TOOL)

    outcome, _ = run_job(fake_model, book_id)

    result = tool_results(jobs, book_id, "translate_everything")[0]
    assert result["error_code"] == "TOOL_NOT_FOUND"
    assert "add_translation_batch" in result["available_tools"]
    assert outcome.ok


def test_missing_and_wrongly_typed_parameters_get_their_codes_in_both_protocols(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.BAD_ARGUMENTS)

    outcome, _ = run_job(fake_model, book_id)

    missing = tool_results(jobs, book_id, "update_task_status")[0]
    wrong = tool_results(jobs, book_id, "get_previous_paragraphs")[0]
    assert missing["error_code"] == "MISSING_PARAMETER"
    assert "status" in missing["error"]
    assert wrong["error_code"] == "INVALID_PARAMETER"
    assert "count" in wrong["error"]
    assert outcome.ok


def test_json_printed_as_text_is_never_parsed_only_answered_with_use_the_tools(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.JSON_AS_TEXT)

    outcome, _ = run_job(fake_model, book_id)

    # (the book's three short chapters share one conversation: one nudge)
    nudges = [a.action.payload["text"] for a in jobs.actions(book_id, kinds=[ActionKind.NUDGE])]
    assert len(nudges) == 1
    assert all("Do not print JSON" in text for text in nudges)
    assert outcome.ok
    assert_translated_in_place(library, book_id)


def test_a_model_that_forgets_to_end_is_told_what_is_missing(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.FORGET_END)

    outcome, _ = run_job(fake_model, book_id)

    nudge = jobs.actions(book_id, kinds=[ActionKind.NUDGE])[0].action.payload["text"]
    assert "current status is review" in nudge
    assert 'update_task_status("end")' in nudge
    assert outcome.ok


def test_review_is_refused_until_the_first_chunk_has_its_title_naming_the_chapter_id(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.SKIP_TITLE)

    outcome, _ = run_job(fake_model, book_id, chapters=[1])

    refused = next(r for r in tool_results(jobs, book_id, "update_task_status") if not r["success"])
    chapter_id = library.whole_book(book_id).chapters[0].id
    assert refused["error_code"] == "WORK_INCOMPLETE"
    assert f'chapter_id "{chapter_id}"' in refused["error"]
    assert outcome.ok


def test_a_model_that_never_finishes_fails_its_chunks_visibly_after_bounded_nudges(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.mistakes.add(Mistake.NEVER_FINISH)

    outcome, events = run_job(fake_model, book_id, limits=LoopLimits(max_nudges=2))

    # The three short chapters' shared conversation, which gives each its part back whole;
    # each chapter's part alone, then in halves, then in quarters: two split rounds that got
    # nothing done, and the model is given up on.
    assert sorted(e.round for e in events if isinstance(e, RoundStarted)) == [2, 2, 2, 3, 3, 3]
    assert not outcome.ok
    assert len(outcome.failures) == 3 * 4
    assert all("stopped 3 times without finishing" in f.reason for f in outcome.failures)
    assert len(fake_model.requests) == (1 + 3 * (1 + 2 + 4)) * 3
    assert outcome.job.status == "failed"
    assert all(
        p.translation is None for c in library.whole_book(book_id).chapters for p in c.paragraphs
    )


def test_one_call_a_reply_invited_to_make_calls_together_spends_two_requests_a_chunk(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.translator.calls_per_reply = 1

    outcome, _ = run_job(fake_model, book_id)

    assert outcome.ok
    # Working with the batch and the titles, then review with end: invited in one reply, in
    # the one conversation the book's three short chapters share.
    assert len(fake_model.requests) == 2
    assert_translated_in_place(library, book_id)


def test_one_call_a_reply_whatever_it_is_told_takes_more_turns_and_gets_the_same_result(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.translator.calls_per_reply = 1
    fake_model.translator.heeds_invitations = False

    outcome, _ = run_job(fake_model, book_id)

    assert outcome.ok
    # One shared conversation: working, the batch, three titles, review, end.
    assert len(fake_model.requests) == 7
    assert_translated_in_place(library, book_id)


# -- the network misbehaves -------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        Fault(FaultKind.RATE_LIMIT, seconds=0.05),
        Fault(FaultKind.SERVER_ERROR),
        Fault(FaultKind.CUT_STREAM),
        Fault(FaultKind.DROP_CONNECTION),
        Fault(FaultKind.SLOW_FIRST_BYTE, seconds=2),
    ],
    ids=lambda fault: fault.kind.value,
)
def test_faults_are_retried_and_every_paragraph_stays_aligned(
    run_job, library, jobs, fake_model, book_id, fault
):
    fake_model.faults.extend([fault, fault])
    # Short only where the fault is slowness: a loaded machine must not turn the others slow.
    bound = 1 if fault.kind is FaultKind.SLOW_FIRST_BYTE else 10

    outcome, _events = run_job(fake_model, book_id, concurrency=1, read_timeout_s=bound)

    assert outcome.ok
    assert outcome.job.cost.retries == 2
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)


def test_a_retry_honours_the_servers_retry_after(run_job, library, jobs, fake_model, book_id):
    fake_model.faults.append(Fault(FaultKind.RATE_LIMIT, seconds=0.7))

    _, events = run_job(fake_model, book_id)

    [retry] = retries(events)
    assert round(retry.delay_s, 2) == 0.7
    assert "429" in retry.reason


def test_a_rejected_key_fails_the_job_at_once_with_a_readable_reason(library, jobs, book_id):
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from honyaku.errors import FatalProviderError
    from honyaku.testing.server import BackgroundServer

    async def refuse(_request):
        return JSONResponse(
            {"error": {"message": "Incorrect API key provided: sk-abc***xyz"}}, status_code=401
        )

    with BackgroundServer(
        Starlette(routes=[Route("/v1/chat/completions", refuse, methods=["POST"])])
    ) as server:
        provider = OpenAICompatibleProvider(
            model="m", base_url=f"{server.origin}/v1", api_key="sk-secret-key"
        )
        job = run_to_end(
            engine(Stores.over(library.database)),
            JobRequest(book_id=book_id, kind=JobKind.TRANSLATION),
            with_retries(provider),
        )

        with pytest.raises(FatalProviderError, match="refused the API key") as caught:
            asyncio.run(job)
    assert "sk-secret-key" not in str(caught.value)
    assert jobs.for_book(book_id)[0].status == "failed"


# -- cost ------------------------------------------------------------------------------------


def test_each_conversation_only_grows_at_its_end(run_job, library, jobs, fake_model, book_id):
    fake_model.translator.calls_per_reply = 2

    run_job(fake_model, book_id, concurrency=1)

    by_chunk: dict[str, list[list[dict]]] = {}
    for body in fake_model.requests:
        by_chunk.setdefault(body["messages"][1]["content"], []).append(body["messages"])
    for conversation in by_chunk.values():
        for earlier, later in itertools.pairwise(conversation):
            assert later[: len(earlier)] == earlier
    tools = {repr(body.get("tools")) for body in fake_model.requests}
    systems = {body["messages"][0]["content"] for body in fake_model.requests}
    assert len(tools) == len(systems) == 1


def test_a_job_counts_requests_and_tokens(run_job, library, jobs, fake_model, book_id):
    outcome, _ = run_job(fake_model, book_id)

    cost = outcome.job.cost
    assert cost.requests == len(fake_model.requests) == 1
    assert cost.input_tokens > 0
    assert cost.output_tokens > 0
    assert cost.input_chars > cost.input_tokens


def hold(library, book_id: str, chapters: list[int], held: int) -> str:
    """Open a translation job over ``chapters`` as if another process were running chapter
    ``held`` (it beat a moment ago)."""
    planned = plan_chunks(
        split_book(
            library.whole_book(book_id, chapter_numbers=chapters),
            JobKind.TRANSLATION,
            retranslate=False,
            written=set(),
            chunk_chars=CHUNK_CHARS,
        )
    )
    scope = JobScope(book_id, JobKind.TRANSLATION, chapters)
    job, _ = JobStore(library.database).open(scope, model="m", protocol="p", planned=planned)
    with library.database.transaction() as session:
        session.execute(
            update(ChunkRow)
            .where(ChunkRow.job_id == job.id, ChunkRow.chapter_number == held)
            .values(status="running", owner="elsewhere:1:abcdef", heartbeat_at=utc_now())
        )
    return job.id


def sent_text(server) -> str:
    return json.dumps([body["messages"] for body in server.requests], ensure_ascii=False)


def test_a_second_process_joins_the_job_and_leaves_the_chunk_another_holds(
    run_job, fake_model, book_id, library
):
    book = library.whole_book(book_id)
    job_id = hold(library, book_id, [1, 2, 3], held=1)

    outcome, _ = run_job(fake_model, book_id, chapters=[1, 2, 3])

    assert outcome.job.id == job_id
    assert outcome.ok
    assert outcome.running_elsewhere == 1
    assert outcome.job.status == "running"
    assert all(p.id not in sent_text(fake_model) for p in book.chapters[0].work_paragraphs)
    translated = library.whole_book(book_id).chapters
    assert [c.translated_title is not None for c in translated] == [False, True, True]


def test_overlapping_jobs_never_work_the_same_paragraph_at_once(
    run_job, fake_model, book_id, library, jobs
):
    book = library.whole_book(book_id)
    hold(library, book_id, [1, 2], held=2)

    outcome, events = run_job(fake_model, book_id, chapters=[2, 3])

    second = book.chapters[1].work_paragraphs
    busy = [e for e in events if isinstance(e, ParagraphsBusy)]
    assert outcome.busy == len(second) == sum(len(e.paragraph_ids) for e in busy)
    assert all(p.id not in sent_text(fake_model) for p in second)
    assert all(p.translation for p in library.whole_book(book_id).chapters[2].work_paragraphs)
    [skipped] = jobs.actions(book_id, kinds=[ActionKind.SKIPPED])
    assert skipped.action.payload["paragraph_ids"] == [p.id for p in second]
