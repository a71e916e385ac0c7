"""Simplified and Traditional Chinese told apart, with OpenCC's dictionaries.

Most Han characters are written alike in both scripts (人, 大, 雨) and tell nothing. The rest
are counted: a text is converted into its target script and into the other one, phrase by
phrase, so that a character that is one script's in one word and the other's in another
(干 in 干净 and in 干涉) is judged in its word. A character the conversion into the target
changes is written the other script's way; one only the conversion into the other script
changes is written the target's way; one both leave alone, or both change (a Japanese form
such as 気), counts for neither.

Traditional targets are converted with their region's forms (Taiwan's 裡 and 吃, Hong Kong's
着), so a Traditional text written as Taiwan writes is not counted against a zh-TW book.

OpenCC's converters load their dictionaries once, the first time a text of their script is
tallied, and are kept for the process.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cache

import opencc

from honyaku.domain.languages import is_chinese, script_of


class ChineseScript(StrEnum):
    SIMPLIFIED = "Simplified"
    TRADITIONAL = "Traditional"

    @property
    def other(self) -> ChineseScript:
        if self is ChineseScript.SIMPLIFIED:
            return ChineseScript.TRADITIONAL
        return ChineseScript.SIMPLIFIED


_TRADITIONAL_REGIONS = {"tw": "s2tw", "hk": "s2hk", "mo": "s2hk"}
"""OpenCC's conversion into each region's Traditional forms. A Traditional tag without a
region gets Taiwan's, the forms most Traditional text is written in (OpenCC's own standard,
``s2t``, writes 喫 for 吃 and 裏 for 裡)."""


def chinese_script(language: str) -> ChineseScript | None:
    """The script a language tag's Chinese is written in: Traditional for ``zh-TW``,
    ``zh-HK``, ``zh-MO`` and ``zh-Hant…``, Simplified for any other Chinese tag (``zh``,
    ``zh-CN``, ``zh-SG``, ``zh-Hans``); ``None`` for a language that is not Chinese."""
    if not is_chinese(language):
        return None
    parts = language.lower().replace("_", "-").split("-")[1:]
    if "hant" in parts or any(p in _TRADITIONAL_REGIONS for p in parts):
        return ChineseScript.TRADITIONAL
    return ChineseScript.SIMPLIFIED


@dataclass(frozen=True, slots=True)
class ScriptTally:
    """A text's Han characters that the two scripts write differently, counted by script
    against a target."""

    in_target: int
    """Characters written the target script's way."""
    in_other: int
    """Characters written the other script's way."""
    fixes: tuple[str, ...] = ()
    """The first of those, each with its target form (``後→后``), in the order they occur."""

    @property
    def other_share(self) -> float:
        """The share of the characters that tell the scripts apart written the other way."""
        told = self.in_target + self.in_other
        return self.in_other / told if told else 0.0


MAX_FIXES = 5


def tally_scripts(text: str, language: str) -> ScriptTally:
    """The Han characters of ``text`` written in the script of ``language`` (a Chinese tag),
    and those written in the other script."""
    to_target, to_other = _conversions(language)
    in_target = in_other = 0
    fixes: list[str] = []
    for ch, target, other in zip(
        text, _converted(to_target, text), _converted(to_other, text), strict=True
    ):
        if target == other or script_of(ch) != "han":
            continue  # written alike in both scripts: it tells nothing
        if ch != target and ch == other:
            in_other += 1
            fix = f"{ch}→{target}"
            if len(fixes) < MAX_FIXES and fix not in fixes:
                fixes.append(fix)
        elif ch == target and ch != other:
            in_target += 1
    return ScriptTally(in_target, in_other, tuple(fixes))


def written_in_script(text: str, language: str) -> str:
    """``text`` converted into the script of ``language`` (a Chinese tag), phrase by phrase."""
    to_target, _ = _conversions(language)
    return str(to_target.convert(text))


def _conversions(language: str) -> tuple[opencc.OpenCC, opencc.OpenCC]:
    """The converters into the target script of ``language`` and into the other one."""
    if chinese_script(language) is ChineseScript.TRADITIONAL:
        parts = language.lower().replace("_", "-").split("-")
        region = next((p for p in parts if p in _TRADITIONAL_REGIONS), "")
        return _converter(_TRADITIONAL_REGIONS.get(region, "s2tw")), _converter("t2s")
    return _converter("t2s"), _converter("s2t")


@cache
def _converter(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


def _converted(converter: opencc.OpenCC, text: str) -> str:
    """``text`` converted, one character for each: as a whole, so that phrases are matched,
    or one by one where a phrase changed the length (OpenCC's s2t, t2s and regional
    variants keep it, but nothing promises that)."""
    whole = str(converter.convert(text))
    if len(whole) == len(text):
        return whole
    return "".join(c if len(c := converter.convert(ch)) == 1 else ch for ch in text)
