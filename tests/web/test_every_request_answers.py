"""Every request answers while heavy work runs: a trial's chrF++ over a long reference, its
side-by-side page, two long versions compared, a book exported. The probe found every
``GET /api/trials/ID`` of a trial with 37 paragraphs of 20,000 characters and 8 models taking
5.3 s of CPU on the event loop (chrF++ again on each poll, which the trial page sends every 2 s),
every other request waiting meanwhile. Here a sample whose chrF++ takes a second or two (random
characters, chrF++'s most costly text: 37 paragraphs of 2,000 for 2 models), which a held loop
makes ``/api/books`` wait for. Against the workbench served in this process.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import pytest

from honyaku.application import Honyaku
from honyaku.application import trials as trial_rules
from honyaku.domain import BookDraft, ChapterDraft, TranslationKind

from .conftest import served_here

PARAGRAPHS = 37
PARAGRAPH_CHARS = 2_000
MODELS = 2
ANSWER_S = 1.0
"""What ``/api/books`` may take while heavy work runs: it takes milliseconds alone; a loop
held by one poll's chrF++ (seconds) makes it wait that long."""
HANZI = [chr(code) for code in range(0x4E00, 0x4E00 + 2500)]


def text(seed: int, chars: int) -> str:
    return "".join(random.Random(seed).choices(HANZI, k=chars))


@pytest.fixture(scope="module")
def long_texts() -> list[str]:
    """The sample's translations and references: random, so chrF++ has all to count."""
    return [text(n, PARAGRAPH_CHARS) for n in range(PARAGRAPHS * (MODELS + 1))]


@pytest.fixture
def long_trial(honyaku: Honyaku, long_texts: list[str]) -> tuple[str, str]:
    """A book of 37 paragraphs, and a trial of 2 models on it whose
    versions and reference are all there: its book's id and its own."""
    stores = honyaku.stores
    source = tuple(f"第{n}段。" + "雨" * 200 for n in range(PARAGRAPHS))
    book = stores.library.add_book(
        BookDraft("長い試し", (ChapterDraft("第一章", source),)), source_lang="ja", target_lang="zh"
    )
    ids = [p.id for p in stores.library.whole_book(book).chapters[0].paragraphs]
    copies = []
    for model in range(MODELS):
        copy = stores.library.copy_for_trial(book, [1])
        versions = long_texts[model * PARAGRAPHS : (model + 1) * PARAGRAPHS]
        stores.library.add_translations(
            copy, dict(zip(ids, versions, strict=True)), kind=TranslationKind.TRANSLATION
        )
        copies.append((f"model-{model}", copy))
    reference = dict(zip(ids, long_texts[MODELS * PARAGRAPHS :], strict=True))
    trial = stores.trials.add(book, [1], 7, copies, reference)
    return book, trial.id


@pytest.fixture
def workbench(honyaku: Honyaku) -> Iterator[str]:
    with served_here(honyaku) as (url, _):
        yield url


def test_books_answer_within_a_second_while_heavy_routes_run_and_chrf_is_computed_once(
    workbench: str,
    honyaku: Honyaku,
    long_trial: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = workbench
    book, trial = long_trial
    scored = counted(monkeypatch)
    paragraph = honyaku.stores.library.whole_book(book).chapters[0].paragraphs[0].id
    old, new = (
        versions_of(url, book, paragraph, text(1000 + n, PARAGRAPH_CHARS)) for n in range(2)
    )
    heavy = [
        f"/api/trials/{trial}",
        f"/trials/{trial}",
        f"/api/books/{book}/paragraphs/{paragraph}/diff?old={old}&new={new}",
        f"/api/books/{book}/export?format=txt&bilingual=true",
    ]

    # When the heavy routes are asked, each twice at once, and /api/books meanwhile
    waits: list[float] = []
    with httpx2.Client(base_url=url, timeout=120) as client, ThreadPoolExecutor(8) as pool:
        done = threading.Event()
        answers = [pool.submit(client.get, path) for path in heavy * 2]
        watcher = pool.submit(timed, client, "/api/books", waits, done)
        for answer in answers:
            assert answer.result().status_code == 200, answer.result().text[:300]
        done.set()
        watcher.result()
        # Then the trial's figures, asked again, are the same and come from what was kept
        again, took_again = timed_get(client, f"/api/trials/{trial}")

    assert len(waits) >= 3, "the heavy routes ended before /api/books was asked twice"
    assert max(waits) < ANSWER_S, f"/api/books waited {max(waits):.2f} s: {waits}"
    assert scored == [PARAGRAPHS] * MODELS  # once a model, whatever the polls
    chrf = [result["chrf"] for result in again["results"]]
    assert all(isinstance(score, float) for score in chrf)
    assert took_again < ANSWER_S


def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pairs each chrF++ computation scored, as the trials compute them."""
    scored: list[int] = []
    score = trial_rules.chrf_plus_plus

    def counting(translations: Any, references: Any) -> float | None:
        scored.append(len(translations))
        return score(translations, references)

    monkeypatch.setattr(trial_rules, "chrf_plus_plus", counting)
    return scored


def versions_of(url: str, book: str, paragraph: str, version: str) -> int:
    """A version written by hand; its id."""
    written = httpx2.post(
        f"{url}/api/books/{book}/paragraphs/{paragraph}/versions", json={"text": version}
    )
    assert written.status_code == 201, written.text
    return max(v["id"] for v in written.json())


def timed(client: httpx2.Client, path: str, waits: list[float], done: threading.Event) -> None:
    """``path`` asked again and again until ``done``: how long each answer took."""
    while not done.is_set():
        _, took = timed_get(client, path)
        waits.append(took)
        time.sleep(0.05)


def timed_get(client: httpx2.Client, path: str) -> tuple[Any, float]:
    started = time.monotonic()
    answer = client.get(path)
    took = time.monotonic() - started
    assert answer.status_code == 200, answer.text
    return answer.json(), took
