"""Finding words in a book's text and replacing them, as a translator asks: plain text or a
regular expression, case-sensitive or not.

Regular expressions run on RE2 (``domain.regular_expressions``), in time proportional to the
text whatever the pattern.

A replacement yields a paragraph's new text; whether it may be stored is the rule of any
version written by hand (``book.manual_version_text``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from honyaku.domain.regular_expressions import MAX_PATTERN_CHARS, compile_typed
from honyaku.errors import UserError

__all__ = ["MAX_PATTERN_CHARS", "SearchPattern", "TextQuery", "replaced", "spans"]

_TEMPLATE_ESCAPE = re.compile(r"\\(?:g<([^>]*)>|([1-9][0-9]?)|(.)|\Z)", re.DOTALL)
"""In a replacement: ``\\g<name>``, ``\\12``, any other escape, or a ``\\`` at the end."""
_TEMPLATE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "\\": "\\"}


@dataclass(frozen=True, slots=True)
class TextQuery:
    pattern: str
    regex: bool = False
    case_sensitive: bool = False

    def compiled(self) -> SearchPattern:
        """The query as a pattern; a regular expression that does not compile, or that only
        a backtracking engine could run, is refused in one line that says why."""
        if not self.pattern:
            raise UserError("type something to search for")
        if len(self.pattern) > MAX_PATTERN_CHARS:
            raise UserError("a search is at most {most} characters", most=MAX_PATTERN_CHARS)
        compiled = compile_typed(
            self.pattern, case_sensitive=self.case_sensitive, literal=not self.regex
        )
        return SearchPattern(compiled)


@dataclass(frozen=True, slots=True)
class SearchPattern:
    """A compiled query: finds and replaces in time proportional to the text."""

    compiled: Any
    """RE2's pattern (the package has no type hints)."""


def spans(pattern: SearchPattern, text: str) -> list[tuple[int, int]]:
    """Where ``pattern`` matches in ``text``: start and end of each non-empty match."""
    return [m.span() for m in pattern.compiled.finditer(text) if m.end() > m.start()]


def replaced(pattern: SearchPattern, replacement: str, text: str, *, regex: bool) -> str:
    """``text`` with every match replaced; a regular expression's replacement may name its
    groups (``\\1``, ``\\g<name>``) and write ``\\n`` or ``\\t`` as Python's does, a plain one
    is taken as written."""
    if not regex:
        return str(pattern.compiled.sub(lambda _: replacement, text))
    pieces = _template(replacement, pattern.compiled.groups, pattern.compiled.groupindex)

    def expanded(match: Any) -> str:
        return "".join(p if isinstance(p, str) else (match.group(p) or "") for p in pieces)

    return str(pattern.compiled.sub(expanded, text))


def _template(replacement: str, groups: int, names: dict[str, int]) -> list[str | int]:
    """A regular expression's replacement as text and group numbers, in order; refused in one
    line where it names a group that is not there, or an escape Python's ``re`` would refuse."""
    pieces: list[str | int] = []
    literal_from = 0
    for escape in _TEMPLATE_ESCAPE.finditer(replacement):
        literal = replacement[literal_from : escape.start()]
        literal_from = escape.end()
        name, number, other = escape.groups()
        if name is None and number is None:
            if other is None:
                raise _bad_replacement("a \\ ends it")
            if other in _TEMPLATE_ESCAPES:
                literal += _TEMPLATE_ESCAPES[other]
            elif other.isascii() and other.isalnum():
                raise _bad_replacement(f"unknown escape \\{other}")
            else:
                literal += escape[0]  # as Python keeps \& and the like
            pieces.append(literal)
            continue
        reference = number or name
        group = int(reference) if reference.isdigit() else names.get(reference)
        if group is None or group > groups:
            raise _bad_replacement(f"no group {reference}")
        pieces.extend((literal, group))
    pieces.append(replacement[literal_from:])
    return pieces


def _bad_replacement(problem: str) -> UserError:
    return UserError("the replacement does not work: {problem}", problem=problem)
