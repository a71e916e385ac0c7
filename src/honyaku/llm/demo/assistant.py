"""The demo model as the assistant: a tiny repertoire, with no real model set up.

It looks up the books or the plan when asked about them, summarises a conversation when
asked to, and otherwise says what it is. (The scripted chats of the tests extend it:
``honyaku.testing.ScriptedAssistant``.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from honyaku.llm.demo.turns import FakeCall, Reply, Turn

ASSISTANT_MARK = "You are honyaku's assistant"
SUMMARY_MARK = "You summarise a conversation"
"""The openings of the assistant's and the summariser's prompts (``honyaku.assistant``)."""

INTRODUCTION = (
    "I am honyaku's demo assistant: no real model is set up, so all I can do is look up your "
    "books (ask about books) or your plan (ask about tasks). Add a real model (on the "
    "workbench's Models page, or with `honyaku models add`) for a real conversation."
)


def is_chat(system: str) -> bool:
    return system.startswith((ASSISTANT_MARK, SUMMARY_MARK))


class DemoAssistant:
    def reply(self, system: str, turns: Sequence[Turn], offered: tuple[str, ...] = ()) -> Reply:
        if system.startswith(SUMMARY_MARK):
            return Reply(_summary(turns))
        asked = asked_at(turns)
        if asked < 0:
            return Reply(INTRODUCTION)
        step = sum(1 for t in turns[asked + 1 :] if t.role == "assistant")
        return _demo(turns[asked].text, step, turns)


def asked_at(turns: Sequence[Turn]) -> int:
    """Where the person's latest message is among ``turns``; -1 before they said anything."""
    return max((n for n, t in enumerate(turns) if t.role == "user"), default=-1)


def last_result(turns: Sequence[Turn]) -> Mapping[str, Any]:
    """The latest tool result the model was given."""
    for turn in reversed(turns):
        if turn.results:
            return turn.results[-1]
    return {}


def _demo(message: str, step: int, turns: Sequence[Turn]) -> Reply:
    lowered = message.lower()
    if step > 0:
        result = last_result(turns)
        return Reply(str(result.get("message") or result.get("error") or "Done."))
    if "book" in lowered or "书" in message or "本" in message:
        return Reply("Let me look.", (FakeCall("list_books", {}),))
    if "task" in lowered or "plan" in lowered or "计划" in message or "任务" in message:
        return Reply("Let me look.", (FakeCall("read_tasks", {"view_context": "staging"}),))
    return Reply(INTRODUCTION)


def _summary(turns: Sequence[Turn]) -> str:
    told = turns[-1].text if turns else ""
    said = [line for line in told.splitlines() if line.startswith("Translator: ")]
    return "The translator asked: " + "; ".join(line[12:60] for line in said[-5:])
