"""A book's job log, one line per thing worth a translator's look."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

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


def print_actions(console: Console, recorded: list[RecordedAction]) -> None:
    """One line per action worth a look; the model's reasoning dimmed, cut to a line."""
    rows = [(entry, line) for entry in recorded if (line := _line(entry))]
    if not rows:
        console.print("Nothing notable yet: no questions, refused calls or failures.")
        return
    for entry, line in rows:
        action = entry.action
        where = f"chapter {entry.chapter_number} chunk {action.chunk}" if action.chunk else ""
        when = entry.created_at.strftime("%Y-%m-%d %H:%M:%S")
        style = "dim italic" if action.kind is ActionKind.REASONING else "default"
        console.print(f"[dim]{when} {entry.job_id} {where}[/]  [{style}]{escape(line)}[/]")


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
            return _short(f"chunk failed: {payload.get('message')}")
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
