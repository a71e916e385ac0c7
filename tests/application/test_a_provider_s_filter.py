"""A provider whose filter refuses a chapter: the chapter fails for that reason, at once.

The fake servers filter as Azure OpenAI and Gemini do: a request holding the word 血 is
refused, at its prompt or midway through its reply. The chapter that holds it fails with
the filter's reason on its first request, neither retried nor nudged as a model that stopped
early; the other chapter is translated.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest

from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.domain import JobKind
from honyaku.jobs import JobFinished, JobRequest
from honyaku.store import Library
from honyaku.testing import (
    Blocked,
    ContentFilter,
    FakeGeminiServer,
    FakeLLMServer,
    pseudo_translation,
)

from ..conftest import novel

WORD = "血"
FILTERED = "第2章の2番目の段落。彼は血を流した。"
WAYS = [
    ("openai", ToolProtocol.NATIVE, Blocked.REPLY),
    ("openai", ToolProtocol.NATIVE, Blocked.PROMPT),
    ("openai", ToolProtocol.XML, Blocked.REPLY),
    ("gemini", ToolProtocol.NATIVE, Blocked.REPLY),
    ("gemini", ToolProtocol.NATIVE, Blocked.PROMPT),
]
REASONS = {
    "openai": "refused by the provider's filter (content_filter: violence)",
    "gemini": "refused by the provider's filter (SAFETY: HARM_CATEGORY_DANGEROUS_CONTENT)",
}


@pytest.fixture
def book_id(library: Library) -> str:
    draft = novel(chapters=2, paragraphs=6)
    second = draft.chapters[1]
    paragraphs = list(second.paragraphs)
    paragraphs[2] = FILTERED
    chapters = (draft.chapters[0], replace(second, paragraphs=tuple(paragraphs)))
    return library.add_book(
        replace(draft, chapters=chapters), source_lang="ja", target_lang="zh-CN"
    )


@contextmanager
def filtering(api: str, blocked: Blocked) -> Iterator[FakeLLMServer | FakeGeminiServer]:
    """The fake server of ``api`` (a provider kind's name), refusing any request with WORD."""
    rule = ContentFilter(words={WORD}, blocked=blocked)
    server = FakeGeminiServer(filter=rule) if api == "gemini" else FakeLLMServer(filter=rule)
    with server:
        yield server


@pytest.mark.parametrize(
    ("api", "protocol", "blocked"), WAYS, ids=[f"{a}-{p.value}-{b.value}" for a, p, b in WAYS]
)
def test_a_chapter_the_filter_refuses_fails_for_that_reason_without_a_retry_or_a_nudge(
    honyaku: Honyaku,
    library: Library,
    book_id: str,
    api: str,
    protocol: ToolProtocol,
    blocked: Blocked,
):
    with filtering(api, blocked) as server:
        model = ModelChoice("fake-model", server.url, protocol=protocol, provider=api)
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION)

        async def run() -> JobFinished:
            events = [event async for event in honyaku.jobs.run(request, model)]
            assert isinstance(events[-1], JobFinished)
            return events[-1]

        finished = asyncio.run(run())

    [failure] = finished.outcome.failures
    assert failure.reason == REASONS[api]
    assert server.filtered == 1
    holding_the_word = [body for body in server.requests if WORD in str(body)]
    assert len(holding_the_word) == 1, "the refused request was sent again"
    first, second = library.whole_book(book_id).chapters
    assert all(p.translation == pseudo_translation(p.text) for p in first.work_paragraphs)
    assert all(p.translation is None for p in second.work_paragraphs)
