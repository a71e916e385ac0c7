"""Finding words in a book's text and replacing them, as a translator asks: plain text or a
regular expression, case-sensitive or not.

Regular expressions run on RE2, which takes time proportional to the text whatever the
pattern: Python's ``re`` backtracks, so ``(a+)+$`` over a paragraph of thirty ``a`` would hold
the whole server for minutes. RE2 has no backreferences and no lookaround (those cannot run in
linear time); a pattern using them is refused in one line. Python's meaning of ``\\d``, ``\\w``
and ``\\s`` is kept (Unicode digits, letters and spaces, the ideographic space among them),
where RE2's own are ASCII only, and ``\\Z`` is read as Python reads it.

A replacement yields a paragraph's new text; whether it may be stored is the rule of any
version written by hand (``book.manual_version_text``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import re2

from honyaku.errors import UserError

MAX_PATTERN_CHARS = 500
PATTERN_MEMORY_BYTES = 8 * 2**20
"""What RE2 may spend on one compiled pattern; a larger one is refused as too large."""

_SPACES = r"\s\p{Z}\x{0b}\x{1c}-\x{1f}\x{85}"
_PYTHON_CLASSES = {
    "d": (r"\p{Nd}", r"\p{Nd}"),
    "D": (r"\P{Nd}", r"\P{Nd}"),
    "w": (r"[\p{L}\p{N}_]", r"\p{L}\p{N}_"),
    "W": (r"[^\p{L}\p{N}_]", None),
    "s": (f"[{_SPACES}]", _SPACES),
    "S": (f"[^{_SPACES}]", None),
    "Z": (r"\z", None),
}
"""Python's escapes as RE2 spells them: outside a ``[…]`` set, and inside one (``None``: no
way to write it there)."""
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
        options = re2.Options()
        options.log_errors = False  # refused in one line here, not logged on standard error
        options.case_sensitive = self.case_sensitive
        options.max_mem = PATTERN_MEMORY_BYTES
        source = as_re2(self.pattern) if self.regex else re2.escape(self.pattern)
        try:
            return SearchPattern(re2.compile(source, options))
        except re2.error as exc:
            raise _refusal(exc, self.pattern) from None


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


def as_re2(pattern: str) -> str:
    """A Python regular expression in RE2's words, so that it means what Python's ``re`` says:
    ``\\d``, ``\\w``, ``\\s`` and their opposites over Unicode, ``\\Z`` at the very end."""
    out: list[str] = []
    in_set = False
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\" and at + 1 < len(pattern):
            escaped = pattern[at + 1]
            outside, inside = _PYTHON_CLASSES.get(escaped, (None, None))
            if escaped in _PYTHON_CLASSES and in_set and inside is None:
                raise UserError(
                    "write \\{escape} outside [ ] in a regular expression", escape=escaped
                )
            out.append((inside if in_set else outside) or pattern[at : at + 2])
            at += 2
            continue
        if in_set and pattern.startswith("[:", at) and ":]" in pattern[at:]:
            end = pattern.index(":]", at) + 2  # a POSIX class, [:alpha:], within the set
            out.append(pattern[at:end])
            at = end
            continue
        if char == "[" and not in_set:
            in_set = True
            start = at + 1 + (pattern.startswith("^", at + 1))
            if pattern.startswith("]", start):
                start += 1  # a "]" first in a set is itself
            out.append(pattern[at:start])
            at = start
            continue
        if char == "]" and in_set:
            in_set = False
        out.append(char)
        at += 1
    return "".join(out)


def _refusal(error: Exception, pattern: str) -> UserError:
    problem = error.args[0] if error.args else error
    if isinstance(problem, bytes):
        problem = problem.decode("utf-8", "replace")
    problem = str(problem)
    lookaround = any(op in problem for op in ("(?=", "(?!", "(?<=", "(?<!")) or "(?P=" in pattern
    backreference = "invalid escape sequence: \\" in problem and problem[-1:].isdigit()
    if lookaround or backreference:
        return UserError(
            "backreferences (\\1) and lookaround ((?=…), (?<=…)) are not supported: a search "
            "runs in time proportional to the text, whatever the pattern"
        )
    if "pattern too large" in problem:
        return UserError("the regular expression is too large: make it simpler")
    return UserError("the regular expression does not work: {problem}", problem=problem)


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
