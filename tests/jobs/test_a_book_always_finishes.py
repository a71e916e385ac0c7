"""A book always finishes: a careful model is never cut off while it gets something done, one
that goes round in circles is; a part that fails is tried again in rounds, split smaller each
time; what is left at the end is listed with its reason. Over real HTTP, in both protocols."""

from __future__ import annotations

import pytest

from honyaku.agent.loop import MAX_STALLED_TURNS, Nudged
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.domain.failures import FailureClass
from honyaku.jobs import ChunkEvent, ChunkFinished, RoundStarted
from honyaku.llm.retry import MAX_ATTEMPTS
from honyaku.store import Library
from honyaku.testing import FakeLLMServer, Mistake, ScriptedTranslator, hanzi_translation
from honyaku.testing.fake_llm import Fault, FaultKind

from .conftest import RunJob

pytestmark = pytest.mark.protocols("native", "xml")

PARAGRAPHS = 40


@pytest.fixture
def book_id(library: Library) -> str:
    """One chapter of 40 paragraphs, planned as one part."""
    lines = tuple(f"第{n}段。下人は羅生門の下で雨やみを待っていた。" for n in range(PARAGRAPHS))
    draft = BookDraft("羅生門", (ChapterDraft("一", lines),))
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")


def translated(library: Library, book_id: str) -> int:
    [chapter] = library.whole_book(book_id).chapters
    return sum(1 for p in chapter.work_paragraphs if p.translation == hanzi_translation(p.text))


def test_a_careful_model_that_saves_a_paragraph_or_two_a_reply_is_never_cut_off(
    run_job: RunJob, library, fake_model: FakeLLMServer, book_id
):
    # Given a model that makes one call a reply, one or two paragraphs a batch, and mistakes
    fake_model.translator = ScriptedTranslator.careful(
        translate=hanzi_translation,
        mistakes={Mistake.WRONG_STATUS_MOVE, Mistake.DUPLICATE_ID},
    )
    fake_model.translator.batch_sizes = (1, 2)

    # When it translates a part of 40 paragraphs
    outcome, events = run_job(fake_model, book_id, chunk_chars=6000)

    # Then it finished in one conversation, past the 20 exchanges a fixed count once allowed
    assert outcome.ok
    assert translated(library, book_id) == PARAGRAPHS
    assert not [e for e in events if isinstance(e, RoundStarted)]
    assert len(fake_model.requests) > 20


def test_a_model_that_goes_round_in_circles_is_stopped(
    run_job: RunJob, fake_model: FakeLLMServer, book_id
):
    # Given a model that calls a tool every reply, and never gets anything done
    fake_model.translator = ScriptedTranslator(mistakes={Mistake.GOES_IN_CIRCLES})

    # When it is given the part
    outcome, events = run_job(fake_model, book_id, chunk_chars=6000)

    # Then the part failed after a few exchanges without progress, and so did its halves
    first = next(e for e in events if isinstance(e, ChunkFinished))
    assert first.failure is not None
    assert first.failure.kind is FailureClass.WORKFLOW
    assert f"no progress in {MAX_STALLED_TURNS} exchanges" in first.failure.detail
    assert not outcome.ok
    assert len(outcome.left) == PARAGRAPHS + 1  # its title too


def test_a_model_that_says_it_will_not_is_taken_at_its_word_after_one_reminder(
    run_job: RunJob, fake_model: FakeLLMServer, book_id
):
    # Given a model that answers in words that it will not translate this
    fake_model.translator = ScriptedTranslator(mistakes={Mistake.REFUSES})

    # When it is given the part
    outcome, events = run_job(fake_model, book_id, chunk_chars=6000)

    # Then it was reminded once, not three times, and the part is left as refused in words
    first = next(e for e in events if isinstance(e, ChunkFinished))
    assert first.failure is not None
    assert first.failure.kind is FailureClass.REFUSED
    assert "can't help" in first.failure.detail
    nudged = [e for e in events if isinstance(e, ChunkEvent) and isinstance(e.event, Nudged)]
    assert len([e for e in nudged if e.where == first.where]) == 1
    assert {item.failure.kind for item in outcome.left if item.failure} == {FailureClass.REFUSED}


def test_a_part_too_long_for_its_model_is_split_in_rounds_until_each_half_is_done(
    run_job: RunJob, library, fake_model: FakeLLMServer, book_id
):
    # Given a model that gives up on any part of more than 10 paragraphs
    fake_model.translator = ScriptedTranslator(translate=hanzi_translation, gives_up_over=10)

    # When it is given a part of 40
    outcome, events = run_job(fake_model, book_id, chunk_chars=6000)

    # Then the part was split in halves, then quarters, and every paragraph was done
    rounds = [(e.round, e.parts) for e in events if isinstance(e, RoundStarted)]
    assert rounds == [(2, 2), (3, 4)]
    assert outcome.ok
    assert outcome.left == []
    assert outcome.coverage is not None
    assert outcome.coverage.whole
    assert translated(library, book_id) == PARAGRAPHS


def test_a_part_the_server_did_not_keep_pace_with_waits_and_goes_again_whole(
    run_job: RunJob, library, fake_model: FakeLLMServer, book_id
):
    # Given a server that refuses its first requests for its pace, beyond every retry
    fake_model.translator = ScriptedTranslator(translate=hanzi_translation)
    fake_model.faults.extend(Fault(FaultKind.RATE_LIMIT, 0.0) for _ in range(MAX_ATTEMPTS))

    # When the part of 40 is given to it
    outcome, events = run_job(fake_model, book_id, chunk_chars=6000, pace_wait_s=0.01)

    # Then the part failed for the server's pace, waited, and went again whole: not halved
    first = next(e for e in events if isinstance(e, ChunkFinished))
    assert first.failure is not None
    assert first.failure.kind is FailureClass.PACE
    assert [(e.round, e.parts) for e in events if isinstance(e, RoundStarted)] == [(2, 1)]
    assert outcome.ok
    assert translated(library, book_id) == PARAGRAPHS
