"""Trials: models tried on the same sample of the translator's own book, each on its own copy,
compared by what their servers saw, judged blind, and taken into the book only when the
translator says so. Over real HTTP with the fake model servers."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Any

import pytest
from sqlalchemy import func, select

from honyaku.application import Honyaku
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.domain.model_profile import ModelProfile
from honyaku.domain.trial import blind_order
from honyaku.errors import ConfigError
from honyaku.llm.demo.translator import WorkLine
from honyaku.store.schema import BookRow
from honyaku.store.trials import Trial
from honyaku.testing import (
    FakeLLMServer,
    Fault,
    FaultKind,
    Mistake,
    ScriptedTranslator,
    hanzi_translation,
)

CHAPTERS = 3
LINES = ("下人は羅生門の下で雨やみを待っていた。", "広い門の下には、この男のほかに誰もいない。")


@pytest.fixture
def book_id(honyaku: Honyaku) -> str:
    chapters = tuple(
        ChapterDraft(f"第{n}章", tuple(f"{n}-{i}:{line}" for i, line in enumerate(LINES)))
        for n in range(1, CHAPTERS + 1)
    )
    draft = BookDraft("羅生門", chapters)
    return honyaku.stores.library.add_book(draft, source_lang="ja", target_lang="zh-CN")


def save(
    honyaku: Honyaku, name: str, server: FakeLLMServer, *, declared: bool = False, **more: Any
) -> str:
    profile = ModelProfile(
        name=name,
        model="fake-translator",
        base_url=server.url,
        protocol="native",
        input_price=1.0,
        output_price=4.0,
        **more,
    )
    asyncio.run(honyaku.models.save(profile, declared=declared))
    return name


def tried(honyaku: Honyaku, book_id: str, models: list[str], **options: Any) -> Trial:
    """A trial started and waited for to its end, in one event loop as a front end would."""

    async def trial() -> Trial:
        started = await honyaku.trials.start(book_id, models, **options)
        for entry in started.entries:
            assert entry.job_id
            await wait(honyaku, entry.job_id)
        return started

    return asyncio.run(trial())


def refused_by_id(server: FakeLLMServer) -> int:
    """The tool calls the server was told were refused, each counted once: by conversation
    (its task, the first message from the user) and call id."""
    refused = {}
    for body in server.requests:
        task = next(m["content"] for m in body["messages"] if m["role"] == "user")
        for message in body["messages"]:
            if message["role"] == "tool":
                result = json.loads(message["content"])
                refused[task, message["tool_call_id"]] = result.get("success") is False
    return sum(refused.values())


def test_a_trial_reports_for_each_model_what_its_server_logged_and_leaves_the_book_alone(
    honyaku: Honyaku, book_id: str
) -> None:
    # Given a model that makes mistakes and meets server errors, and one that does neither
    careless = ScriptedTranslator(
        translate=hanzi_translation, mistakes={Mistake.WRONG_STATUS_MOVE, Mistake.DUPLICATE_ID}
    )
    faults = deque([Fault(FaultKind.SERVER_ERROR), Fault(FaultKind.SERVER_ERROR)])
    with (
        FakeLLMServer(translator=careless, faults=faults) as sloppy,
        FakeLLMServer() as clean,
    ):
        models = [save(honyaku, "sloppy", sloppy), save(honyaku, "clean", clean)]

        # When both are tried on the first two chapters
        trial = tried(honyaku, book_id, models, chapters=[1, 2])
        comparison = asyncio.run(honyaku.trials.compare(trial.id))

    # Then each reports exactly the refused calls and the retries its server logged
    sloppy_result, clean_result = comparison.results
    assert sum(sloppy_result.rejected_calls.values()) == refused_by_id(sloppy) > 0
    assert sloppy_result.retries == 2
    assert sloppy_result.requests == len(sloppy.requests) - 2
    assert clean_result.rejected_calls == {}
    assert clean_result.retries == 0
    assert clean_result.requests == len(clean.requests)
    for result in comparison.results:
        assert result.paragraphs == result.paragraphs_done == 4
        assert result.status == "finished"
        assert result.tokens.output > 0
        assert result.billed is not None
        assert result.billed > 0
    # And the book's own translations are untouched, its library shows no copy
    book = asyncio.run(honyaku.books.whole(book_id))
    assert all(p.translation is None for c in book.chapters for p in c.paragraphs)
    assert [b.id for b in asyncio.run(honyaku.books.all())] == [book_id]


def test_use_these_takes_one_models_versions_into_the_book_and_makes_it_the_default(
    honyaku: Honyaku, book_id: str
) -> None:
    with FakeLLMServer() as first, FakeLLMServer(translator=ScriptedTranslator()) as second:
        models = [save(honyaku, "first", first), save(honyaku, "second", second)]
        trial = tried(honyaku, book_id, models, chapters=[2])

    # When the translator takes the second model's versions
    used = asyncio.run(honyaku.trials.use(trial.id, "second", fallbacks=["first"]))

    # Then chapter 2 holds them, selected, with its title and the warnings the checks gave
    # them (the model's pseudo translations keep their kana); chapters 1 and 3 are as they were
    book = asyncio.run(honyaku.books.whole(book_id))
    first_chapter, second_chapter, third = book.chapters
    assert used == 2
    assert all(p.translation for p in second_chapter.paragraphs)
    assert second_chapter.translated_title
    flagged = asyncio.run(honyaku.books.flagged(book_id))
    assert {f.paragraph_id for f in flagged} == {p.id for p in second_chapter.paragraphs}
    assert all(p.translation is None for p in first_chapter.paragraphs + third.paragraphs)
    settings = asyncio.run(honyaku.settings.get(book_id))
    assert (settings.model, settings.fallbacks) == ("second", ["first"])
    assert asyncio.run(honyaku.trials.get(trial.id)).used == "second"


def judge_by_text(line: WorkLine) -> dict[str, Any]:
    """Scores a version 2 where it is in Chinese characters (the careless model), else 5."""
    low = line.translation == hanzi_translation(line.text)
    return {
        "paragraph_id": line.paragraph_id,
        "score": 2 if low else 5,
        "issues": [],
        "comment": "",
    }


def test_a_judge_rates_every_models_versions_blind_in_the_order_the_seed_gives(
    honyaku: Honyaku, book_id: str
) -> None:
    # Given two models tried on the whole book
    with (
        FakeLLMServer(translator=ScriptedTranslator(translate=hanzi_translation)) as a,
        FakeLLMServer() as b,
    ):
        models = [save(honyaku, "hanzi", a), save(honyaku, "plain", b)]
        trial = tried(honyaku, book_id, models, chapters=[1, 2, 3], seed=11)

    # When a judge rates them
    with FakeLLMServer(translator=ScriptedTranslator(rate=judge_by_text)) as judge:
        save(honyaku, "judge", judge)
        judged = asyncio.run(judged_to_the_end(honyaku, trial.id, "judge"))
        first_request = judge.requests[0]
    comparison = asyncio.run(honyaku.trials.compare(trial.id))

    # Then the judge read no model's name, each paragraph's versions in the seed's order
    assert "hanzi" not in json.dumps(first_request)
    assert "plain" not in json.dumps(first_request)
    assert judged.blind is not None
    seen = [(b.paragraph_id, b.entry) for b in judged.blind.values()]
    book = asyncio.run(honyaku.books.whole(book_id))
    expected = [
        (p.id, entry)
        for c in book.chapters
        for p in c.paragraphs
        for entry in blind_order(11, p.id, 2)
    ]
    assert seen == expected
    # And the comparison has each model's mean and share of low scores
    hanzi, plain = comparison.results
    assert (hanzi.judged.mean, hanzi.judged.low_share) == (2.0, 1.0)
    assert (plain.judged.mean, plain.judged.low_share) == (5.0, 0.0)


async def judged_to_the_end(honyaku: Honyaku, trial_id: str, judge: str) -> Trial:
    judged = await honyaku.trials.judge(trial_id, judge)
    assert judged.judge_job_id
    await wait(honyaku, judged.judge_job_id)
    return judged


async def wait(honyaku: Honyaku, job_id: str) -> None:
    """Until the job ends: its figures are followed until then."""
    async for _ in honyaku.jobs.watch(job_id):
        pass


def test_the_blind_order_is_random_but_the_same_for_the_same_seed() -> None:
    ids = [f"p{n:03d}" for n in range(40)]
    orders = [tuple(blind_order(7, pid, 3)) for pid in ids]
    assert orders == [tuple(blind_order(7, pid, 3)) for pid in ids]
    assert len(set(orders)) > 1
    assert orders != [tuple(blind_order(8, pid, 3)) for pid in ids]
    assert all(sorted(order) == [0, 1, 2] for order in orders)


def test_a_model_whose_key_is_missing_stops_the_trial_before_anything_is_copied(
    honyaku: Honyaku, book_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HONYAKU_TRIAL_KEY", raising=False)
    with FakeLLMServer() as server:
        save(honyaku, "keyed", server, declared=True, api_key_env="HONYAKU_TRIAL_KEY")
        save(honyaku, "open", server)

        with pytest.raises(ConfigError, match="HONYAKU_TRIAL_KEY"):
            asyncio.run(honyaku.trials.start(book_id, ["open", "keyed"]))

    assert asyncio.run(honyaku.trials.of_book(book_id)) == []
    with honyaku.stores.database.transaction() as session:
        assert session.scalar(select(func.count()).select_from(BookRow)) == 1
