"""``honyaku chat``: the assistant in the terminal, over HTTP against the fake model."""

from __future__ import annotations

from honyaku.store import Database, Library
from honyaku.store.chats import ChatStore
from honyaku.testing import FakeCall, FakeLLMServer, Reply, ScriptedAssistant, ScriptedTranslator

from .conftest import RASHOMON, honyaku, imported


def test_given_a_book_when_chatting_then_the_plan_is_kept_and_sessions_are_listed(home):
    book = imported(RASHOMON)
    plan = [
        Reply("Planning.", (FakeCall("create_task", {"title": "Translate chapter 1"}),)),
        Reply("It is in your plan."),
    ]
    translator = ScriptedTranslator(assistant=ScriptedAssistant({"plan": plan}))
    with FakeLLMServer(translator) as server:
        done = honyaku(
            "chat",
            book,
            "--model",
            "fake",
            "--base-url",
            server.url,
            typed="Please plan chapter 1\n/sessions\n/new\nWhich books do I have?\n/quit\n",
        )

    assert "Planning." in done.stdout
    assert "✓ create_task: task 「Translate chapter 1」 created" in done.stdout
    assert "It is in your plan." in done.stdout
    assert "Please plan chapter 1" in done.stdout  # the session's title, listed
    assert "✓ list_books: 1 book in the library" in done.stdout


def test_given_the_demo_model_when_chatting_then_it_says_what_it_can_do(home):
    done = honyaku("chat", "--model", "demo", typed="Hello\n")

    assert "demo assistant" in done.stdout
    assert done.returncode == 0


def test_given_two_chats_when_one_is_deleted_then_only_the_other_is_listed(home):
    book = imported(RASHOMON)
    chats = ChatStore(Library(Database.open(home)).database)
    kept, doomed = chats.create("Names in chapter 2", book), chats.create("Old plan", book)

    done = honyaku(
        "chat",
        book,
        "--model",
        "demo",
        typed=f"/delete {doomed.id}\n/delete {doomed.id}\n/sessions\n/quit\n",
    )

    assert "Deleted 「Old plan」." in done.stdout
    assert f"no chat session '{doomed.id}'" in done.stdout  # the chat stays open
    assert f"{kept.id}  Names in chapter 2" in done.stdout
    assert [found.id for found in chats.sessions(book)] == [kept.id]
