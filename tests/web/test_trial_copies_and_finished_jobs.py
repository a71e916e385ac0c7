"""The smaller findings of the second probe, each now refused or fixed: a trial's copy showed in
``GET /api/jobs/{id}`` and could be deleted (the trial then answered 404), a trial of a trial's
copy was allowed, "use" saved a book whose fallback was its own model, a reference holding NUL
was accepted, a finished job's ``elapsed_s`` kept growing; and an error nobody expected while a
model opened left its job's start waiting for ever. Against the workbench served here."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from honyaku.application import Honyaku
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.errors import NotFoundError
from honyaku.llm import models
from honyaku.llm.models import ProviderKind

from .conftest import served_here

WAIT_S = 60.0
START_ANSWER_S = 20.0


@pytest.fixture
def workbench(honyaku: Honyaku) -> Iterator[str]:
    with served_here(honyaku) as (url, _):
        yield url


@pytest.fixture
def book(honyaku: Honyaku) -> str:
    draft = BookDraft("試し", (ChapterDraft("第一章", ("彼は歩いた。", "雨が降った。")),))
    return honyaku.stores.library.add_book(draft, source_lang="ja", target_lang="zh-CN")


def ended(url: str, job: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = httpx2.get(f"{url}/api/jobs/{job}").json()
        if found["status"] in ("finished", "failed", "interrupted") and not found["running_here"]:
            return found
        time.sleep(0.05)
    raise AssertionError(f"job {job} did not end: {found}")


def test_a_trials_copy_is_hidden_everywhere_and_kept_from_deletion(
    workbench: str, honyaku: Honyaku, book: str
) -> None:
    url = workbench
    # Given a trial of the demo model, ended
    trial = httpx2.post(f"{url}/api/books/{book}/trials", json={"models": ["demo"]}).json()
    job = trial["entries"][0]["job_id"]
    ended(url, job)
    copy = honyaku.stores.trials.get(trial["id"]).entries[0].book_id

    # When its job is read, and its copy asked for, changed, tried and deleted
    shown = httpx2.get(f"{url}/api/jobs/{job}").json()
    page = httpx2.get(f"{url}/jobs/{job}")
    asked = [
        httpx2.get(f"{url}/api/books/{copy}"),
        httpx2.get(f"{url}/books/{copy}"),
        httpx2.get(f"{url}/api/jobs", params={"book_id": copy}),
        httpx2.patch(f"{url}/api/books/{copy}/settings", json={"skip_ask_user": True}),
        httpx2.post(f"{url}/api/books/{copy}/trials", json={"models": ["demo"]}),
        httpx2.post(f"{url}/api/books/{copy}/jobs", json={"kind": "polish", "model": "demo"}),
        httpx2.delete(f"{url}/api/books/{copy}"),
    ]

    # Then the job is the book's, the copy is no book to anyone, and the trial is whole
    assert shown["book_id"] == book
    assert f"/books/{book}" in page.text
    assert copy not in page.text
    assert [answer.status_code for answer in asked] == [404] * len(asked)
    assert all(copy not in answer.text or "no book" in answer.text for answer in asked)
    assert httpx2.get(f"{url}/api/trials/{trial['id']}").status_code == 200
    assert [b["id"] for b in httpx2.get(f"{url}/api/books").json()] == [book]
    for refused in (honyaku.books.delete(copy), honyaku.trials.start(copy, ["demo"])):
        with pytest.raises(NotFoundError, match="no book with id"):
            asyncio.run(refused)


def test_no_model_is_its_own_fallback_when_saved_used_or_started(workbench: str, book: str) -> None:
    url = workbench
    trial = httpx2.post(f"{url}/api/books/{book}/trials", json={"models": ["demo"]}).json()
    ended(url, trial["entries"][0]["job_id"])
    profile = {"name": "alone", "model": "demo", "fallbacks": ["alone"]}
    assert httpx2.post(f"{url}/api/models", json={**profile, "fallbacks": []}).status_code == 201

    saved = httpx2.post(f"{url}/api/models", json=profile)
    used = httpx2.post(
        f"{url}/api/trials/{trial['id']}/use", json={"model": "demo", "fallbacks": ["demo"]}
    )
    started = httpx2.post(
        f"{url}/api/books/{book}/jobs",
        json={"kind": "translation", "model": "alone", "fallbacks": ["alone"]},
    )

    assert saved.status_code == 422
    assert "cannot be its own fallback" in saved.json()["detail"]
    assert used.status_code == started.status_code == 400
    assert used.json()["detail"] == started.json()["detail"] == "a model cannot be its own fallback"
    assert httpx2.get(f"{url}/api/books/{book}").json()["settings"]["fallbacks"] == []


def test_a_reference_holding_nul_is_refused_as_every_text_is(workbench: str, book: str) -> None:
    answer = httpx2.post(
        f"{workbench}/api/books/{book}/trials",
        json={"models": ["demo"], "reference": ["他走\u0000了。", "下雨了。"]},
    )

    assert answer.status_code == 400
    assert answer.json()["detail"] == "text cannot hold the NUL character (U+0000)"
    assert httpx2.get(f"{workbench}/api/books/{book}/trials").json() == []


def test_a_finished_jobs_elapsed_time_stays_what_it_took(workbench: str, book: str) -> None:
    started = httpx2.post(
        f"{workbench}/api/books/{book}/jobs", json={"kind": "translation", "model": "demo"}
    )
    first = ended(workbench, started.json()["id"])
    time.sleep(0.3)
    again = httpx2.get(f"{workbench}/api/jobs/{started.json()['id']}").json()

    assert first["status"] == "finished"
    assert first["elapsed_s"] is not None
    assert again["elapsed_s"] == first["elapsed_s"]


def test_an_error_nobody_expected_while_a_model_opens_fails_its_start_in_one_line(
    workbench: str, book: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a provider whose opening fails as an HTTP client does on a header it cannot encode
    def broken(*_: object) -> Any:
        "sk-秘密".encode("ascii")

    kind = ProviderKind("broken", "fails as it opens", "http://127.0.0.1:9/v1", (), broken)
    monkeypatch.setitem(models.PROVIDER_KINDS, "broken", kind)
    profile = {"name": "broken", "model": "m", "provider": "broken", "protocol": "native"}
    assert httpx2.post(f"{workbench}/api/models", json=profile).status_code == 201

    # When a job and a trial are started with it
    started = time.monotonic()
    job = httpx2.post(
        f"{workbench}/api/books/{book}/jobs",
        json={"kind": "translation", "model": "broken"},
        timeout=START_ANSWER_S * 2,
    )
    trial = httpx2.post(
        f"{workbench}/api/books/{book}/trials",
        json={"models": ["broken"]},
        timeout=START_ANSWER_S * 2,
    )
    took = time.monotonic() - started

    # Then each answers at once, in one line that says what broke and nothing of it
    assert took < START_ANSWER_S
    for answer in (job, trial):
        assert answer.status_code == 500
        assert answer.json()["detail"] == (
            "the job stopped on an unexpected error (UnicodeEncodeError); the log has the details"
        )
    assert httpx2.get(f"{workbench}/api/books/{book}/trials").json() == []
