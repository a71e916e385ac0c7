"""What the assistant is told: who it is, what it works on, and how to summarise a chat."""

from __future__ import annotations

from datetime import date

from honyaku.domain.book import Book

ASSISTANT_MARK = "You are honyaku's assistant"
SUMMARY_MARK = "You summarise a conversation"


def assistant_prompt(book: Book | None, today: date) -> str:
    """The system prompt of a chat, about ``book`` or the whole library."""
    about = (
        f"This chat is about the book 「{book.title}」 (id {book.id}, "
        f"{book.source_lang} → {book.target_lang}); tools take it when no book_id is given."
        if book
        else "This chat is about the whole library; name a book by its id in tool calls."
    )
    return (
        f"{ASSISTANT_MARK}, helping a translator with their books. {about}\n"
        f"Today is {today.isoformat()} ({today.strftime('%A')}).\n"
        "Use the tools to look things up, keep the translator's plan (tasks in a book's area, "
        "on a day or unscheduled) and start jobs; never guess what a tool can tell you. "
        "Writing a version, deleting a task and starting a job wait for the translator's "
        "approval: if one is refused, say so and do not try again. Ask the translator "
        "(ask_user) only for a choice that is theirs. Answer briefly, in the translator's "
        "language."
    )


def summary_prompt() -> str:
    return (
        f"{SUMMARY_MARK} between a translator and their assistant, so that it can go on from "
        "the summary alone. Keep: what the translator wants, decisions, ids of books, tasks "
        "and jobs, open questions. Plain sentences, at most 200 words."
    )
