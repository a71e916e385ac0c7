"""Names with honorifics: 空太先輩, 空太くん, 空太様, Sora-senpai and the bare 空太 are one person.

A name followed by an honorific is a variant of the bare name (its **base**): ``base_name``
takes the honorific off, so a character is found wherever any of its variants appears, and a
model that proposes 空太くん where the cast has 空太 proposes no new character. Japanese,
Korean and Chinese honorifics follow the name directly (Korean ones may follow a space);
romanized Japanese ones follow a hyphen or a space (``Sora-senpai``, ``Sora san``).

A base is only taken when it keeps ``MIN_BASE_CHARS`` characters: 姉さん is a word, not 姉
with an honorific, and お兄ちゃん stays whole.

``honorific_forms`` counts how a book writes each name: bare, or with which honorifics (the
variants the cast page shows).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping

import ahocorasick

MIN_BASE_CHARS = 2

JAPANESE = (
    "先輩", "せんぱい", "センパイ", "先パイ", "先生", "せんせい", "センセイ", "センセー",
    "さん", "サン", "ちゃん", "チャン", "ちゃま", "たん", "くん", "クン", "君", "様", "さま",
    "サマ", "殿", "どの", "氏", "嬢", "姫", "兄さん", "兄ちゃん", "兄様", "兄貴", "姉さん",
    "姉ちゃん", "姉様", "殿下", "陛下", "師匠", "会長", "部長", "社長", "っち",
)  # fmt: skip
"""Japanese honorifics written right after a name."""
KOREAN = ("씨", "님", "선배", "선배님", "선생님", "오빠", "언니", "형", "누나", "군", "양")
"""Korean honorifics, after a name or a space."""
CHINESE = (
    "先生", "小姐", "女士", "老师", "老師", "学长", "學長", "学姐", "學姐", "师兄", "師兄",
    "师姐", "師姐", "前辈", "前輩", "大人", "殿下", "陛下", "师父", "師父", "哥哥", "姐姐",
)  # fmt: skip
"""Chinese forms of address written right after a name."""
ROMANIZED = (
    "san", "chan", "kun", "sama", "senpai", "sempai", "sensei", "dono", "tan", "shi", "hime",
    "nee", "nii", "neesan", "niisan", "neechan", "niichan", "aniki", "oneesama", "heika",
    "denka", "shishou", "buchou", "kaichou",
)  # fmt: skip
"""Romanized Japanese honorifics, after a hyphen or a space."""

_ATTACHED = tuple(sorted({*JAPANESE, *KOREAN, *CHINESE}, key=len, reverse=True))
"""Every honorific written right after a name, longest first (姉ちゃん before ちゃん)."""
_ROMANIZED = re.compile(
    r"^(?P<base>.+?)[-‐‑ ](?P<honorific>"
    + "|".join(sorted(ROMANIZED, key=len, reverse=True))
    + r")$",
    re.IGNORECASE,
)
_SPACED = re.compile(r"^(?P<base>.+?) (?P<honorific>" + "|".join(KOREAN) + r")$")


def split_honorific(name: str) -> tuple[str, str]:
    """``name`` as its base and its honorific: ``("空太", "先輩")``, ``("Sora", "senpai")``;
    ``(name, "")`` for a bare name or one whose base would be too short."""
    name = name.strip()
    for pattern in (_ROMANIZED, _SPACED):
        if (found := pattern.match(name)) and _long_enough(found["base"]):
            return found["base"].strip(), found["honorific"]
    for honorific in _ATTACHED:
        if name.endswith(honorific):
            base = name[: -len(honorific)]
            if _long_enough(base):
                return base.rstrip(" ・-"), honorific
            break
    return name, ""


def base_name(name: str) -> str:
    """``name`` without its honorific; the bare name as it is."""
    return split_honorific(name)[0]


def honorific_after(text: str, end: int) -> str:
    """The honorific ``text`` writes right after position ``end`` (a name's end), or ``""``."""
    rest = text[end : end + 12]
    for honorific in _ATTACHED:
        if rest.startswith(honorific):
            return honorific
    if rest[:1] in "-‐‑ ":
        word = re.match(r"[-‐‑ ]([A-Za-z]+)", rest)
        if word and word[1].casefold() in ROMANIZED:
            return rest[: word.end()]
        if rest[:1] == " " and (spaced := next((k for k in KOREAN if rest[1:].startswith(k)), "")):
            return " " + spaced
    return ""


def honorific_forms(texts: Iterable[str], names: Mapping[str, str]) -> dict[str, Counter[str]]:
    """How ``texts`` write each name: by the key ``names`` gives each name (a character's), a
    count of each form seen, bare (空太) or with its honorific (空太先輩, 空太くん). A name
    inside a longer one (空太 in 神田空太) counts as that longer one only."""
    wanted = {_folded(name): key for name, key in names.items() if _folded(name)}
    found: dict[str, Counter[str]] = {key: Counter() for key in names.values()}
    if not wanted:
        return found
    automaton = ahocorasick.Automaton()
    for folded in wanted:
        automaton.add_word(folded, folded)
    automaton.make_automaton()
    for text in texts:
        folded_text = _folded(text, trim=False)
        if len(folded_text) != len(text):
            text = folded_text  # normalization changed the lengths: read the folded text
        hits = sorted(
            ((end - len(name) + 1, end + 1, name) for end, name in automaton.iter(folded_text)),
            key=lambda hit: (hit[0], -(hit[1] - hit[0])),
        )
        reached = 0
        for start, end, name in hits:
            if start < reached:
                continue  # inside a longer name already counted
            reached = end
            if _word_inside(folded_text, start, end, name):
                continue
            form = text[start:end] + honorific_after(text, end)
            found[wanted[name]][form] += 1
    return found


def _word_inside(text: str, start: int, end: int, name: str) -> bool:
    """A Latin name found inside a longer word (Al in Also)."""

    def letter(ch: str) -> bool:
        return ch.isascii() and ch.isalnum()

    return (letter(name[0]) and start > 0 and letter(text[start - 1])) or (
        letter(name[-1]) and end < len(text) and letter(text[end])
    )


def _folded(text: str, *, trim: bool = True) -> str:
    if trim:
        text = text.strip()
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text.casefold()


def _long_enough(base: str) -> bool:
    return len(base.strip(" ・-")) >= MIN_BASE_CHARS
