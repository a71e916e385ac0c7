"""A book's job settings, changed as a person asks: chunk size, questions, approvals."""

from __future__ import annotations

from typing import Any

from honyaku.agent.questions import QUESTION_TOOLS
from honyaku.domain.book import BookSettings
from honyaku.errors import ConfigError
from honyaku.jobs.glossary_tools import GLOSSARY_TOOLS
from honyaku.jobs.tools import TASK_TOOLS
from honyaku.store.library import Library

TOOL_NAMES = tuple(t.name for t in TASK_TOOLS + GLOSSARY_TOOLS + QUESTION_TOOLS)
"""The tools a job's model may call: the names approvals may name."""


def change_settings(library: Library, book_id: str, **changes: Any) -> BookSettings:
    """The book's settings after ``changes``; unknown tool names are refused in one line."""
    for name in ("approve_tools", "always_allow"):
        if unknown := [tool for tool in changes.get(name, ()) if tool not in TOOL_NAMES]:
            raise ConfigError(
                f"unknown tool {', '.join(unknown)}; tools are: {', '.join(TOOL_NAMES)}"
            )
    return library.update_settings(book_id, **changes)
