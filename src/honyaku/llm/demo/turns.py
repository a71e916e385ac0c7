"""A conversation as the demo model reads it: turns in wire-neutral form, and its replies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class FakeCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the conversation in wire-neutral form."""

    role: str
    text: str = ""
    calls: tuple[FakeCall, ...] = ()
    results: tuple[dict[str, Any], ...] = ()
    """For a tool-results turn: each result in call order."""


@dataclass(frozen=True, slots=True)
class Reply:
    text: str = ""
    calls: tuple[FakeCall, ...] = ()
