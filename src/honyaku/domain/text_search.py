"""Finding words in a book's text and replacing them, as a translator asks: plain text or a
regular expression, case-sensitive or not.

A replacement yields a paragraph's new text; whether it may be stored is the rule of any
version written by hand (``book.manual_version_text``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from honyaku.errors import UserError

MAX_PATTERN_CHARS = 500


@dataclass(frozen=True, slots=True)
class TextQuery:
    pattern: str
    regex: bool = False
    case_sensitive: bool = False

    def compiled(self) -> re.Pattern[str]:
        """The query as a pattern; a regular expression that does not compile is refused in
        one line that says where."""
        if not self.pattern:
            raise UserError("type something to search for")
        if len(self.pattern) > MAX_PATTERN_CHARS:
            raise UserError("a search is at most {most} characters", most=MAX_PATTERN_CHARS)
        flags = 0 if self.case_sensitive else re.IGNORECASE
        source = self.pattern if self.regex else re.escape(self.pattern)
        try:
            return re.compile(source, flags)
        except (re.error, OverflowError, RecursionError) as exc:
            raise UserError(
                "the regular expression does not work: {problem}", problem=exc
            ) from None


def spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """Where ``pattern`` matches in ``text``: start and end of each non-empty match."""
    return [m.span() for m in pattern.finditer(text) if m.end() > m.start()]


def replaced(pattern: re.Pattern[str], replacement: str, text: str, *, regex: bool) -> str:
    """``text`` with every match replaced; a regular expression's replacement may name its
    groups (``\\1``, ``\\g<name>``), a plain one is taken as written."""
    if not regex:
        return pattern.sub(lambda _: replacement, text)
    try:
        return pattern.sub(replacement, text)
    except (re.error, IndexError, OverflowError) as exc:
        raise UserError("the replacement does not work: {problem}", problem=exc) from None
