"""Claude's extended thinking as a translator turns it on: a budget saved with the profile,
sent with every request of a job, its thinking kept apart from the translation."""

from __future__ import annotations

from honyaku.store import Database, Library
from honyaku.testing import FakeAnthropicServer
from honyaku.testing.fake_anthropic import MODEL_NAME

from .conftest import RASHOMON, honyaku, imported

KEY_VARIABLE = "CLAUDE_TRIAL_KEY"


def test_a_profile_with_a_thinking_budget_lets_claude_think_before_each_reply(home, monkeypatch):
    book = imported(RASHOMON)
    monkeypatch.setenv(KEY_VARIABLE, "sk-ant-trial-0123456789")
    with FakeAnthropicServer() as claude:
        # Given Claude saved with a budget of 2,048 tokens to think in
        honyaku("models", "add", "claude-thinks", "--model", MODEL_NAME, "--provider",
                "anthropic", "--base-url", claude.url, "--api-key-env", KEY_VARIABLE,
                "--thinking-tokens", "2048")  # fmt: skip
        shown = honyaku("models", "show", "claude-thinks").stdout

        # When a chapter is translated with it
        honyaku("translate", book, "--model", "claude-thinks", "--chapters", "1")

    # Then every request asked Claude to think first, within that budget
    assert claude.requests
    thinking = [body.get("thinking") for body in claude.requests]
    assert thinking == [{"type": "enabled", "budget_tokens": 2048}] * len(claude.requests)
    assert all(body["max_tokens"] > 2048 for body in claude.requests)
    # and the book holds translations, none of them Claude's thinking
    chapter = Library(Database.open(home)).whole_book(book).chapters[0]
    assert all(p.translation for p in chapter.work_paragraphs)
    assert "thinks in 2,048 tokens at most" in " ".join(shown.split())


def test_a_thinking_budget_under_anthropic_s_smallest_is_refused_in_one_line(home):
    refused = honyaku("models", "add", "claude-thinks", "--model", MODEL_NAME,
                      "--thinking-tokens", "500", check=False)  # fmt: skip

    assert refused.returncode == 2
    assert "1024" in refused.stderr
