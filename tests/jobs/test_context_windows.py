"""A model whose context window is small, as local servers' are (llama.cpp started with 8,192
tokens, Ollama's defaults smaller still), over real HTTP: a request that does not fit is
refused, a reply that runs past the window is cut, and the job learns the window, plans
what is left in chunks that fit, and goes on to the end; it never fails for it. A server
that says its window is sent only requests that fit. A resumed job plans its chunks waiting
to run again when the chunk size changed."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from itertools import pairwise

import pytest

from honyaku.agent.loop import MAX_NUDGES
from honyaku.application import Honyaku
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.domain.failures import FailureClass
from honyaku.domain.model_profile import ModelProfile
from honyaku.jobs import ChunkFinished, JobOutcome, JobRequest, JobStarted, RoundStarted
from honyaku.llm.models import ConnectedModel, ModelChoice, ToolProtocol, open_model
from honyaku.store import ChunkStatus, LearnedModels, Library, ModelProfiles, Stores
from honyaku.store.chunks import ChunkStore
from honyaku.testing import (
    MODEL_NAME,
    FakeLLMServer,
    Mistake,
    ScriptedTranslator,
    pseudo_translation,
)
from honyaku.testing.context_limit import ContextLimit, Introspection, Refusal

from .conftest import connected, engine, run_to_end, stop_after_first_chunk

WINDOW = 8192
CHUNK_CHARS = 6000
LOCAL_MODEL_COUNT = 1.6
"""A small local model's tokenizer and chat template count this much more than honyaku."""


@pytest.fixture
def japanese(library: Library, honyaku: Honyaku) -> str:
    """One chapter of 6,000 characters of Akutagawa's Japanese: one chunk of the default size."""
    sample = asyncio.run(honyaku.books.import_sample())
    story = library.whole_book(sample).chapters[0].work_paragraphs
    lines, size = [], 0
    for paragraph in (p for _ in range(2) for p in story):
        lines.append(paragraph.text[: CHUNK_CHARS - size])
        size += len(lines[-1])
        if size >= CHUNK_CHARS:
            break
    draft = BookDraft("羅生門", (ChapterDraft("羅生門", tuple(lines)),))
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")


def translate(library: Library, model: ConnectedModel, book_id: str, **request: object):
    service = engine(Stores.over(library.database))
    job = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, **request)
    return asyncio.run(run_to_end(service, job, model))


def assert_aligned(library: Library, book_id: str) -> None:
    for chapter in library.whole_book(book_id).chapters:
        assert chapter.translated_title == pseudo_translation(chapter.title)
        for paragraph in chapter.work_paragraphs:
            assert paragraph.translation == pseudo_translation(paragraph.text)


def refused(server: FakeLLMServer) -> int:
    """Requests the server answered without a reply."""
    return len(server.requests) - len(server.bills)


@pytest.mark.parametrize("refusal", list(Refusal))
def test_a_6000_character_chunk_of_japanese_is_translated_through_an_8192_token_window(
    library, fake_model, japanese, protocol, refusal
):
    # Given a server whose window cannot hold the chunk's first request, nor say it
    fake_model.context = ContextLimit(WINDOW, refusal, count_factor=LOCAL_MODEL_COUNT)
    model = connected(fake_model, protocol)

    # When a 6,000-character chunk is translated
    outcome, events = translate(library, model, japanese, chunk_chars=CHUNK_CHARS)

    # Then the refusal taught the job the window, and it went on in chunks that fit, to the end
    assert outcome.ok
    assert_aligned(library, japanese)
    assert refused(fake_model) >= 1
    assert model.window.tokens == WINDOW
    handed = [e for e in events if isinstance(e, ChunkFinished) and e.handed_over]
    assert handed
    assert "context window" in handed[0].handed_over.reason
    assert len(fake_model.bills) > refused(fake_model)


def test_a_reply_cut_off_at_the_window_hands_what_is_left_to_chunks_that_fit(
    library, fake_model, japanese
):
    # Given a server whose window holds the chunk but not the reply that translates it whole
    fake_model.context = ContextLimit(WINDOW, Refusal.LLAMA_CPP)
    model = connected(fake_model, "native")

    outcome, events = translate(library, model, japanese, chunk_chars=CHUNK_CHARS)

    assert outcome.ok
    assert_aligned(library, japanese)
    assert refused(fake_model) == 0
    handed = [e for e in events if isinstance(e, ChunkFinished) and e.handed_over]
    assert [e.handed_over.reason for e in handed] == ["the reply was cut off"]
    assert model.window.tokens is not None
    assert model.window.tokens <= WINDOW


def test_a_model_that_writes_text_until_its_limit_cuts_it_is_nudged_not_given_smaller_chunks(
    library, fake_model, japanese
):
    # Given a server whose window holds the chunk, and a model that writes it out again as
    # text, never calling a tool, until the window cuts its reply
    fake_model.context = ContextLimit(WINDOW, Refusal.LLAMA_CPP)
    fake_model.translator = ScriptedTranslator(mistakes={Mistake.RAMBLE})
    # Native: in XML, the tools described in the prompt leave this chunk no room for nudges.
    model = connected(fake_model, "native")

    outcome, events = translate(library, model, japanese, chunk_chars=CHUNK_CHARS)

    # Then no smaller chunk was tried for the window, which would not have helped: the model
    # was nudged, and the chunk failed for never calling a tool, not for the window
    first_pass = events[: next(n for n, e in enumerate(events) if isinstance(e, RoundStarted))]
    assert not [e for e in first_pass if isinstance(e, ChunkFinished) and e.handed_over]
    [failed] = [e.failure for e in first_pass if isinstance(e, ChunkFinished) and e.failure]
    assert failed.kind is FailureClass.WORKFLOW
    assert "without finishing" in failed.detail
    first_bills = fake_model.bills[: MAX_NUDGES + 1]
    # And each nudge had room: the conversation kept only the opening of each cut reply
    requests = fake_model.requests[: MAX_NUDGES + 1]
    sizes = [len(json.dumps(request, ensure_ascii=False)) for request in requests]
    cut = [bill.output_chars for bill in first_bills]
    assert all(later - earlier < cut[0] for earlier, later in pairwise(sizes))
    # And its halves and quarters, tried again in two rounds, got nothing done either:
    # nothing smaller is tried
    rounds = [e for e in events if isinstance(e, RoundStarted)]
    assert [r.round for r in rounds] == [2, 3]
    assert rounds[0].parts == 2
    assert not outcome.ok
    assert all("without finishing" in f.reason for f in outcome.failures)


def open_local(library: Library, fake_model: FakeLLMServer):
    """The model of a saved profile for the fake local server, as a job opens it."""
    profiles = ModelProfiles(library.database)
    profiles.save(ModelProfile(name="local", model=MODEL_NAME, base_url=fake_model.url))
    choice = replace(ModelChoice.from_profile(profiles.get("local")), protocol=ToolProtocol.NATIVE)
    return open_model(choice, LearnedModels(library.database), language="zh-CN")


def translate_locally(
    library: Library, fake_model: FakeLLMServer, book_id: str, chunk_chars: int
) -> JobOutcome:
    """Translate the book through the saved profile of the fake local server, to the end."""

    async def job() -> JobOutcome:
        async with open_local(library, fake_model) as model:
            service = engine(Stores.over(library.database))
            request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, chunk_chars=chunk_chars)
            return (await run_to_end(service, request, model))[0]

    return asyncio.run(job())


def test_on_llama_cpp_python_replies_are_ended_by_max_tokens_before_they_fill_the_window(
    library, fake_model, japanese
):
    # Given llama-cpp-python's server: it says its window, counts 1.6 times what honyaku
    # counts, and fails a reply that fills its window as it is written (the reply lost); and
    # a model that writes text until its limit, never calling a tool
    fake_model.context = ContextLimit(
        WINDOW,
        says=Introspection.LLAMA_CPP,
        count_factor=LOCAL_MODEL_COUNT,
        fails_past_window=True,
    )
    fake_model.translator = ScriptedTranslator(mistakes={Mistake.RAMBLE})

    outcome = translate_locally(library, fake_model, japanese, CHUNK_CHARS)

    # Then every request carried the room its reply had, and once the server's refusal of the
    # first prompt taught honyaku how it counts, no reply filled the window: each part failed
    # for the model's talking, never for the server
    assert all(request.get("max_tokens") for request in fake_model.requests)
    assert refused(fake_model) == 1
    assert outcome.failures
    assert [f.reason for f in outcome.failures if "without finishing" not in f.reason] == []


def test_on_llama_cpp_python_a_reply_that_filled_the_window_is_asked_again_with_less_room(
    library, fake_model, japanese
):
    # Given llama-cpp-python's server counting 1.3 times what honyaku counts, whose first
    # prompt fits (nothing refused teaches honyaku its count), and a model that talks
    fake_model.context = ContextLimit(
        WINDOW, says=Introspection.LLAMA_CPP, count_factor=1.3, fails_past_window=True
    )
    fake_model.translator = ScriptedTranslator(mistakes={Mistake.RAMBLE})

    outcome = translate_locally(library, fake_model, japanese, 2000)

    # Then the first reply filled the window and was lost, once: asked again with less room,
    # and from each reply's count on, none filled it again
    assert refused(fake_model) == 1
    assert [f.reason for f in outcome.failures if "without finishing" not in f.reason] == []


@pytest.mark.parametrize("says", list(Introspection))
def test_a_server_that_says_its_window_is_only_sent_requests_that_fit(
    library, fake_model, japanese, says
):
    # Given a local server that says its window, and a profile for it
    fake_model.context = ContextLimit(WINDOW, says=says, count_factor=1.0)
    profiles = ModelProfiles(library.database)
    profiles.save(ModelProfile(name="local", model=MODEL_NAME, base_url=fake_model.url))
    choice = ModelChoice.from_profile(profiles.get("local"))
    memory = LearnedModels(library.database)

    async def job() -> None:
        async with open_model(
            replace(choice, protocol=ToolProtocol.NATIVE), memory, language="zh-CN"
        ) as model:
            assert model.window.tokens == WINDOW
            service = engine(Stores.over(library.database))
            await run_to_end(service, JobRequest(book_id=japanese, kind=JobKind.TRANSLATION), model)

    asyncio.run(job())

    # Then nothing was refused or cut, and the window is kept on the profile
    assert refused(fake_model) == 0
    assert all(bill.prompt.tokens + bill.output_tokens <= WINDOW for bill in fake_model.bills)
    assert_aligned(library, japanese)
    assert profiles.get("local").context_window == WINDOW
    assert memory.context_window(fake_model.url, MODEL_NAME) == WINDOW


def test_a_resumed_job_plans_its_chunks_waiting_to_run_again_when_the_size_changed(
    library, jobs, fake_model, japanese
):
    # Given a job stopped after its first chunk of 2,000 characters (its second may have been
    # claimed, then given back)
    library.update_settings(japanese, chunk_chars=2000)
    service = engine(Stores.over(library.database))
    request = JobRequest(
        book_id=japanese, kind=JobKind.TRANSLATION, concurrency=1, chunk_chars=2000
    )

    asyncio.run(stop_after_first_chunk(service, request, connected(fake_model, "native")))
    [job] = jobs.for_book(japanese)
    before = ChunkStore(library.database).items(job.id)

    # When it is resumed with chunks of 600 characters
    outcome, events = translate(
        library, connected(fake_model, "native"), japanese, concurrency=1, chunk_chars=600
    )

    # Then its chunks waiting to run were planned again at that size, and it went on to the end
    started = events[0]
    assert isinstance(started, JobStarted)
    assert started.resumed
    assert started.chunks > len(before)
    paragraphs = {p.id: p for p in library.whole_book(japanese).chapters[0].paragraphs}
    after = ChunkStore(library.database).items(job.id)
    assert after[0].planned == before[0].planned
    for item in after[1:]:
        chars = sum(len(paragraphs[pid].text) for pid in item.planned.paragraph_ids)
        assert chars <= 600 or len(item.planned.paragraph_ids) == 1
    assert all(item.status is ChunkStatus.DONE for item in after)
    assert outcome.ok
    assert_aligned(library, japanese)
