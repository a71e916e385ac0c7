"""Requests at the edges get a clear answer and change nothing: numbers past any book, tags
that are not languages, endless costs, uploads larger than any book, methods a route does not
take, keys in addresses; a busy job's events come a few a second. Against the workbench served
in this process."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator

import httpx2
import pytest

from honyaku.application import Honyaku
from honyaku.jobs.launcher import CLOCKS, WATCH_INTERVAL_S
from honyaku.store import Library
from honyaku.testing import FakeLLMServer, ScriptedTranslator
from honyaku.web import Workbench

from ..conftest import novel
from .conftest import served_here

HUGE = 2**70


@pytest.fixture
def local(honyaku: Honyaku) -> Iterator[tuple[str, Workbench]]:
    with served_here(honyaku) as served:
        yield served


def test_numbers_past_any_book_are_refused_as_invalid_not_a_failure(local, book_id):
    url, _ = local

    answers = [
        httpx2.get(f"{url}/api/books/{book_id}/chapters/{HUGE}"),
        httpx2.get(f"{url}/books/{book_id}/chapters/{HUGE}"),
        httpx2.get(f"{url}/api/books/{book_id}/chapters/1?start={HUGE}"),
        httpx2.post(f"{url}/api/books/{book_id}/paragraphs/abcdefab/versions/{HUGE}/select"),
    ]

    assert [a.status_code for a in answers] == [422, 422, 422, 422]
    assert all(
        isinstance(a.json()["detail"], str) for a in answers if "json" in a.headers["content-type"]
    )


@pytest.mark.parametrize("tag", ["../../etc", "ja\x01", "Japanese"])
def test_a_book_in_a_language_that_is_no_tag_is_refused_and_nothing_is_imported(
    local, library, tag
):
    url, _ = local

    answer = httpx2.post(
        f"{url}/api/books",
        files={"file": ("story.txt", "本文。\n".encode())},
        data={"source_lang": tag},
    )

    assert answer.status_code == 400
    assert "not a language tag" in answer.json()["detail"]
    assert library.list_books() == []


def test_an_endless_spending_cap_is_refused(local, book_id, library):
    url, _ = local

    answer = httpx2.patch(
        f"{url}/api/books/{book_id}/settings",
        content=b'{"max_cost": Infinity}',
        headers={"Content-Type": "application/json"},
    )

    assert answer.status_code == 422
    assert library.settings(book_id).max_cost is None


def test_an_upload_that_says_it_is_too_large_is_refused_before_it_is_read(local, library):
    url, bench = local
    bench.upload_limit_bytes = 1000

    def body() -> Iterator[bytes]:
        for _ in range(64):
            yield b"x" * 65536

    answer = httpx2.post(
        f"{url}/api/books",
        content=body(),
        headers={
            "Content-Type": "multipart/form-data; boundary=x",
            "Content-Length": str(64 * 65536),
        },
    )

    assert answer.status_code == 413
    assert "larger than" in answer.json()["detail"]
    assert library.list_books() == []


def test_an_upload_of_unknown_size_is_refused_once_it_passes_the_cap(local, library):
    url, bench = local
    bench.upload_limit_bytes = 1000
    chunk = b"--x\r\nContent-Disposition: form-data; name=file; filename=a.txt\r\n\r\n"

    def body() -> Iterator[bytes]:
        yield chunk
        for _ in range(64):  # 4 MB, past the cap and its room for the form's fields
            yield "本文。\n".encode() * 7000

    answer = httpx2.post(
        f"{url}/api/books",
        content=body(),
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )

    assert answer.status_code == 413
    assert library.list_books() == []


def test_an_invalid_request_answers_the_shape_the_api_describes(local):
    url, _ = local

    answer = httpx2.post(f"{url}/api/models", json={"name": "x"})
    described = httpx2.get(f"{url}/openapi.json").json()

    assert answer.status_code == 422
    assert set(answer.json()) == {"detail"}
    assert isinstance(answer.json()["detail"], str)
    invalid = described["paths"]["/api/models"]["post"]["responses"]["422"]
    assert invalid["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Problem"
    }


def test_head_answers_as_get_and_a_method_not_taken_says_which_are(local):
    url, _ = local

    head = httpx2.head(f"{url}/")
    post = httpx2.post(f"{url}/api/questions")

    assert head.status_code == 200
    assert head.content == b""
    assert post.status_code == 405
    assert post.headers["allow"] == "GET, HEAD"


def test_every_address_allows_exactly_the_methods_its_description_lists(local):
    url, _ = local
    described = httpx2.get(f"{url}/openapi.json").json()["paths"]

    allowed = {
        path: httpx2.request("OPTIONS", url + path.replace("{", "x").replace("}", "")).headers[
            "allow"
        ]
        for path in described
    }

    assert allowed == {path: _methods_listed(operations) for path, operations in described.items()}


def _methods_listed(operations: dict) -> str:
    methods = {method.upper() for method in operations}
    return ", ".join(sorted(methods | ({"HEAD"} if "GET" in methods else set())))


def test_a_profile_cannot_take_a_word_the_models_addresses_use(local):
    url, _ = local

    answer = httpx2.post(f"{url}/api/models", json={"name": "check", "model": "m"})
    removal = httpx2.delete(f"{url}/api/models/presets")

    assert answer.status_code == 422
    assert "keeps for itself" in answer.json()["detail"]
    assert removal.status_code == 405


def test_a_key_in_a_model_servers_address_is_refused_and_not_stored(local):
    url, _ = local
    profile = {
        "name": "leaky",
        "model": "m",
        "base_url": "http://127.0.0.1:9/v1?api_key=sk-secret1234",
    }

    answer = httpx2.post(f"{url}/api/models", json=profile)
    listed = httpx2.get(f"{url}/api/models").text + httpx2.get(f"{url}/models").text

    assert answer.status_code == 422
    assert "sk-secret1234" not in answer.text
    assert "sk-secret1234" not in listed
    assert "Value error" not in answer.text


def test_the_language_comes_from_the_browser_or_the_persons_choice(local):
    url, _ = local

    chinese = httpx2.get(f"{url}/", headers={"Accept-Language": "ja;q=0.5, zh-CN, en;q=0.8"})
    chosen = httpx2.get(f"{url}/language/ja?next=/jobs", follow_redirects=False)
    remembered = httpx2.get(
        f"{url}/jobs", cookies=dict(chosen.cookies), headers={"Accept-Language": "zh"}
    )
    elsewhere = httpx2.get(f"{url}/language/en?next=//attacker.example/", follow_redirects=False)

    assert '<html lang="zh-CN">' in chinese.text
    assert "书库" in chinese.text
    assert (chosen.status_code, chosen.headers["location"]) == (303, "/jobs")
    assert '<html lang="ja">' in remembered.text
    assert "ジョブ" in remembered.text
    assert elsewhere.headers["location"] == "/"


def test_an_error_speaks_the_persons_language(local):
    url, _ = local

    answer = httpx2.get(f"{url}/nowhere", headers={"Accept-Language": "zh-CN"})
    api = httpx2.get(f"{url}/api/nowhere", headers={"Accept-Language": "ja"})

    assert answer.status_code == 404
    assert "这个地址什么也没有" in answer.text
    assert api.json() == {"detail": "このアドレスには何もありません"}
    missing = httpx2.get(f"{url}/api/books/deadbeef", headers={"Accept-Language": "zh-CN"})
    assert missing.json() == {"detail": "没有 id 为 'deadbeef' 的书"}


def test_errors_the_terminal_would_mend_with_a_command_name_none_here(local, library):
    url, _ = local
    czech = "Kapitola 1\nByl jednou jeden král, který měl tři dcery.\nŘekl jí, že musí jít.\n"

    unknown_encoding = httpx2.post(
        f"{url}/api/books", files={"file": ("kniha.txt", czech.encode("cp1250"))}
    )
    unknown_book = httpx2.get(f"{url}/api/books/ffffffff/glossary")

    for answer in (unknown_encoding, unknown_book):
        assert 400 <= answer.status_code < 500
        detail = answer.json()["detail"]
        assert "--" not in detail
        assert "honyaku " not in detail
    assert unknown_encoding.json()["detail"].startswith("kniha.txt: ")
    assert library.list_books() == []


def test_a_busy_jobs_events_come_a_few_a_second_each_with_news(local, library: Library):
    # Given a book of many small parts and a model that answers at once, a paragraph a call
    url, _ = local
    book_id = library.add_book(novel(chapters=6, paragraphs=20), source_lang="ja", target_lang="zh")
    library.update_settings(book_id, chunk_chars=200)
    with FakeLLMServer(translator=ScriptedTranslator(batch_size=1)) as model:
        profile = {"name": "quick", "model": "fake-translator", "base_url": model.url}
        httpx2.post(f"{url}/api/models", json={**profile, "protocol": "native"})
        started = httpx2.post(
            f"{url}/api/books/{book_id}/jobs", json={"kind": "translation", "model": "quick"}
        )
        assert started.status_code == 201, started.text

        # When its page follows it from start to end
        progress, began = [], time.monotonic()
        events = f"{url}/api/jobs/{started.json()['id']}/events"
        with httpx2.stream("GET", events, timeout=60) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:") and '"progress"' in line:
                    progress.append(json.loads(line.removeprefix("data:")))
        took_s = time.monotonic() - began

    # Then it got the figures no oftener than the watch interval, and each time with news
    counted = [{k: v for k, v in p.items() if k not in CLOCKS} for p in progress]
    assert progress[-1]["status"] == "finished"
    assert len(model.requests) > 50  # a busy job: paragraphs submitted one by one
    assert len(progress) <= took_s / WATCH_INTERVAL_S + 2
    assert all(before != after for before, after in itertools.pairwise(counted))
