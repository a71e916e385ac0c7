"""The demo translator's glossary extraction.

It reads the chunk's work lines and proposes the names it finds (katakana runs, and kanji
before an honorific such as さん or 様), less those the chunk's message lists as already in
the glossary. Where it may ask, it first asks how to render the first few with
one ``ask_user_batch``, then proposes the answers given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

NAME = re.compile(r"[ァ-ヺ][ァ-ヺー]+|[一-龥々]{1,4}(?=さん|様|さま|くん|君|ちゃん|殿)")
HONORIFIC_NAME = re.compile(r"[一-龥々]{1,4}")
KANA = re.compile(r"[ぁ-ゖァ-ヺー]")
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


def _hiragana(text: str) -> str:
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in text)
