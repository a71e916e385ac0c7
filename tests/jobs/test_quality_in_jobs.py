"""Quality checks in translation jobs over real HTTP, on a real book (Akutagawa's Rashōmon):
a careless first draft is flagged, the warnings reach the model, and its fixes in review clear
the flags; a looping reply is cut as it streams and asked again; a miscopied id gets a hint."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from honyaku.agent.broker import Broker
from honyaku.agent.registry import ToolRegistry
from honyaku.domain import CHUNK_CHARS, ChunkWorkflow, JobKind, TaskStatus, split_into_chunks
from honyaku.domain.glossary import GlossaryEntry
from honyaku.jobs.records import JobRecords
from honyaku.jobs.tools import TASK_TOOLS, ChunkContext
from honyaku.llm.messages import ToolCall
from honyaku.store import ActionKind, Stores
from honyaku.testing import Fault, FaultKind, Mistake
from honyaku.testing.fake_llm import LOOP_REPEATS, LOOP_SENTENCE

from .conftest import retries, tool_results

CHECKS = {
    "QUOTE_LOST",
    "UNBALANCED_BRACKETS",
    "GLOSSARY_TERM_MISSING",
    "LENGTH_OUT_OF_BAND",
    "SAME_AS_SOURCE",
    "UNTRANSLATED_KANA",
}


@pytest.fixture
def rashomon(library, honyaku) -> str:
    """The story in one chunk, as these tests run it (``chunk_chars=CHUNK_CHARS``)."""
    book_id = asyncio.run(honyaku.books.import_sample())
    asyncio.run(honyaku.glossary.add(book_id, GlossaryEntry("下人", "仆人", kind="character")))
    return book_id


def batch_results(jobs, book_id) -> list[dict]:
    return tool_results(jobs, book_id, "add_translation_batch")


def test_a_careless_draft_is_flagged_and_the_fixes_made_in_review_clear_it(
    run_job, library, honyaku, jobs, fake_model, rashomon
):
    fake_model.translator.mistakes = {Mistake.SLOPPY_DRAFT}

    outcome, _ = run_job(fake_model, rashomon, chunk_chars=CHUNK_CHARS)

    assert outcome.ok
    draft, fixes = batch_results(jobs, rashomon)
    warned = Counter(w["paragraph_id"] for w in draft["warnings"])
    assert {w["code"] for w in draft["warnings"]} == CHECKS
    assert len(warned) == 5  # one paragraph spoiled for each kind of mistake
    assert "review" in draft["warnings_hint"]
    assert fixes["accepted"] == 5
    assert "warnings" not in fixes
    assert asyncio.run(honyaku.books.flagged(rashomon)) == []
    for pid in warned:
        assert len(library.versions(rashomon, pid)) == 2


def test_warnings_left_unfixed_stay_flagged_on_the_paragraphs(
    run_job, library, honyaku, jobs, fake_model, rashomon
):
    fake_model.translator.mistakes = {Mistake.SLOPPY_DRAFT}
    fake_model.translator.fixes_warnings = False

    outcome, _ = run_job(fake_model, rashomon, chunk_chars=CHUNK_CHARS)

    assert outcome.ok  # warnings never refuse anything
    flagged = {
        p.paragraph_id: {w.code for w in p.warnings}
        for p in asyncio.run(honyaku.books.flagged(rashomon))
    }
    [draft] = batch_results(jobs, rashomon)
    expected: dict[str, set[str]] = {}
    for warning in draft["warnings"]:
        expected.setdefault(warning["paragraph_id"], set()).add(warning["code"])
    assert flagged == expected
    quoted = next(
        p for p in asyncio.run(honyaku.books.flagged(rashomon)) if p.text.startswith("「")
    )
    assert [w.code for w in quoted.warnings] == ["QUOTE_LOST"]


def test_a_later_version_that_passes_clears_the_flag(
    run_job, library, honyaku, fake_model, rashomon
):
    fake_model.translator.mistakes = {Mistake.SLOPPY_DRAFT}
    fake_model.translator.fixes_warnings = False
    run_job(fake_model, rashomon, chunk_chars=CHUNK_CHARS)
    assert len(asyncio.run(honyaku.books.flagged(rashomon))) == 5

    fake_model.translator.fixes_warnings = True
    outcome, _ = run_job(fake_model, rashomon, retranslate=True, chunk_chars=CHUNK_CHARS)

    assert outcome.ok
    assert asyncio.run(honyaku.books.flagged(rashomon)) == []


# -- degeneration ----------------------------------------------------------------------------


def test_a_looping_reply_is_cut_while_streaming_and_asked_again(
    run_job, library, jobs, fake_model, book_id
):
    fake_model.faults.append(Fault(FaultKind.LOOPING))

    outcome, events = run_job(fake_model, book_id, chapters=[1])

    assert outcome.ok
    [retry] = retries(events)
    span = retry.reason.split("repeated '")[1].split("'")[0]
    assert len(span) == len(LOOP_SENTENCE)
    assert span in LOOP_SENTENCE * 2
    cut_after = int(retry.reason.split("cut after ")[1].split(" ")[0])
    assert cut_after < len(LOOP_SENTENCE) * LOOP_REPEATS / 50
    [action] = jobs.actions(book_id, kinds=[ActionKind.RETRY])
    assert "repeated" in action.action.payload["reason"]
    translations = [p.translation for p in library.whole_book(book_id).chapters[0].work_paragraphs]
    assert not any(LOOP_SENTENCE in (t or "") for t in translations)


# -- a wrong id gets a hint ------------------------------------------------------------------


def test_a_miscopied_id_is_refused_with_did_you_mean(library, book_id):
    book = library.whole_book(book_id)
    chapter = book.chapters[0]
    [chunk, *_] = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=60)
    first, other_chapter = chunk.paragraphs[0], book.chapters[1].work_paragraphs[0]
    workflow = ChunkWorkflow(
        JobKind.TRANSLATION,
        {p.id: p for p in chunk.paragraphs},
        (chapter.id,),
        status=TaskStatus.WORKING,
    )
    context = ChunkContext(
        Broker(),
        "a test",
        JobRecords(Stores.over(library.database)),
        book,
        "job00000",
        "m",
        chunk,
        workflow,
    )
    registry = ToolRegistry(TASK_TOOLS, ChunkContext)
    miscopied = first.id[:-1] + ("0" if first.id[-1] != "0" else "1")

    def submit(pid: str) -> dict:
        item = {
            "paragraph_id": pid,
            "original_text_prefix": first.text[:6],
            "translated_text": "译",
        }
        call = ToolCall("c", "add_translation_batch", {"paragraphs": [item]})
        return asyncio.run(registry.run(call, context))

    hinted = submit(miscopied)
    elsewhere = submit(other_chapter.id)

    assert hinted["error_code"] == "PARAGRAPH_NOT_ASSIGNED"
    assert hinted["error"].startswith(f"段落 {miscopied} 不在当前任务分配范围内")
    assert f"did you mean {first.id}?" in hinted["error"]
    assert "Nothing was saved" in hinted["error"]
    assert "did you mean" not in elsewhere["error"]
    assert library.versions(book_id, first.id) == []
