"""A profile served at several endpoints, over real fake servers: a job spreads its requests,
a dead endpoint is rested, a rate-limited one is left alone as long as it asked, and no key
shows in the logs."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from honyaku.application import Honyaku, JobStatus
from honyaku.domain import JobKind
from honyaku.domain.model_profile import Endpoint, ModelProfile
from honyaku.jobs import JobFinished, JobRequest
from honyaku.store import Library
from honyaku.testing import FakeLLMServer, pseudo_translation

from ..conftest import novel

CHAPTERS = 8
PART_CHARS = 50
"""Parts of 50 characters: each chapter (about 60) has two, and none shares a conversation
with another."""

FIRST_KEY, SECOND_KEY = "sk-first-0123456789abcdef", "sk-second-0123456789abcdef"


@pytest.fixture
def book_id(library: Library) -> str:
    """Two parts a chapter (``PART_CHARS``), so that the requests can spread."""
    return library.add_book(
        novel(chapters=CHAPTERS, paragraphs=4), source_lang="ja", target_lang="zh-CN"
    )


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIRST_KEY", FIRST_KEY)
    monkeypatch.setenv("SECOND_KEY", SECOND_KEY)


def closed_port_url() -> str:
    """An address where nothing listens: connections are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def translate(honyaku: Honyaku, book_id: str, profile: ModelProfile) -> JobFinished:
    async def run() -> JobFinished:
        await honyaku.models.save(profile, declared=True)
        model = await honyaku.models.saved(profile.name)
        request = JobRequest(
            book_id=book_id, kind=JobKind.TRANSLATION, concurrency=3, chunk_chars=PART_CHARS
        )
        events = [event async for event in honyaku.jobs.run(request, model)]
        assert isinstance(events[-1], JobFinished)
        return events[-1]

    return asyncio.run(run())


def every_paragraph_translated(honyaku: Honyaku, book_id: str) -> bool:
    book = asyncio.run(honyaku.books.whole(book_id, list(range(1, CHAPTERS + 1))))
    return all(
        p.translation == pseudo_translation(p.text)
        for chapter in book.chapters
        for p in chapter.work_paragraphs
    )


def test_a_job_finishes_on_the_live_endpoint_while_the_dead_one_rests(
    honyaku: Honyaku, book_id: str, keys: None, caplog: pytest.LogCaptureFixture
):
    dead = closed_port_url()
    with FakeLLMServer(api_key=SECOND_KEY) as live:
        profile = ModelProfile(
            name="two-gpus",
            model="fake-translator",
            base_url=dead,
            api_key_env="FIRST_KEY",
            protocol="native",
            more_endpoints=(Endpoint(base_url=live.url, api_key_env="SECOND_KEY"),),
        )
        with caplog.at_level(logging.INFO, logger="honyaku"):
            finished = translate(honyaku, book_id, profile)

    assert finished.outcome.job.status is JobStatus.FINISHED
    assert every_paragraph_translated(honyaku, book_id)
    rests = [r.getMessage() for r in caplog.records if "rests" in r.getMessage()]
    assert rests
    assert all(dead in message for message in rests)
    # Only the requests sent before its first refusal came back met it: then it rested.
    assert len(rests) <= 2 < len(live.requests) / 3
    assert {h["authorization"] for h in live.headers} == {f"Bearer {SECOND_KEY}"}
    assert FIRST_KEY not in caplog.text
    assert SECOND_KEY not in caplog.text


def test_a_rate_limited_endpoint_is_left_as_long_as_it_asked_and_the_load_spreads(
    honyaku: Honyaku, book_id: str, keys: None, caplog: pytest.LogCaptureFixture
):
    with (
        FakeLLMServer(api_key=FIRST_KEY, requests_per_minute=1) as capped,
        FakeLLMServer(api_key=SECOND_KEY, latency_s=0.02) as free,
    ):
        profile = ModelProfile(
            name="two-keys",
            model="fake-translator",
            base_url=capped.url,
            api_key_env="FIRST_KEY",
            protocol="native",
            more_endpoints=(Endpoint(base_url=free.url, api_key_env="SECOND_KEY"),),
        )
        with caplog.at_level(logging.INFO, logger="honyaku"):
            finished = translate(honyaku, book_id, profile)

    assert finished.outcome.job.status is JobStatus.FINISHED
    assert every_paragraph_translated(honyaku, book_id)
    # Its 429's Retry-After (about a minute) outlasts the job: one refusal, then rest.
    assert capped.rate_limited == 1
    assert len(capped.requests) == 1 + 1
    assert len(free.requests) > 1
    assert {h["authorization"] for h in capped.headers} == {f"Bearer {FIRST_KEY}"}
    assert FIRST_KEY not in caplog.text
    assert SECOND_KEY not in caplog.text


def test_a_profile_keeps_its_endpoints_and_lists_them_without_keys(honyaku: Honyaku, keys: None):
    profile = ModelProfile(
        name="keys",
        model="deepseek-chat",
        base_url="https://api.deepseek.com/v1",
        api_key_env="FIRST_KEY",
        more_endpoints=(Endpoint.parse(",SECOND_KEY"), Endpoint.parse("http://gpu2:8000/v1")),
    )

    asyncio.run(honyaku.models.save(profile, declared=True))
    [saved] = asyncio.run(honyaku.models.all())
    choice = asyncio.run(honyaku.models.saved("keys"))

    assert saved == profile
    assert [(e.base_url, e.api_key_env) for e in saved.endpoints] == [
        ("https://api.deepseek.com/v1", "FIRST_KEY"),
        ("https://api.deepseek.com/v1", "SECOND_KEY"),
        ("http://gpu2:8000/v1", "FIRST_KEY"),
    ]
    described = choice.describe()
    assert "2 more endpoints" in described
    assert FIRST_KEY not in described
    assert SECOND_KEY not in described
