"""A key goes only where it was saved for, and a key is never a name: what the second probe
of the workbench found, each now refused. Against the workbench served in this process, its
environment holding secrets, and a listener on another port that keeps every byte it hears.

- The model check sent ``Authorization: Bearer <secret>`` to any address for any variable of
  the server's environment named ``…_KEY``/``…_TOKEN``/``…_SECRET``, for none at all
  (``OPENAI_API_KEY``), for a stored key no profile held, and for a deleted profile's key.
- A key pasted where its name goes was stored in the database and shown back.
- A key that is not ASCII was kept, then failed the check with a 500, and a job or a trial
  started with it never answered.
"""

from __future__ import annotations

import asyncio
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from honyaku.application import Honyaku
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.domain.model_profile import ModelProfile
from honyaku.store.database import DATABASE_FILE
from honyaku.testing import FakeLLMServer

from ..conftest import every_value
from .conftest import served_here

SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI-aws-secret-0f1e2d3c",
    "GITHUB_TOKEN": "ghp_github-token-9a8b7c6d5e4f",
    "OPENAI_API_KEY": "sk-openai-usual-1a2b3c4d5e6f",
    "GEMINI_API_KEY": "AIza-gemini-usual-6f5e4d3c2b1a",
}
STORED = "sk-stored-for-the-real-server-7e8f9a0b"
FREE = "sk-stored-held-by-no-profile-3c4d5e6f"
PASTED = ("sk-proj-Pasted1nto2theName3field4Q", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF")
"""A key with a provider's prefix, and one without (Mistral's are 32 letters and digits)."""
KEY_HEADERS = ("authorization", "x-goog-api-key", "x-api-key")
START_ANSWER_S = 20.0
"""A start answers within seconds: far less than this, even on a loaded machine; a start that
hangs never does."""


class Listener(socketserver.ThreadingTCPServer):
    """A server on another port of 127.0.0.1 that keeps every byte each request brought and
    answers 404: where an attacker would point a model's address."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        self.heard: list[bytes] = []
        super().__init__(("127.0.0.1", 0), _Heard)
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join()


class _Heard(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        assert isinstance(self.server, Listener)
        connection: socket.socket = self.request
        connection.settimeout(5)
        received = b""
        try:
            while b"\r\n\r\n" not in received and (chunk := connection.recv(65536)):
                received += chunk
            head, _, body = received.partition(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ),
                0,
            )
            while len(body) < length and (chunk := connection.recv(65536)):
                body += chunk
            self.server.heard.append(head + b"\r\n\r\n" + body)
            connection.sendall(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
        except OSError:
            self.server.heard.append(received)


@pytest.fixture
def workbench(honyaku: Honyaku, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The workbench served here, its environment holding a secret in each variable."""
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    with served_here(honyaku) as (url, _):
        yield url


def secrets_in(heard: list[bytes]) -> list[str]:
    """Every secret (or key kept in the key store) any request brought, and every key header
    that carried more than the SDKs' stand-in for none (``no-key``)."""
    everything = b"\n".join(heard)
    found = [
        name
        for name, value in {**SECRETS, "STORED": STORED, "FREE": FREE}.items()
        if value.encode() in everything or value[-12:].encode() in everything
    ]
    for request in heard:
        for line in request.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() in KEY_HEADERS and value.strip() not in ("Bearer no-key", "no-key"):
                found.append(line.decode("latin-1"))
    return found


def test_a_listener_on_another_port_hears_no_secret_whatever_the_check_asks(
    workbench: str,
) -> None:
    url = workbench
    # Given a key kept for a real server, bound to it by the profile saved with it, and that
    # profile deleted since; and a key kept that no profile holds
    with FakeLLMServer(api_key=STORED) as real:
        assert httpx2.put(f"{url}/api/keys/REAL_KEY", json={"key": STORED}).status_code == 200
        profile = {"name": "real", "model": "fake-translator", "base_url": real.url}
        saved = httpx2.post(f"{url}/api/models", json={**profile, "key_name": "REAL_KEY"})
        assert saved.status_code == 201, saved.text
        assert httpx2.post(f"{url}/api/models/check", json=saved.json(), timeout=30).json()["works"]
    assert httpx2.delete(f"{url}/api/models/real").status_code == 204
    assert httpx2.put(f"{url}/api/keys/FREE_KEY", json={"key": FREE}).status_code == 200

    # When the check is asked to send each of them, and each variable of the environment,
    # to a listener on another port
    asked = [
        {"key_name": "AWS_SECRET_ACCESS_KEY"},
        {"key_name": "GITHUB_TOKEN"},
        {"api_key_env": "AWS_SECRET_ACCESS_KEY"},
        {"api_key_env": "GITHUB_TOKEN"},
        {},  # no key at all: OPENAI_API_KEY is in the environment
        {"provider": "gemini"},  # GEMINI_API_KEY is
        {"key_name": "OPENAI_API_KEY"},
        {"key_name": "FREE_KEY"},
        {"key_name": "REAL_KEY"},
        {"more_endpoints": [{"base_url": None, "api_key_env": "GITHUB_TOKEN"}]},
    ]
    with Listener() as listener:
        answers = []
        for more in asked:
            body = {"name": "probe", "model": "fake-translator", "base_url": listener.url}
            answers.append(
                httpx2.post(f"{url}/api/models/check", json={**body, **more}, timeout=30)
            )

    # Then it heard requests, but no secret, and no key header at all
    assert listener.heard, "the check sent nothing at all: the listener proves nothing"
    assert secrets_in(listener.heard) == []
    for more, answer in zip(asked, answers, strict=True):
        assert answer.status_code == 200, (more, answer.text)
        assert not answer.json()["works"]
        assert not any(value in answer.text for value in (*SECRETS.values(), STORED, FREE))
    problems = [answer.json()["problem"] for answer in answers]
    assert "read only for the servers a terminal named it for" in problems[2]
    assert "the key FREE_KEY is bound to no server yet" in problems[7]
    assert problems[8].startswith("the key REAL_KEY goes only to http://127.0.0.1:")


def test_a_deleted_profiles_key_stays_bound_and_no_profile_takes_it_elsewhere(
    workbench: str,
) -> None:
    url = workbench
    with FakeLLMServer(api_key=STORED) as real, Listener() as listener:
        httpx2.put(f"{url}/api/keys/REAL_KEY", json={"key": STORED})
        profile = {"name": "real", "model": "fake-translator", "key_name": "REAL_KEY"}
        assert httpx2.post(f"{url}/api/models", json={**profile, "base_url": real.url}).is_success
        httpx2.delete(f"{url}/api/models/real")

        moved = httpx2.post(
            f"{url}/api/models", json={**profile, "name": "lure", "base_url": listener.url}
        )
        variable = httpx2.post(
            f"{url}/api/models",
            json={**profile, "name": "env", "base_url": listener.url, "key_name": None,
                  "api_key_env": "AWS_SECRET_ACCESS_KEY"},
        )  # fmt: skip

    assert moved.status_code == 400
    assert "the key REAL_KEY goes only to http://127.0.0.1:" in moved.json()["detail"]
    assert variable.status_code == 400
    assert "a terminal named it for" in variable.json()["detail"]
    assert [p["name"] for p in httpx2.get(f"{url}/api/models").json()] == []
    assert secrets_in(listener.heard) == []


def test_jobs_and_trials_at_a_listener_send_no_variable_of_the_environment(
    workbench: str, honyaku: Honyaku
) -> None:
    url = workbench
    book = honyaku.stores.library.add_book(_book(), source_lang="ja", target_lang="zh-CN")
    with Listener() as listener:
        # Given profiles at the listener that name variables of the server's environment as
        # their keys' names (which the key store does not hold), or no key at all
        for name, key_name in (("gh", "GITHUB_TOKEN"), ("aws", "AWS_SECRET_ACCESS_KEY")):
            body = {"name": name, "model": "m", "base_url": listener.url, "key_name": key_name}
            assert httpx2.post(f"{url}/api/models", json=body).status_code == 201
        body = {"name": "none", "model": "m", "base_url": listener.url, "protocol": "native"}
        assert httpx2.post(f"{url}/api/models", json=body).status_code == 201

        # When a job and a trial are started with them
        started = time.monotonic()
        job = httpx2.post(
            f"{url}/api/books/{book}/jobs", json={"kind": "translation", "model": "gh"}, timeout=60
        )
        trial = httpx2.post(
            f"{url}/api/books/{book}/trials", json={"models": ["aws", "none"]}, timeout=60
        )
        took = time.monotonic() - started
        keyless = httpx2.post(
            f"{url}/api/books/{book}/jobs",
            json={"kind": "translation", "model": "none"},
            timeout=60,
        )

    # Then each start answers at once in one line, and the listener heard no secret
    assert took < START_ANSWER_S
    assert job.status_code == 400
    assert job.json()["detail"].startswith("no key GITHUB_TOKEN in the environment or the key")
    assert trial.status_code == 400
    assert "AWS_SECRET_ACCESS_KEY" in trial.json()["detail"]
    assert keyless.status_code == 201  # it runs, and fails on the listener's 404s
    assert secrets_in(listener.heard) == []


@pytest.mark.parametrize("pasted", PASTED, ids=["prefixed", "random"])
def test_a_key_pasted_as_a_name_is_refused_and_never_reaches_the_database(
    workbench: str, honyaku: Honyaku, home: Path, key_store: Path, pasted: str
) -> None:
    url = workbench
    profile = {"name": "pasted", "model": "m", "base_url": "https://api.deepseek.com"}

    # When the key itself is given as a key's name, a variable's name, and a key store name
    answers = [
        httpx2.post(f"{url}/api/models", json={**profile, "key_name": pasted}),
        httpx2.post(f"{url}/api/models", json={**profile, "api_key_env": pasted}),
        httpx2.post(
            f"{url}/api/models",
            json={**profile, "more_endpoints": [{"base_url": None, "api_key_env": pasted}]},
        ),
        httpx2.post(f"{url}/api/models/check", json={**profile, "key_name": pasted}),
        httpx2.put(f"{url}/api/keys/{pasted}", json={"key": pasted}),
    ]

    # Then each is refused in one line that says where the key goes, never repeating it
    for answer in answers:
        assert answer.status_code == 422, answer.text
        detail = answer.json()["detail"]
        assert "the key itself goes into the key store" in detail
        assert pasted not in detail
        assert "\n" not in detail
    # And the key is nowhere in the database, its write-ahead log included, nor the key file
    assert httpx2.get(f"{url}/api/models").json() == []
    assert httpx2.get(f"{url}/api/keys").json() == []
    # (read while the database is open: closing it folds the write-ahead log into the file)
    files = [path for path in home.iterdir() if path.name.startswith(DATABASE_FILE)]
    assert {path.name for path in files} >= {DATABASE_FILE, f"{DATABASE_FILE}-wal"}
    for path in files:
        assert pasted.encode() not in path.read_bytes(), path.name
    assert pasted not in every_value(honyaku.stores.database)
    assert not key_store.exists()


def test_a_key_that_is_not_ascii_is_refused_where_it_is_given_and_at_the_start(
    workbench: str, honyaku: Honyaku, key_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = workbench
    # When a key an HTTP header cannot carry is typed in
    typed = httpx2.put(f"{url}/api/keys/K", json={"key": "sk-秘密ABCDEFGHIJ"})

    # Then it is refused in one line that does not show it, and not kept
    assert typed.status_code == 400
    assert typed.json()["detail"].startswith("a key is printable ASCII")
    assert "ABCDEFGHIJ" not in typed.text
    assert not key_store.exists()

    # And one kept before honyaku refused such keys, or in a variable a terminal named, fails
    # a check, a job and a trial at their start in one line, within seconds
    key_store.parent.mkdir(parents=True, exist_ok=True)
    key_store.write_text('{"OLD_KEY": "sk-秘密ABCDEFGHIJ"}', encoding="utf-8")
    key_store.chmod(0o600)
    monkeypatch.setenv("NAMED_KEY", "sk-clé-ABCDEFGHIJ")
    book = honyaku.stores.library.add_book(_book(), source_lang="ja", target_lang="zh-CN")
    with FakeLLMServer() as server:
        _saved(honyaku, "old", server.url, key_name="OLD_KEY")
        _saved(honyaku, "named", server.url, api_key_env="NAMED_KEY")
        started = time.monotonic()
        answers = [
            httpx2.post(
                f"{url}/api/models/check",
                json={"name": name, "model": "fake-translator", "base_url": server.url, **key},
                timeout=60,
            )
            for name, key in (
                ("old", {"key_name": "OLD_KEY"}),
                ("named", {"api_key_env": "NAMED_KEY"}),
            )
        ] + [
            httpx2.post(
                f"{url}/api/books/{book}/jobs",
                json={"kind": "translation", "model": model},
                timeout=60,
            )
            for model in ("old", "named")
        ]
        answers.append(
            httpx2.post(f"{url}/api/books/{book}/trials", json={"models": ["named"]}, timeout=60)
        )
        took = time.monotonic() - started
        sent = len(server.requests)

    assert took < START_ANSWER_S
    assert [a.status_code for a in answers] == [200, 200, 400, 400, 400]
    said = [a.json()["problem"] for a in answers[:2]] + [a.json()["detail"] for a in answers[2:]]
    refused = (
        "the key in {} is not one word of printable ASCII (letters, digits and punctuation, "
        "what an HTTP header carries): set it again"
    )
    assert said[0] == said[2] == refused.format("OLD_KEY in the key store")
    assert said[1] == said[3] == said[4] == refused.format("$NAMED_KEY")
    assert not any("ABCDEFGHIJ" in line for line in said)
    assert sent == 0


def _saved(honyaku: Honyaku, name: str, url: str, **key: Any) -> None:
    """A profile saved as ``honyaku models add`` saves it, its key named at a terminal."""
    profile = ModelProfile(name=name, model="fake-translator", base_url=url, **key)
    asyncio.run(honyaku.models.save(profile, declared=True))


def _book() -> BookDraft:
    return BookDraft("鍵の本", (ChapterDraft("第一章", ("彼は歩いた。", "雨が降った。")),))
