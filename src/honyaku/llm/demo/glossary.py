"""The fake translator's glossary side: extraction, and the careless draft that quality checks
catch.

Extraction: the fake reads the chunk's work lines and proposes the names it finds (katakana
runs, and kanji before an honorific such as さん or 様), less those the chunk's message lists
as already in the glossary. Where it may ask, it first asks how to render the first few with
one ``ask_user_batch``, then proposes the answers given.

A careless draft (``Mistake.SLOPPY_DRAFT``) spoils one paragraph for each quality check it
can: a quotation without its quotation marks, a closing bracket lost, a glossary term left
out, a long paragraph cut short, a paragraph left in the source language. Every other
paragraph, and every fix, is ``clean_translation``: the pseudo translation with the chunk's
glossary renderings in place and no kana left, which passes every check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

NAME = re.compile(r"[ァ-ヺ][ァ-ヺー]+|[一-龥々]{1,4}(?=さん|様|さま|くん|君|ちゃん|殿)")
HONORIFIC_NAME = re.compile(r"[一-龥々]{1,4}")
KANA = re.compile(r"[ぁ-ゖァ-ヺー]")
QUOTES = "「」『』“”"
MAX_ASKED_NAMES = 3
GLOSSARY_HEADERS = ("Glossary for this chunk", "Already in the glossary")


def found_names(texts: Sequence[str], known: set[str]) -> list[str]:
    """The names in ``texts`` in order of first occurrence, less ``known`` ones."""
    names: dict[str, None] = {}
    for text in texts:
        for match in NAME.finditer(text):
            if match.group() not in known:
                names.setdefault(match.group())
    return list(names)


def name_question(name: str) -> dict[str, object]:
    return {
        "question": f"「{name}」はどう訳しますか？",
        "suggested_answers": [transliterated(name), rendered(name)],
    }


def asked_name(question: str) -> str:
    return question.split("「", 1)[-1].split("」", 1)[0]


def transliterated(name: str) -> str:
    return f"〈音〉{name}"


def rendered(name: str) -> str:
    return f"〈意〉{name}"


def name_proposal(name: str, answers: Mapping[str, str]) -> dict[str, str]:
    is_person = not KANA.search(name) and bool(HONORIFIC_NAME.fullmatch(name))
    return {
        "source": name,
        "target": answers.get(name, transliterated(name)),
        "reading": _hiragana(name) if KANA.search(name) else "",
        "kind": "character" if is_person else "term",
        "note": "found by the fake model",
    }


def read_glossary_lines(text: str) -> dict[str, str]:
    """The entries listed in a chunk's message, source → target."""
    entries: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if line.startswith(GLOSSARY_HEADERS):
            inside = True
        elif inside and line.startswith("- ") and " → " in line:
            head, target = line[2:].split(" → ", 1)
            entries[head.split(" (", 1)[0]] = target.split(" (", 1)[0]
        elif inside:
            inside = False
    return entries


def clean_translation(text: str, glossary: Mapping[str, str]) -> str:
    """A pseudo translation that passes every quality check: the glossary's renderings in
    place, no kana left."""
    for source, target in glossary.items():
        text = text.replace(source, target)
    return "〈译〉" + KANA.sub("〇", text)


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


def _hiragana(text: str) -> str:
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in text)
