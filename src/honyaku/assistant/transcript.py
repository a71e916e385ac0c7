"""A chat session's transcript as stored entries, and as the messages a model is sent.

The store keeps every entry; what the model is sent starts at the latest summary, which
stands in for everything before it. A reply stopped part-way keeps its text; a call the
reply made that never got a result (the reply was stopped while it ran) is answered
"stopped" here, since providers refuse a call without its result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from honyaku.agent import result_json
from honyaku.agent.questions import question_summary
from honyaku.domain.chat import ChatEntry, EntryKind
from honyaku.llm.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

Entry = tuple[EntryKind, dict[str, Any]]

STOPPED_RESULT = {"success": False, "error": "the person stopped the reply before this ran"}
SUMMARY_OPENING = "What was said before, in short (the full transcript is kept):\n"


def user_entry(text: str) -> Entry:
    return EntryKind.USER, {"text": text}


def assistant_entry(message: AssistantMessage, *, stopped: bool = False) -> Entry:
    payload: dict[str, Any] = {
        "text": message.text,
        "calls": [
            {"id": c.id, "name": c.name, "arguments": dict(c.arguments), "raw": c.raw_arguments}
            for c in message.tool_calls
        ],
    }
    if message.reasoning:
        payload["reasoning"] = message.reasoning
    if message.replay:
        payload["replay"] = dict(message.replay)
    if stopped:
        payload["stopped"] = True
    return EntryKind.ASSISTANT, payload


def result_entry(call: ToolCall, result: dict[str, Any]) -> Entry:
    return EntryKind.TOOL_RESULT, {"id": call.id, "name": call.name, "result": result}


def question_entry(call: ToolCall, result: dict[str, Any]) -> Entry:
    """A question and its outcome in short, kept through every summary."""
    return EntryKind.QUESTION, question_summary(call.name, call.arguments, result)


def notice_entry(text: str) -> Entry:
    return EntryKind.NOTICE, {"text": text}


def summary_entry(text: str, covers: int) -> Entry:
    """A summary standing in for every entry up to the one numbered ``covers``."""
    return EntryKind.SUMMARY, {"text": text, "covers": covers}


def questions_in_short(entries: Iterable[ChatEntry]) -> list[str]:
    """Each question asked and its outcome, one line each, those of summaries included."""
    lines = []
    for entry in entries:
        if entry.kind is EntryKind.QUESTION:
            lines += _question_lines(entry.payload)
        elif entry.kind is EntryKind.SUMMARY:
            lines += [line for line in entry.payload["text"].splitlines() if line.startswith("Q: ")]
    return list(dict.fromkeys(lines))


def _question_lines(summary: dict[str, Any]) -> list[str]:
    answers = summary.get("answers") or []
    lines = []
    for n, question in enumerate(summary["questions"]):
        said = answers[n] if n < len(answers) else f"({summary['outcome']})"
        lines.append(f"Q: {question} → A: {said}")
    return lines


def messages(system_prompt: str, entries: Sequence[ChatEntry]) -> list[Message]:
    """What the model is sent for ``entries``: the latest summary, then what it does not cover."""
    history: list[Message] = [SystemMessage(system_prompt)]
    summary = latest_summary(entries)
    if summary is not None:
        history.append(UserMessage(_summary(summary)))
    unanswered: dict[str, str] = {}
    for entry in since_summary(entries):
        if entry.kind is not EntryKind.TOOL_RESULT:
            history += _answer_stopped(unanswered)
        history += _messages_of(entry, unanswered)
    history += _answer_stopped(unanswered)
    return history


def latest_summary(entries: Sequence[ChatEntry]) -> ChatEntry | None:
    return next((e for e in reversed(entries) if e.kind is EntryKind.SUMMARY), None)


def since_summary(entries: Sequence[ChatEntry]) -> list[ChatEntry]:
    """The entries the latest summary does not stand in for."""
    summary = latest_summary(entries)
    covers = summary.payload["covers"] if summary else 0
    return [e for e in entries if e.pk > covers and e.kind is not EntryKind.SUMMARY]


def _summary(entry: ChatEntry) -> str:
    return SUMMARY_OPENING + entry.payload["text"]


def _messages_of(entry: ChatEntry, unanswered: dict[str, str]) -> list[Message]:
    payload = entry.payload
    match entry.kind:
        case EntryKind.USER:
            return [UserMessage(payload["text"])]
        case EntryKind.ASSISTANT:
            message = _assistant_message(payload)
            unanswered.update({c.id: c.name for c in message.tool_calls})
            return [message]
        case EntryKind.TOOL_RESULT:
            unanswered.pop(payload["id"], None)
            return [
                ToolResultMessage(payload["id"], payload["name"], result_json(payload["result"]))
            ]
    return []  # questions live in their tool's result; notices are for the person


def _assistant_message(payload: dict[str, Any]) -> AssistantMessage:
    calls = tuple(
        ToolCall(c["id"], c["name"], c["arguments"], c.get("raw") or json.dumps(c["arguments"]))
        for c in payload.get("calls", ())
    )
    return AssistantMessage(
        payload.get("text", ""), calls, payload.get("reasoning"), payload.get("replay", {})
    )


def _answer_stopped(unanswered: dict[str, str]) -> list[Message]:
    stopped: list[Message] = [
        ToolResultMessage(call_id, name, result_json(STOPPED_RESULT))
        for call_id, name in unanswered.items()
    ]
    unanswered.clear()
    return stopped
