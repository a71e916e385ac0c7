"""The translator's plan (the assistant's planner): plan tasks and the views that list them.

A plan task is not a job: it is an item of the plan ("translate chapters 5–8 on Friday"),
in an area (a book), perhaps scheduled, perhaps done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from honyaku.errors import ToolError

_DAILY = re.compile(r"daily::(\d{4}-\d{2}-\d{2})")
_AREA = re.compile(r"area::([0-9a-f]{8})")


@dataclass(frozen=True, slots=True)
class PlanTask:
    id: str
    title: str
    book_id: str | None
    chapters: list[int] | None
    job_kind: str | None
    scheduled_date: date | None
    completed: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class PlanView:
    """Which plan tasks to read: a day's, the unscheduled ones, or a book's."""

    day: date | None = None
    staging: bool = False
    book_id: str | None = None


def parse_view_context(text: str) -> PlanView:
    """``daily::YYYY-MM-DD``, ``staging`` or ``area::<book id>``."""
    text = text.strip()
    if text == "staging":
        return PlanView(staging=True)
    if match := _DAILY.fullmatch(text):
        return PlanView(day=parse_date(match[1]))
    if match := _AREA.fullmatch(text):
        return PlanView(book_id=match[1])
    raise ToolError(
        "INVALID_PARAMETER",
        f"view_context {text!r} is none of daily::YYYY-MM-DD, staging, area::<book id>",
    )


def parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ToolError("INVALID_PARAMETER", f"{text!r} is not a date like 2024-01-15") from None
