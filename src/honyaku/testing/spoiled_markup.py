"""What models do to the placeholders of inline markup (``Mistake.SPOILS_MARKUP``,
``Mistake.LOSES_MARKUP``), done to a translation that kept them.

Each spoiling is one of the mistakes real models make with markers: a placeholder dropped,
one repeated, a pair closed before it opens, one invented, and those honyaku reads all the
same: placeholders written full-width or in other brackets, a reading hint copied. The first
four are refused (``MARKUP_MISMATCH``); the last two are normalised and accepted.
"""

from __future__ import annotations

import re
from enum import StrEnum

PLACEHOLDER = re.compile(r"⟦(/?)(\d+)⟧")
INVENTED = "⟦99⟧"


class Spoiling(StrEnum):
    DROPPED = "dropped"
    REPEATED = "repeated"
    REORDERED = "reordered"
    INVENTED = "invented"
    FULL_WIDTH = "full_width"
    HINT_COPIED = "hint_copied"


REFUSED = (Spoiling.DROPPED, Spoiling.REPEATED, Spoiling.REORDERED, Spoiling.INVENTED)
"""The spoilings honyaku refuses; the others it reads as if they were right."""


def spoiled(text: str, how: Spoiling, hint: str = "") -> str:
    """``text`` (a translation that kept its placeholders) spoiled ``how``; ``hint`` is a
    reading hint of its line, copied by ``HINT_COPIED``."""
    found = list(PLACEHOLDER.finditer(text))
    if not found:
        return text
    first = found[0]
    match how:
        case Spoiling.DROPPED:
            return text[: first.start()] + text[first.end() :]
        case Spoiling.REPEATED:
            return f"{text}{first.group(0)}"
        case Spoiling.REORDERED:
            return _closed_before_opening(text, found) or f"{text}{INVENTED}"
        case Spoiling.INVENTED:
            return f"{text}{INVENTED}"
        case Spoiling.FULL_WIDTH:
            return PLACEHOLDER.sub(lambda m: f"【{m.group(1)}{_wide(m.group(2))}】", text)
        case Spoiling.HINT_COPIED:
            return (
                f"{text}{hint}"
                if hint
                else f"{text[: first.start()]}⟦ {first.group(2)} ⟧{text[first.end() :]}"
            )


def _closed_before_opening(text: str, found: list[re.Match[str]]) -> str | None:
    """The first pair with its closing moved before its opening."""
    for match in found:
        if match.group(1):
            continue
        number = match.group(2)
        closing = f"⟦/{number}⟧"
        if closing not in text:
            continue
        without = text.replace(closing, "", 1)
        at = without.index(match.group(0))
        return without[:at] + closing + without[at:]
    return None


def without_placeholders(text: str) -> str:
    """``text`` with every placeholder gone: a model that cannot keep markup."""
    return PLACEHOLDER.sub("", text)


def _wide(digits: str) -> str:
    return digits.translate(str.maketrans("0123456789", "０１２３４５６７８９"))
