"""A long chat is summarised for the model, and no question is lost on the way."""

from __future__ import annotations

import json

import pytest

from honyaku.assistant.transcript import SUMMARY_OPENING
from honyaku.store.chats import EntryKind
from honyaku.testing import FakeCall, Reply, last_result

pytestmark = pytest.mark.anyio

QUESTION = {"question": "「下人」はどう訳しますか？", "suggested_answers": ["仆人", "下人"]}


def sent_chars(body: dict) -> int:
    return len(json.dumps(body["messages"], ensure_ascii=False))


async def test_given_a_chat_past_its_context_when_it_goes_on_then_a_summary_keeps_its_questions(
    chat_with, library
):
    asking = [
        Reply("", (FakeCall("ask_user", QUESTION),)),
        lambda turns: Reply(f"Noted: {last_result(turns)['answer']}."),
    ]
    with chat_with({"下人": asking}) as chat:
        chat.service.context_chars = 1_500
        await chat.say("How should 下人 read?")
        for n in range(6):
            await chat.say(f"Tell me about the books, please ({n})", chat.session)

    entries = chat.service.chats.entries(chat.session.id)
    summaries = [e for e in entries if e.kind is EntryKind.SUMMARY]
    assert summaries, "the chat was never summarised"
    assert "Q: 「下人」はどう訳しますか？ → A: 仆人" in summaries[-1].payload["text"]
    last = chat.server.requests[-1]
    assert SUMMARY_OPENING.strip() in json.dumps(last["messages"], ensure_ascii=False)
    assert {"role": "user", "content": "How should 下人 read?"} not in last["messages"]
    assert sent_chars(last) < max(sent_chars(body) for body in chat.server.requests)
    users = [e.payload["text"] for e in entries if e.kind is EntryKind.USER]
    assert users[0] == "How should 下人 read?"
    assert len(users) == 7
