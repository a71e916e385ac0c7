"""Regular expressions a person types (a search, a chapter pattern at import), compiled on RE2.

RE2 takes time proportional to the text whatever the pattern: Python's ``re`` backtracks, so
``(a+)+$`` over a line of thirty ``a`` would hold the whole server for minutes, every other
request waiting (``re`` keeps the interpreter to itself while it matches). RE2 has no
backreferences and no lookaround (those cannot run in linear time); a pattern using them is
refused in one line, and so is one that does not compile or would take too much memory.
Python's meaning of ``\\d``, ``\\w`` and ``\\s`` is kept (Unicode digits, letters and spaces,
the ideographic space among them), where RE2's own are ASCII only, and ``\\Z`` is read as
Python reads it.
"""

from __future__ import annotations

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


def compile_typed(pattern: str, *, case_sensitive: bool = True, literal: bool = False) -> Any:
    """RE2's pattern for ``pattern`` as a person typed it (a Python regular expression, or
    the text itself if ``literal``); refused in one line that says why where RE2 cannot run
    it. RE2's pattern object has no type hints."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UserError("a regular expression is at most {most} characters", most=MAX_PATTERN_CHARS)
    options = re2.Options()
    options.log_errors = False  # refused in one line here, not logged on standard error
    options.case_sensitive = case_sensitive
    options.max_mem = PATTERN_MEMORY_BYTES
    source = re2.escape(pattern) if literal else as_re2(pattern)
    try:
        return re2.compile(source, options)
    except re2.error as exc:
        raise _refusal(exc, pattern) from None


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
            "backreferences (\\1) and lookaround ((?=…), (?<=…)) are not supported: a regular "
            "expression runs in time proportional to the text, whatever the pattern"
        )
    if "pattern too large" in problem:
        return UserError("the regular expression is too large: make it simpler")
    return UserError("the regular expression does not work: {problem}", problem=problem)
