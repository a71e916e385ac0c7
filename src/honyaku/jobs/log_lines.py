"""A job log as a translator reads it: one line per action worth a look.

The terminal (``show --actions``) and the web app print the same lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from honyaku.agent.questions import QUESTION_TOOL_NAMES
from honyaku.store import ActionKind, RecordedAction

NOTABLE_ACTIONS = (
    ActionKind.REASONING,
    ActionKind.QUESTION,
    ActionKind.TOOL_RESULT,
    ActionKind.NUDGE,
    ActionKind.RETRY,
    ActionKind.SKIPPED,
    ActionKind.ERROR,
)
SUMMARY_CHARS = 160


@dataclass(frozen=True, slots=True)
class LogLine:
    entry: RecordedAction
    text: str

    @property
    def where(self) -> str:
        chunk = self.entry.action.chunk
        return f"chapter {self.entry.chapter_number}, part {chunk}" if chunk else ""

    @property
    def is_reasoning(self) -> bool:
        return self.entry.action.kind is ActionKind.REASONING


def log_lines(recorded: list[RecordedAction]) -> list[LogLine]:
    return [LogLine(entry, text) for entry in recorded if (text := _line(entry))]


def _line(entry: RecordedAction) -> str | None:
    action = entry.action
    payload: dict[str, Any] = action.payload
    match action.kind:
        case ActionKind.QUESTION:
            return _question(payload)
        case ActionKind.TOOL_RESULT if (
            not payload.get("success") and action.name not in QUESTION_TOOL_NAMES
        ):
            return _short(
                f"{action.name} refused: {payload.get('error_code')}: {payload.get('error')}"
            )
        case ActionKind.NUDGE:
            return _short(f"nudged: {payload.get('text')}")
        case ActionKind.RETRY:
            return _short(f"retry {payload.get('attempt')}: {payload.get('reason')}")
        case ActionKind.SKIPPED:
            count = len(payload.get("paragraph_ids", ()))
            return f"left {count} paragraph(s) to another running job"
        case ActionKind.ERROR:
            return _short(f"part failed: {payload.get('message')}")
        case ActionKind.REASONING:
            text = " ".join(str(payload.get("text", "")).split())
            return _short(f"thought ({len(text)} chars): {text}")
    return None


def _question(summary: dict[str, Any]) -> str:
    asked = " / ".join(summary.get("questions", []))
    answers = " / ".join(summary.get("answers", []))
    outcome = summary.get("outcome")
    if outcome == "answered":
        return f"asked: {asked} → {answers}"
    if outcome == "error":
        return f"asked: {asked} → not answered: {summary.get('error')}"
    given = f" (answered so far: {answers})" if answers else ""
    return f"asked: {asked} → {outcome}{given}"


def _short(text: str) -> str:
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"
