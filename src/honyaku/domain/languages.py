"""Guessing a book's language from its text, for books that do not declare one."""

from __future__ import annotations

import unicodedata
from collections import Counter

from honyaku.domain.book import BookDraft

SAMPLE_CHARS = 20_000


def guess_language(draft: BookDraft) -> str:
    """``ja`` if kana appear, ``ko`` for Hangul, ``zh`` for other Han text, else ``en``."""
    sample = "".join(p for c in draft.chapters for p in c.paragraphs)[:SAMPLE_CHARS]
    scripts = Counter(_script(ch) for ch in sample if not ch.isspace())
    if scripts["kana"] > 0.05 * sum(scripts.values()):
        return "ja"
    if scripts["hangul"]:
        return "ko"
    if scripts["han"] > scripts["latin"]:
        return "zh"
    return "en"


def normalize_language(tag: str) -> str:
    """A BCP 47 tag in its usual case: ``ja-jp`` → ``ja-JP``, ``zh-hant`` → ``zh-Hant``."""
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


def _script(ch: str) -> str:
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
