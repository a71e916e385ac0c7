"""Language tags: guessing a text's language where a book declares none, their spelling, and
the scripts a language is written in."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import cache

from honyaku.errors import UserError

SAMPLE_CHARS = 20_000
MIN_KANA_SHARE = 0.02
"""Japanese prose is mostly kana; Chinese quoting a Japanese name has a handful."""


def guess_language(text: str) -> str | None:
    """``ja`` if kana appear, ``ko`` for Hangul, ``zh`` for other Han text, ``en`` for Latin
    letters; ``None`` for a text with no letters at all."""
    sample = text[:SAMPLE_CHARS]
    scripts = Counter(script_of(ch) for ch in sample if not ch.isspace())
    letters = sum(n for script, n in scripts.items() if script != "other")
    if not letters:
        return None
    if scripts["kana"] >= MIN_KANA_SHARE * sum(scripts.values()):
        return "ja"
    if scripts["hangul"]:
        return "ko"
    if scripts["han"] > scripts["latin"]:
        return "zh"
    return "en"


_TAG = re.compile(
    r"[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|\d{3}))?(-([a-z\d]{5,8}|\d[a-z\d]{3}))*", re.IGNORECASE
)
"""A BCP 47 language tag as books use them: language, then script, region and variants."""


def is_language_tag(tag: str) -> bool:
    return _TAG.fullmatch(tag.strip().replace("_", "-")) is not None


def normalize_language(tag: str) -> str:
    """A BCP 47 tag in its usual case: ``ja-jp`` → ``ja-JP``, ``zh-hant`` → ``zh-Hant``;
    anything else is refused, since tags end up in files, file names and pages."""
    if not is_language_tag(tag):
        raise UserError(
            "{tag!r} is not a language tag: write one like ja, zh-CN or en", tag=tag[:40]
        )
    parts = tag.strip().replace("_", "-").split("-")
    fixed = [parts[0].lower()]
    for part in parts[1:]:
        if len(part) == 2:
            fixed.append(part.upper())
        elif len(part) == 4:
            fixed.append(part.title())
        else:
            fixed.append(part.lower())
    return "-".join(fixed)


def is_chinese(language: str) -> bool:
    return language.lower().startswith("zh")


@cache
def script_of(ch: str) -> str:
    """The script a character belongs to: ``kana``, ``hangul``, ``han``, ``latin`` or
    ``other`` (digits, punctuation, and the scripts honyaku does not tell apart). Kept once
    known: a book has a few thousand characters, met over and over."""
    name = unicodedata.name(ch, "")
    for script, marker in (
        ("kana", "HIRAGANA"),
        ("kana", "KATAKANA"),
        ("hangul", "HANGUL"),
        ("han", "CJK UNIFIED"),
        ("latin", "LATIN"),
    ):
        if name.startswith(marker):
            return script
    return "other"


_LATIN_LANGUAGES = frozenset(
    {"ca", "cs", "da", "de", "en", "es", "et", "fi", "fr", "hr", "hu", "id", "it", "lt", "lv"}
    | {"ms", "nb", "nl", "nn", "no", "pl", "pt", "ro", "sk", "sl", "sv", "tl", "tr", "vi"}
)


def scripts_written(language: str) -> frozenset[str]:
    """The scripts (as ``script_of`` names them) a language's text is written in: Han for
    Chinese, Han and kana for Japanese, Hangul and Han for Korean, Latin letters for the
    languages written in them; empty for a language honyaku does not know the script of."""
    base = language.lower().replace("_", "-").split("-")[0]
    if base == "zh":
        return frozenset({"han"})
    if base == "ja":
        return frozenset({"han", "kana"})
    if base == "ko":
        return frozenset({"hangul", "han"})
    if base in _LATIN_LANGUAGES:
        return frozenset({"latin"})
    return frozenset()
