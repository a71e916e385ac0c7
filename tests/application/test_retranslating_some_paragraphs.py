"""A job over some paragraphs only: "retranslate this paragraph / these flagged paragraphs"."""

from __future__ import annotations

import asyncio
import re

import pytest

from honyaku.application import DEMO, Honyaku, JobStatus, ModelChoice, ToolProtocol
from honyaku.domain import JobKind
from honyaku.domain.model_profile import ModelProfile
from honyaku.errors import NotFoundError, UserError
from honyaku.jobs import JobRequest, JobStarted, ParagraphsDone
from honyaku.store import Library
from honyaku.testing import FakeLLMServer, ScriptedTranslator, hanzi_translation

from ..conftest import novel

WORK_LINE = re.compile(r"\[\d+\] \[ID: [0-9a-f]{8}\] ")


def translated_book(honyaku: Honyaku, library: Library) -> str:
    book_id = library.add_book(novel(chapters=3), source_lang="ja", target_lang="zh-CN")
    request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION)
    asyncio.run(_drain(honyaku.jobs.run(request, DEMO)))
    return book_id


async def _drain(events) -> list:
    return [event async for event in events]


def test_retranslating_two_paragraphs_sends_and_rewrites_those_two_alone(
    honyaku: Honyaku, library: Library
):
    # Given a book translated whole with the demo model
    book_id = translated_book(honyaku, library)
    book = library.whole_book(book_id)
    first, third = book.chapters[0].work_paragraphs[1], book.chapters[2].work_paragraphs[0]
    before = {p.id: p.translation for c in book.chapters for p in c.work_paragraphs}

    # When two paragraphs of two chapters are retranslated by another model
    request = JobRequest(
        book_id=book_id, kind=JobKind.TRANSLATION, paragraphs=[third.id, first.id], retranslate=True
    )
    with FakeLLMServer(translator=ScriptedTranslator(translate=hanzi_translation)) as server:
        model = ModelChoice("fake-translator", server.url, protocol=ToolProtocol.NATIVE)
        events = asyncio.run(_drain(honyaku.jobs.run(request, model)))
        sent = [m["content"] or "" for body in server.requests for m in body["messages"]]

    # Then only they were in the chunks the model read, with no title to translate
    started = events[0]
    assert isinstance(started, JobStarted)
    assert started.paragraphs_total == 2
    assert sum(e.count for e in events if isinstance(e, ParagraphsDone)) == 2
    work_lines = {line for text in sent for line in text.splitlines() if WORK_LINE.match(line)}
    assert work_lines == {f"[{p.index + 1}] [ID: {p.id}] {p.text}" for p in (first, third)}
    assert not any("chapter_id:" in text for text in sent)
    # and only they have a new version; every other paragraph kept its translation
    after = library.whole_book(book_id)
    for paragraph in (p for c in after.chapters for p in c.work_paragraphs):
        if paragraph.id in (first.id, third.id):
            assert paragraph.translation == hanzi_translation(paragraph.text)
            assert len(library.versions(book_id, paragraph.id)) == 2
        else:
            assert paragraph.translation == before[paragraph.id]
    assert started.job.paragraphs == sorted([first.id, third.id])
    assert started.job.chapters == [1, 3]


def test_a_stopped_paragraph_job_resumes_over_the_paragraphs_it_had_not_done(
    honyaku: Honyaku, library: Library
):
    # Given a job over three paragraphs of three chapters, stopped after the first batch
    book_id = translated_book(honyaku, library)
    book = library.whole_book(book_id)
    chosen = [c.work_paragraphs[0].id for c in book.chapters]
    request = JobRequest(
        book_id=book_id,
        kind=JobKind.TRANSLATION,
        concurrency=1,
        paragraphs=chosen,
        retranslate=True,
    )

    async def stop_after_first_batch(model: ModelChoice) -> str:
        job_id = ""
        try:
            async for event in honyaku.jobs.run(request, model):
                if isinstance(event, JobStarted):
                    job_id = event.job.id
                if isinstance(event, ParagraphsDone):
                    await honyaku.jobs.stop(job_id)
        except asyncio.CancelledError:
            return job_id
        raise AssertionError("the job was not stopped")

    async def resume(job_id: str, name: str) -> JobStatus:
        await honyaku.jobs.resume(job_id, name)
        async for update in honyaku.jobs.watch(job_id):
            status = update.progress.status
        return status

    other = ScriptedTranslator(translate=hanzi_translation)
    with FakeLLMServer(translator=other, latency_s=0.05) as server:
        name = f"fake-{server.port}"
        asyncio.run(
            honyaku.models.save(
                ModelProfile(name=name, model="fake", base_url=server.url, protocol="native")
            )
        )
        job_id = asyncio.run(stop_after_first_batch(asyncio.run(honyaku.models.saved(name))))
        requests_before = len(server.requests)

        # When it is resumed
        status = asyncio.run(resume(job_id, name))
        resumed_chunks = [
            m["content"]
            for body in server.requests[requests_before:]
            for m in body["messages"][:2]
            if m["role"] == "user"
        ]

    # Then it finishes the other two, each once, and the first is not sent again
    assert status is JobStatus.FINISHED
    assert not any(chosen[0] in text for text in resumed_chunks)
    for pid in chosen:
        assert len(library.versions(book_id, pid)) == 2
    assert asyncio.run(honyaku.jobs.get(job_id)).paragraphs == sorted(chosen)


def test_a_paragraph_job_refuses_an_unknown_paragraph_and_an_empty_choice(
    honyaku: Honyaku, library: Library
):
    book_id = library.add_book(novel(chapters=1), source_lang="ja", target_lang="zh-CN")

    with pytest.raises(NotFoundError, match="no paragraph 00000000"):
        asyncio.run(
            honyaku.jobs.estimate(
                JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, paragraphs=["00000000"])
            )
        )
    with pytest.raises(UserError, match="at least one paragraph"):
        asyncio.run(
            _drain(
                honyaku.jobs.run(
                    JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, paragraphs=[]), DEMO
                )
            )
        )


def test_the_estimate_of_a_paragraph_job_counts_those_paragraphs_alone(
    honyaku: Honyaku, library: Library
):
    book_id = library.add_book(novel(chapters=3), source_lang="ja", target_lang="zh-CN")
    one = library.whole_book(book_id).chapters[1].work_paragraphs[0].id

    found = asyncio.run(
        honyaku.jobs.estimate(
            JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, paragraphs=[one])
        )
    )

    assert (found.chunks, found.paragraphs) == (1, 1)
