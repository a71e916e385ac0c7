"""The careless draft the quality checks catch (``Mistake.SLOPPY_DRAFT``), and its fix.

A careless draft spoils one paragraph for each quality check it can: a quotation without its
quotation marks, a closing bracket lost, a glossary term left out, a long paragraph cut short,
a paragraph left in the source language. Every other paragraph, and every fix, is
``clean_translation``: the pseudo translation with the chunk's glossary renderings in place,
no kana left and its kanji in Simplified forms, which passes every check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from honyaku.domain.chinese_scripts import written_in_script
from honyaku.llm.demo.glossary import KANA

QUOTES = "「」『』“”"


def clean_translation(text: str, glossary: Mapping[str, str]) -> str:
    """A pseudo translation that passes every quality check: the glossary's renderings in
    place as they are written, the rest with no kana left and in Simplified forms."""
    if not glossary:
        return "〈译〉" + _hanzi(text)
    terms = re.compile("|".join(re.escape(s) for s in sorted(glossary, key=len, reverse=True)))
    between = terms.split(text)
    renderings = [KANA.sub("〇", glossary[term]) for term in terms.findall(text)]
    pieces = [
        _hanzi(piece) + rendering
        for piece, rendering in zip(between, [*renderings, ""], strict=True)
    ]
    return "〈译〉" + "".join(pieces)


def _hanzi(text: str) -> str:
    return written_in_script(KANA.sub("〇", text), "zh-CN")


@dataclass(frozen=True, slots=True)
class _Flaw:
    name: str
    fits: Callable[[str, Mapping[str, str]], bool]
    spoil: Callable[[str, Mapping[str, str]], str]


def _without_closing(text: str, glossary: Mapping[str, str]) -> str:
    clean = clean_translation(text, glossary)
    cut = max(clean.rfind(c) for c in "」』")
    return clean[:cut] + clean[cut + 1 :]


FLAWS = (
    _Flaw(
        "quote lost",
        lambda text, _g: text[:1] in "「『",
        lambda text, g: "".join(c for c in clean_translation(text, g) if c not in QUOTES),
    ),
    _Flaw(
        "bracket lost",
        lambda text, _g: text[:1] not in "「『" and ("」" in text or "』" in text),
        _without_closing,
    ),
    _Flaw(
        "term left out",
        lambda text, g: any(source in text for source in g),
        lambda text, g: clean_translation(text, dict.fromkeys(g, "")),
    ),
    _Flaw(
        "cut short",
        lambda text, _g: len(text) >= 40,
        lambda text, g: clean_translation(text, g)[:8],
    ),
    _Flaw("untranslated", lambda _text, _g: True, lambda text, _g: text),
)


def sloppy_draft(texts: Mapping[str, str], glossary: Mapping[str, str]) -> dict[str, str]:
    """Each paragraph's draft, by id: each flaw once, on the first paragraph it fits."""
    unused = list(FLAWS)
    drafts = {}
    for pid, text in texts.items():
        flaw = next((f for f in unused if f.fits(text, glossary)), None)
        if flaw is None:
            drafts[pid] = clean_translation(text, glossary)
            continue
        unused.remove(flaw)
        drafts[pid] = flaw.spoil(text, glossary)
    return drafts
