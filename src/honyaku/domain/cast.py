"""The cast: a book's characters as the glossary holds them, who is named where, and the
pronoun each takes in the target language.

A character is a glossary entry of kind ``character`` (``domain.glossary``): its names (the
source, aliases, and the base of each without its honorific, ``domain.honorifics``), its
gender, the target language's pronoun for it and a note on how it speaks, all optional.
``resolve_character`` finds the character a name means, whatever honorific it carries.

A character's pronoun is the one set on it, else the one its gender takes in the target
language (``PRONOUNS``: Chinese 他/她, English he/she, Japanese 彼/彼女). ``wrong_pronoun`` is the
check a batch's result carries: where a paragraph names one character only, and its source
holds no third-person pronoun (Japanese and Chinese dialogue usually leaves the subject out,
and the model guesses), a translation that says the other gender's pronoun, and never the
character's, is likely wrong. Compounds that only look like pronouns (其他, 吉他, 彼岸) and
plurals (他们, 她们, 彼ら) are never counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from honyaku.domain.glossary import GlossaryEntry, match_key
from honyaku.domain.honorifics import base_name


class Gender(StrEnum):
    MALE = "male"
    FEMALE = "female"
    NEUTER = "neuter"
    """An animal, a thing, a being the language calls "it" (它)."""


_GENDER_WORDS = {
    Gender.MALE: {
        "male", "m", "man", "boy", "he", "男", "男性", "男子", "男の子", "他", "il", "masculin",
    },
    Gender.FEMALE: {
        "female", "f", "woman", "girl", "she", "女", "女性", "女子", "女の子", "她", "elle",
        "féminin", "feminin",
    },
    Gender.NEUTER: {"neuter", "it", "它", "物", "animal"},
}  # fmt: skip


def gender_of(text: str) -> Gender | None:
    """The gender a glossary's free text names (male, 女, she…), or ``None``."""
    word = text.strip().casefold()
    return next((g for g, words in _GENDER_WORDS.items() if word in words), None)


@dataclass(frozen=True, slots=True)
class PronounFamily:
    """One gender's third-person pronouns in one language, and the look-alikes that are
    not them (compounds, plurals)."""

    gender: Gender
    pattern: re.Pattern[str]
    shown: str
    """How the family is named to the model and the translator (他, she)."""


def _family(gender: Gender, shown: str, pattern: str) -> PronounFamily:
    return PronounFamily(gender, re.compile(pattern, re.IGNORECASE), shown)


_ZH_MALE = r"(?<![其吉利排自])他(?![们們人乡鄉日国國处處方者杀殺])"
_ZH_FEMALE = r"她(?![们們])"
_ZH_NEUTER = r"(?<![其])[它牠](?![们們])"
_JA_MALE = r"彼(?![女ら方岸此氏])"
_JA_FEMALE = r"彼女(?!ら|達|たち)"

PRONOUNS: dict[str, tuple[PronounFamily, ...]] = {
    "zh": (
        _family(Gender.MALE, "他", _ZH_MALE),
        _family(Gender.FEMALE, "她", _ZH_FEMALE),
        _family(Gender.NEUTER, "它", _ZH_NEUTER),
    ),
    "en": (
        _family(Gender.MALE, "he", r"\b(?:he|him|his|himself)\b"),
        _family(Gender.FEMALE, "she", r"\b(?:she|her|hers|herself)\b"),
    ),
    "ja": (
        _family(Gender.MALE, "彼", _JA_MALE),
        _family(Gender.FEMALE, "彼女", _JA_FEMALE),
    ),
}
"""The third-person pronouns the check knows, by language. Languages whose pronouns also
serve nouns of that gender (French, German, Spanish: il, er, él) are shown the pronoun and not
checked: the check would cry wolf on every door and table."""


def pronoun_families(language: str) -> tuple[PronounFamily, ...]:
    return PRONOUNS.get(language.lower().split("-")[0], ())


def default_pronoun(gender: str, language: str) -> str:
    """The pronoun a character of ``gender`` takes in ``language``, where the check knows it."""
    wanted = gender_of(gender)
    return next((f.shown for f in pronoun_families(language) if f.gender is wanted), "")


def character_family(character: GlossaryEntry, language: str) -> PronounFamily | None:
    """The pronouns ``character`` takes in ``language``: its own pronoun's family, else its
    gender's; ``None`` where neither is known (or the pronoun is none of the language's
    gendered ones, such as TA)."""
    families = pronoun_families(language)
    if character.pronoun:
        for family in families:
            if family.pattern.fullmatch(character.pronoun.strip()):
                return family
        return None
    wanted = gender_of(character.gender)
    return next((f for f in families if f.gender is wanted), None)


def resolve_character(name: str, characters: Iterable[GlossaryEntry]) -> GlossaryEntry | None:
    """The character ``name`` means: one whose source, alias or their base is ``name`` or
    ``name`` without its honorific (空太くん → 空太)."""
    keys = {match_key(name), match_key(base_name(name))} - {""}
    return next((c for c in characters if keys & set(c.match_keys)), None)


def wrong_pronoun(
    source: str,
    translation: str,
    named: Sequence[GlossaryEntry],
    *,
    source_lang: str,
    target_lang: str,
) -> str | None:
    """What is wrong, where ``translation`` calls the only character ``named`` in ``source``
    by the other gender's pronoun and never by its own; ``None`` where nothing is."""
    if len(named) != 1:
        return None
    [character] = named
    own = character_family(character, target_lang)
    if own is None or any(f.pattern.search(source) for f in pronoun_families(source_lang)):
        return None  # nothing known of the character, or the source says who is meant
    if own.pattern.search(translation):
        return None
    other = [
        f.shown
        for f in pronoun_families(target_lang)
        if f is not own and f.pattern.search(translation)
    ]
    if not other:
        return None
    said = "/".join(other)
    return (
        f"{character.source} ({character.target}) is the only character named here and takes "
        f"{character.pronoun or own.shown}, but the translation says {said}: if {said} is "
        f"{character.target}, write {character.pronoun or own.shown}"
    )
