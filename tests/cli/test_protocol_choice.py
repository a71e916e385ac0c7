"""--protocol native|xml|auto, and servers that cannot stream, through the real command."""

from __future__ import annotations

import pytest

from honyaku.store import Database, LearnedModels, Library
from honyaku.testing import FakeGeminiServer, FakeLLMServer, ToolSupport, pseudo_translation

from .conftest import RASHOMON, honyaku, imported


def flags(server: FakeLLMServer, *more: str) -> list[str]:
    return ["--model", "fake-translator", "--base-url", server.url, *more]


def assert_all_translated(home, book: str) -> None:
    library = Library(Database.open(home))
    for paragraph in library.whole_book(book).chapters[0].work_paragraphs:
        assert paragraph.translation == pseudo_translation(paragraph.text)


def probes(server: FakeLLMServer) -> int:
    return sum(
        1
        for body in server.requests
        if [t["function"]["name"] for t in body.get("tools") or ()] == ["report_ready"]
    )


def test_translate_with_the_xml_protocol_sends_no_native_tools(home, fake_model):
    book = imported(RASHOMON)

    honyaku("translate", book, *flags(fake_model, "--protocol", "xml"))

    assert all("tools" not in body for body in fake_model.requests)
    assert "<tool_use>" in fake_model.requests[0]["messages"][0]["content"]
    assert_all_translated(home, book)


@pytest.mark.parametrize(
    ("support", "expected"),
    [(ToolSupport.NATIVE, "native"), (ToolSupport.IGNORED, "xml"), (ToolSupport.REJECTED, "xml")],
)
def test_auto_asks_the_model_once_and_remembers_per_server_and_model(home, support, expected):
    book = imported(RASHOMON)
    with FakeLLMServer(tool_support=support) as server:
        honyaku("translate", book, *flags(server, "--protocol", "auto"))
        honyaku("translate", book, *flags(server, "--protocol", "auto", "--retranslate"))

        remembered = LearnedModels(Database.open(home)).protocol(server.url, "fake-translator")
        assert probes(server) == 1
    assert remembered == expected
    assert_all_translated(home, book)


def test_a_server_that_cannot_stream_gets_plain_requests(home):
    book = imported(RASHOMON)
    with FakeLLMServer(streaming=False) as server:
        done = honyaku("translate", book, *flags(server, "--protocol", "native"))

        assert [body.get("stream", False) for body in server.requests][:2] == [True, False]
    assert "paragraphs  37/37" in done.stdout
    assert_all_translated(home, book)


def test_translate_with_gemini_through_its_own_api(home, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-test-key-SECRET")
    book = imported(RASHOMON)
    with FakeGeminiServer(api_key="gemini-test-key-SECRET") as server:
        done = honyaku(
            "translate",
            book,
            "--model",
            "gemini-fake",
            "--provider",
            "gemini",
            "--base-url",
            server.url,
            # Not Google's own server: its usual variable goes there only when named.
            "--api-key-env",
            "GEMINI_API_KEY",
        )

        assert any(body.get("tools") for body in server.requests)
    assert "key from $GEMINI_API_KEY" in done.stdout
    assert "SECRET" not in done.stdout + done.stderr
    assert_all_translated(home, book)


def test_extra_headers_reach_the_server_and_are_never_printed(fake_model):
    book = imported(RASHOMON)

    done = honyaku("translate", book, *flags(fake_model, "--header", "X-Gateway-Token: tok-SECRET"))

    assert all(h["x-gateway-token"] == "tok-SECRET" for h in fake_model.headers)
    assert "tok-SECRET" not in done.stdout + done.stderr


def test_a_saved_model_profile_is_used_by_its_name_and_never_holds_the_key(home, monkeypatch):
    monkeypatch.setenv("LOCAL_KEY", "sk-local-SECRET")
    book = imported(RASHOMON)
    with FakeLLMServer() as server:
        honyaku(
            "models", "add", "local", "--model", "fake-translator", "--base-url", server.url,
            "--protocol", "xml", "--api-key-env", "LOCAL_KEY",
        )  # fmt: skip
        listed = honyaku("models", "list").stdout
        done = honyaku("translate", book, "--model", "local")

        assert all("tools" not in body for body in server.requests)
        assert all(h["authorization"] == "Bearer sk-local-SECRET" for h in server.headers)
    assert "local" in listed
    assert "LOCAL_KEY" in listed
    assert "key from $LOCAL_KEY" in done.stdout
    assert b"sk-local-SECRET" not in (home / "honyaku.db").read_bytes()
    assert_all_translated(home, book)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--base-url", "http://127.0.0.1:99999/v1"], "Port out of range"),
        (["--base-url", "ftp://example.com/v1"], "must start with http"),
        (["--base-url", "http://user:SECRET@example.com/v1"], "will not store"),
        (["--provider", "nonesuch"], "unknown provider 'nonesuch'"),
        (["--api-key-env", "lower-case!"], "environment variable"),
    ],
)
def test_a_model_profile_that_cannot_work_is_refused_in_one_line(home, flags, message):
    done = honyaku("models", "add", "bad", "--model", "m", *flags, check=False)

    assert done.returncode == 2
    assert message in done.stderr
    assert "SECRET" not in done.stderr
    assert "bad" not in honyaku("models", "list").stdout
