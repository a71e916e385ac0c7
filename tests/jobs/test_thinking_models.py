"""Jobs against a reasoning model, over real HTTP, in both protocols (issue 8).

The fake model thinks before every reply and drafts in its thinking the calls it then makes
otherwise: a title and translations marked ``DRAFT_MARK``, after the move to working, so every
draft would succeed if it were run. Natively, with the thought in the text, the drafts also
stream as calls in the middle of it, as from a server whose tool parser reads the thinking.
Whatever the shape of the thinking, no draft lands, the real calls do, and no reasoning is
shown as the answer or sent back as one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from honyaku.domain import BookDraft, ChapterDraft
from honyaku.store import ActionKind, Database, JobStore, Library
from honyaku.store.schema import ChapterRow, TranslationRow
from honyaku.testing import (
    DRAFT_MARK,
    FakeLLMServer,
    Fault,
    FaultKind,
    Thinking,
    ThoughtPlace,
    pseudo_translation,
)

from .conftest import RunJob, assert_one_version_each, assert_translated_in_place, tool_results

# Reasoning is read apart from the answer in the provider and the protocol, never in the
# store: a job's store runs on both databases in test_jobs_over_http.py.
pytestmark = pytest.mark.backends("sqlite")

THINKING = [
    Thinking(),
    Thinking(opened_in_prompt=True),
    Thinking(element="thinking"),
    Thinking(element="reasoning"),
    Thinking(ThoughtPlace.FIELD),
]


def thinking_id(thinking: Thinking) -> str:
    if thinking.place is ThoughtPlace.FIELD:
        return "reasoning_content"
    return f"only </{thinking.element}>" if thinking.opened_in_prompt else f"<{thinking.element}>"


@pytest.fixture(params=THINKING, ids=thinking_id)
def thinker(request: pytest.FixtureRequest) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(thinking=request.param) as server:
        yield server


def every_translation_and_title(database: Database) -> list[str]:
    """Every version of every paragraph, selected or not, and every chapter's title."""
    with database.transaction() as session:
        versions = session.scalars(select(TranslationRow.text)).all()
        titles = session.scalars(select(ChapterRow.translated_title)).all()
    return [*versions, *(title or "" for title in titles)]


def recorded(jobs: JobStore, book_id: str, kind: ActionKind) -> str:
    return json.dumps([a.action.payload for a in jobs.actions(book_id, kinds=[kind])])


def test_a_title_drafted_while_thinking_is_never_written_and_the_real_one_is(
    run_job: RunJob, library: Library, jobs: JobStore, thinker: FakeLLMServer, book_id: str
) -> None:
    outcome, _ = run_job(thinker, book_id)

    assert outcome.ok
    assert_translated_in_place(library, book_id)
    titled = tool_results(jobs, book_id, "update_chapter_title")
    assert len(titled) == 3
    assert all(result["success"] for result in titled)
    assert DRAFT_MARK not in recorded(jobs, book_id, ActionKind.TOOL_CALL)


def test_a_batch_drafted_while_thinking_leaves_no_version_anywhere(
    run_job: RunJob,
    library: Library,
    jobs: JobStore,
    database: Database,
    thinker: FakeLLMServer,
    book_id: str,
) -> None:
    outcome, _ = run_job(thinker, book_id)

    assert outcome.ok
    written = every_translation_and_title(database)
    assert len(written) == 30 + 3
    assert not [text for text in written if DRAFT_MARK in text]
    assert_one_version_each(library, book_id)


def test_reasoning_is_neither_shown_as_the_answer_nor_sent_back(
    run_job: RunJob, jobs: JobStore, thinker: FakeLLMServer, book_id: str
) -> None:
    # Two calls a reply: the book's three short chapters, in one conversation, take four
    # (working, a batch, three titles, review, end); each request sends those before it back.
    thinker.translator.calls_per_reply = 2
    thinker.translator.heeds_invitations = False

    outcome, _ = run_job(thinker, book_id)

    assert outcome.ok
    answers = recorded(jobs, book_id, ActionKind.TEXT)
    assert "Working on it." in answers
    assert "first draft" not in answers
    replies = [
        message
        for body in thinker.requests
        for message in body["messages"]
        if message["role"] == "assistant"
    ]
    assert len(replies) == 1 + 2 + 3
    for reply in replies:
        assert "first draft" not in json.dumps(reply, ensure_ascii=False)
        assert "reasoning_content" not in reply
        assert f"</{thinker.thinking.element}>" not in (reply["content"] or "")


def test_reasoning_is_logged_apart_from_the_answer_and_its_tokens_are_counted(
    run_job: RunJob, jobs: JobStore, thinker: FakeLLMServer, book_id: str
) -> None:
    outcome, _ = run_job(thinker, book_id)

    thoughts = recorded(jobs, book_id, ActionKind.REASONING)
    assert "first draft" in thoughts
    assert "first draft" not in recorded(jobs, book_id, ActionKind.TEXT)
    assert 0 < outcome.job.cost.reasoning_tokens < outcome.job.cost.output_tokens


def test_an_unclosed_think_block_is_retried_and_the_job_still_ends_aligned(
    run_job: RunJob, library: Library, database: Database, book_id: str
) -> None:
    with FakeLLMServer(thinking=Thinking()) as server:
        server.faults.append(Fault(FaultKind.UNCLOSED_THINKING))

        outcome, _ = run_job(server, book_id, concurrency=1)

    assert outcome.ok
    assert outcome.job.cost.retries == 1
    assert_translated_in_place(library, book_id)
    assert_one_version_each(library, book_id)
    assert not [text for text in every_translation_and_title(database) if DRAFT_MARK in text]


def test_think_tags_in_a_paragraph_stay_in_its_translation(
    run_job: RunJob, library: Library
) -> None:
    text = "彼は<think>考えた</think>。そして</think>歩いた。"
    book_id = library.add_book(
        BookDraft("思考", (ChapterDraft("第一章", (text, "次の段落。")),)),
        source_lang="ja",
        target_lang="zh-CN",
    )
    with FakeLLMServer(thinking=Thinking()) as server:
        outcome, _ = run_job(server, book_id)

    assert outcome.ok
    paragraph = library.whole_book(book_id).chapters[0].paragraphs[0]
    assert paragraph.translation == pseudo_translation(text)
