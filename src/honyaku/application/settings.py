"""A book's settings, changed as a person asks: chunk size, questions, approvals, the cap."""

from __future__ import annotations

import asyncio
from typing import Any

from honyaku.agent import ApprovalPolicy, Broker
from honyaku.assistant import ASSISTANT_TOOLS
from honyaku.domain.book import BookSettings
from honyaku.errors import ConfigError
from honyaku.jobs import JOB_TOOL_NAMES
from honyaku.jobs.approvals import book_approvals
from honyaku.store import Library

TOOL_NAMES = JOB_TOOL_NAMES + tuple(t.name for t in ASSISTANT_TOOLS if t.name not in JOB_TOOL_NAMES)
"""The tools a job's model or the assistant may call: the names approvals may name."""


class Settings:
    def __init__(self, library: Library) -> None:
        self._library = library

    async def get(self, book_id: str) -> BookSettings:
        return await asyncio.to_thread(self._library.settings, book_id)

    async def approvals(self, broker: Broker, book_id: str | None) -> ApprovalPolicy:
        """Which calls about ``book_id`` (``None``: about no book) need the person's yes."""
        return await asyncio.to_thread(book_approvals, broker, self._library, book_id)

    async def change(self, book_id: str, **changes: Any) -> BookSettings:
        """The book's settings after ``changes`` (``max_cost=None`` clears the cap); unknown
        tool names are refused in one line."""
        for name in ("approve_tools", "always_allow"):
            if unknown := [tool for tool in changes.get(name) or () if tool not in TOOL_NAMES]:
                raise ConfigError(
                    f"unknown tool {', '.join(unknown)}; tools are: {', '.join(TOOL_NAMES)}"
                )
        return await asyncio.to_thread(self._library.update_settings, book_id, **changes)
