"""Chapter heading lines in plain text: 第N章, 序章, プロローグ, Chapter N, and the user's own.

A heading is a short line (at most ``MAX_HEADING_CHARS``) that does not end a sentence.
Parts (第N部/巻/編, Part N, Book N, Volume N) are level 1; chapters are level 2, so a part's
title can lead the first chapter inside it.
"""

from __future__ import annotations

import re
from typing import Any

from honyaku.domain.regular_expressions import compile_typed
from honyaku.formats.chapters import CHAPTER_LEVEL, PART_LEVEL
from honyaku.formats.limits import MAX_HEADING_CHARS

_NUMBER = r"[0-9０-９一二三四五六七八九十百千万〇零两壱弐参拾]+"
_EN_NUMBER = (
    r"(?:\d+|[ivxlcdm]+\b|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|hundred)(?:[\s-]+[a-z]+)?)"
)
_DECORATION = r"[\s　#＃【［\[〔（(<＜■□◆◇●○☆★◎・\-―—=＝*＊]*"
_AFTER_NUMBER = r"(?:$|[\s　:：.．・\-―—–」』】］\])）)>＞「『（(【]).*"
_NAMED_JA = (
    "序章|終章|终章|序幕|終幕|终幕|幕間|幕间|間章|间章|閑話|番外編|番外篇|番外|プロローグ|エピローグ|"
    "あとがき|後書き|まえがき|前書き|楔子|引子|序言|尾声|尾聲|后记|後記"
)
_NAMED_EN = "prologue|epilogue|interlude|afterword|foreword|preface|introduction"

_PART = re.compile(
    rf"{_DECORATION}(?:第{_NUMBER}[部巻卷編编篇集]|(?:part|book|volume)\s+{_EN_NUMBER}){_AFTER_NUMBER}",
    re.IGNORECASE,
)
_CHAPTER = re.compile(
    rf"{_DECORATION}(?:第{_NUMBER}[章話话節节幕回]|(?:chapter|episode)\s+{_EN_NUMBER})"
    rf"{_AFTER_NUMBER}"
    rf"|{_DECORATION}(?:{_NAMED_JA}|{_NAMED_EN})(?:$|[\s　:：・「『（(.．\-―—].*)"
    rf"|{_DECORATION}[序跋]{_DECORATION}$",
    re.IGNORECASE,
)
_SENTENCE_END = ("。", "、", "，", ",", "！", "？")


class HeadingMatcher:
    """Tells heading lines from prose.

    ``custom`` is the user's extra pattern (a regular expression searched in the stripped
    line, on RE2: ``domain.regular_expressions``);
    ``builtin=False`` leaves only that pattern.
    """

    def __init__(self, custom: str | None = None, *, builtin: bool = True) -> None:
        self._custom = _compile_custom(custom) if custom else None
        self._builtin = builtin

    def level(self, line: str) -> int:
        """``PART_LEVEL`` or ``CHAPTER_LEVEL`` for a heading line, 0 for prose."""
        text = line.strip()
        if not text or len(text) > MAX_HEADING_CHARS or text.endswith(_SENTENCE_END):
            return 0
        if self._custom is not None and self._custom.search(text):
            return CHAPTER_LEVEL
        if not self._builtin:
            return 0
        if _PART.fullmatch(text):
            return PART_LEVEL
        if _CHAPTER.fullmatch(text):
            return CHAPTER_LEVEL
        return 0


def _compile_custom(pattern: str) -> Any:
    # On RE2, as every pattern a person types: a line is matched in time proportional to it,
    # whatever the pattern.
    return compile_typed(pattern)
