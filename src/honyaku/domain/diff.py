"""What changed between two versions of a paragraph, as a reader compares them.

Words of alphabetic scripts are compared whole; every other character (Chinese, Japanese,
punctuation) alone, since those scripts put no spaces between words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum

_TOKENS = re.compile(
    r"[^\W\d_\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+|\d+|\s+|.", re.S
)
"""Runs of letters outside the CJK blocks, runs of digits or spaces, else one character."""


class Change(StrEnum):
    SAME = "same"
    ADDED = "added"
    REMOVED = "removed"


@dataclass(frozen=True, slots=True)
class DiffPart:
    change: Change
    text: str


def diff_texts(old: str, new: str) -> list[DiffPart]:
    """``old`` turned into ``new``: the parts they share, and those removed and added, in
    reading order (what was removed before what replaced it)."""
    before, after = _TOKENS.findall(old), _TOKENS.findall(new)
    parts: list[DiffPart] = []
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    for operation, i1, i2, j1, j2 in matcher.get_opcodes():
        if operation == "equal":
            _add(parts, Change.SAME, "".join(before[i1:i2]))
            continue
        _add(parts, Change.REMOVED, "".join(before[i1:i2]))
        _add(parts, Change.ADDED, "".join(after[j1:j2]))
    return parts


def _add(parts: list[DiffPart], change: Change, text: str) -> None:
    if not text:
        return
    if parts and parts[-1].change is change:
        parts[-1] = DiffPart(change, parts[-1].text + text)
    else:
        parts.append(DiffPart(change, text))
