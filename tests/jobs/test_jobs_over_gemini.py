"""Translation, polish and proofreading jobs against the fake Gemini server, over real HTTP.

The same jobs as over Chat Completions, through Gemini's own API: thought signatures must go
back or the fake refuses the turn, results go back as function responses, and whatever the
network does, every paragraph ends up with its own text.
"""

from __future__ import annotations

import asyncio

import pytest

from honyaku.domain import JobKind
from honyaku.jobs import JobEvent, JobOutcome, JobRequest
from honyaku.llm.gemini import GeminiProvider
from honyaku.store import JobStore, Library, Stores
from honyaku.testing import (
    Fault,
    FaultKind,
    Mistake,
    proofreading_changes,
    pseudo_revision,
    pseudo_translation,
)
from honyaku.testing.fake_gemini import FakeGeminiServer

from .conftest import (
    assert_one_version_each,
    assert_translated_in_place,
    engine,
    retries,
    run_to_end,
    with_retries,
)

# Gemini's wire format is the provider's business: a job's store is the same whatever the
# provider, and runs on both databases in test_jobs_over_http.py.
pytestmark = pytest.mark.backends("sqlite")


def run(
    library: Library,
    jobs: JobStore,
    server: FakeGeminiServer,
    book_id: str,
    kind: JobKind = JobKind.TRANSLATION,
    read_timeout_s: float = 30,
    **request: object,
) -> tuple[JobOutcome, list[JobEvent]]:
    provider = GeminiProvider(
        model="gemini-fake", api_key="test-key", base_url=server.url, read_timeout_s=read_timeout_s
    )
    job = run_to_end(
        engine(Stores.over(library.database)),
        JobRequest(book_id=book_id, kind=kind, **request),
        with_retries(provider),
    )
    return asyncio.run(job)


def test_translation_gives_every_paragraph_and_title_its_own_translation(
    library, jobs, gemini, book_id
):
    outcome, _ = run(library, jobs, gemini, book_id)

    assert outcome.ok
    assert outcome.paragraphs_done == outcome.paragraphs_total == 30
    assert_translated_in_place(library, book_id)


def test_every_later_turn_sends_back_the_signature_of_the_turn_before(
    library, jobs, gemini, book_id
):
    gemini.translator.calls_per_reply = 2
    gemini.translator.heeds_invitations = False

    outcome, _ = run(library, jobs, gemini, book_id, concurrency=1)

    assert outcome.ok
    first_calls = [
        next(part for part in content["parts"] if "functionCall" in part)
        for body in gemini.requests
        for content in body["contents"]
        if content["role"] == "model"
    ]
    # The book's three short chapters in one conversation of four replies (working, a batch,
    # three titles, review, end, two a reply): each request sends those before it back.
    assert len(first_calls) == 0 + 1 + 2 + 3
    assert all(part.get("thoughtSignature") for part in first_calls)


def test_polish_adds_a_new_version_over_the_translation(library, jobs, gemini, book_id):
    run(library, jobs, gemini, book_id)

    outcome, _ = run(library, jobs, gemini, book_id, JobKind.POLISH)

    assert outcome.ok
    for chapter in library.whole_book(book_id).chapters:
        for paragraph in chapter.work_paragraphs:
            assert paragraph.translation == pseudo_revision(
                pseudo_translation(paragraph.text), "polish"
            )


def test_proofreading_changes_only_the_paragraphs_it_corrects(library, jobs, gemini, book_id):
    run(library, jobs, gemini, book_id)

    outcome, _ = run(library, jobs, gemini, book_id, JobKind.PROOFREADING)

    assert outcome.ok
    for paragraph in library.whole_book(book_id).chapters[1].work_paragraphs:
        translated = pseudo_translation(paragraph.text)
        fixed = proofreading_changes(paragraph.index)
        assert paragraph.translation == (
            pseudo_revision(translated, "proofreading") if fixed else translated
        )


def test_arguments_streamed_by_json_path_are_assembled_exactly(library, jobs, gemini, book_id):
    gemini.stream_arguments = True
    gemini.delta_chars = 5

    outcome, _ = run(library, jobs, gemini, book_id)

    assert outcome.ok
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)


def test_call_ids_the_server_gives_come_back_on_the_results(library, jobs, gemini, book_id):
    gemini.call_ids = True
    gemini.translator.calls_per_reply = 2

    outcome, _ = run(library, jobs, gemini, book_id)

    assert outcome.ok
    returned = [
        part["functionResponse"]["id"]
        for body in gemini.requests
        for content in body["contents"]
        for part in content["parts"]
        if "functionResponse" in part
    ]
    assert returned
    assert all(call_id.startswith("fc_") for call_id in returned)


def test_a_batch_with_a_foreign_id_is_rejected_whole_then_resubmitted(
    library, jobs, gemini, book_id
):
    gemini.mistakes.add(Mistake.FOREIGN_ID)

    outcome, _ = run(library, jobs, gemini, book_id)

    assert outcome.ok
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)


@pytest.mark.parametrize(
    "fault",
    [
        Fault(FaultKind.RATE_LIMIT, seconds=0.05),
        Fault(FaultKind.SERVER_ERROR),
        Fault(FaultKind.CUT_STREAM),
        Fault(FaultKind.DROP_CONNECTION),
        Fault(FaultKind.SLOW_FIRST_BYTE, seconds=1),
        Fault(FaultKind.NO_STREAMING),
    ],
    ids=lambda fault: fault.kind.value,
)
def test_faults_are_survived_and_every_paragraph_stays_aligned(
    library, jobs, gemini, book_id, fault
):
    gemini.faults.extend([fault, fault])
    # Short only where the fault is slowness: a loaded machine must not turn the others slow.
    bound = 0.5 if fault.kind is FaultKind.SLOW_FIRST_BYTE else 10

    outcome, _ = run(library, jobs, gemini, book_id, concurrency=1, read_timeout_s=bound)

    assert outcome.ok
    retried = fault.kind is not FaultKind.NO_STREAMING
    assert outcome.job.cost.retries == (2 if retried else 0)
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)


def test_a_retry_honours_the_servers_retry_after(library, jobs, gemini, book_id):
    gemini.faults.append(Fault(FaultKind.RATE_LIMIT, seconds=0.3))

    _, events = run(library, jobs, gemini, book_id)

    [retry] = retries(events)
    assert round(retry.delay_s, 2) == 0.3
    assert "429" in retry.reason


def test_a_job_counts_tokens_with_thinking_as_output(library, jobs, gemini, book_id):
    outcome, _ = run(library, jobs, gemini, book_id)

    cost = outcome.job.cost
    assert cost.requests == len(gemini.requests) == 1  # the three short chapters together
    assert cost.input_tokens > 0
    assert cost.output_tokens > 7
    assert cost.input_chars > cost.input_tokens
