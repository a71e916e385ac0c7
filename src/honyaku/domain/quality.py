"""Quality checks on a paragraph's translation: what a careful reader would flag.

Each check is a pure function of the source, the translation and what it needs to know (the
languages, the accepted glossary entries found in the source); each problem it finds is a
``QualityWarning`` with a code and a message a model or a person can act on. The checks never
refuse anything: a batch with warnings is accepted, the warnings go back to the model with
the result (to fix in review) and are kept with the version they describe.

A text not in its target language gets one warning for one cause: leftover kana and a copied
source (together when both hold), else the other Chinese script, else a third language.

- ``UNTRANSLATED_KANA``: a Chinese translation that still holds a run of kana.
- ``SAME_AS_SOURCE``: a translation that copies its source: the same text, or nearly all of
  it (``NEARLY_COPIED_SIMILARITY``); a source of Han characters only may stay as it is in
  Chinese (a name, a title).
- ``WRONG_SCRIPT``: a Chinese translation written in the other script, Traditional characters
  for a Simplified target or the reverse (``chinese_scripts``, ``WRONG_SCRIPT_SHARE``).
- ``WRONG_LANGUAGE``: a translation mostly in letters its target language is not written in
  and its source is not either: a third language (English or Korean for a Chinese target).
- ``LENGTH_OUT_OF_BAND``: a translation much shorter or longer than its source usually is for
  that pair of languages (``LENGTH_BANDS``); short sources are not judged.
- ``UNBALANCED_BRACKETS``: 「」『』“”（）() opened and closed a different number of times in
  the translation, where the source had them balanced.
- ``QUOTE_LOST``: a source that opens with a quotation mark, translated without any.
- ``GLOSSARY_TERM_MISSING``: an accepted entry occurs in the source, its rendering does not
  occur in the translation.
- ``ADDRESS_FORM_MISSING``: the source writes a form of address the address book renders for
  a pair of characters present, and the translation holds none of its renderings
  (``domain.forms_of_address``).
- ``WRONG_PRONOUN``: the only character the source names is called by the other gender's
  pronoun, and never by its own (``domain.cast``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from honyaku.domain.cast import wrong_pronoun
from honyaku.domain.chinese_scripts import chinese_script, tally_scripts, written_in_script
from honyaku.domain.forms_of_address import FormOfAddress, address_forms_missing
from honyaku.domain.glossary import GlossaryEntry, match_key
from honyaku.domain.languages import is_chinese, script_of, scripts_written

MIN_CHARS_FOR_LENGTH = 20
"""Sources shorter than this (in letters) are not judged on length: a short exclamation may
rightly double or halve."""
LENGTH_BANDS: dict[tuple[str, str], tuple[float, float]] = {
    ("ja", "zh"): (0.3, 1.6),
    ("zh", "ja"): (0.7, 2.5),
    ("ja", "en"): (0.9, 5.0),
    ("zh", "en"): (1.2, 6.0),
    ("en", "ja"): (0.2, 1.1),
    ("en", "zh"): (0.15, 0.9),
    ("ja", "ko"): (0.6, 1.8),
    ("ko", "zh"): (0.4, 1.5),
}
"""Translation letters per source letter, lowest and highest, by (source, target) language."""
DEFAULT_LENGTH_BAND = (0.3, 3.5)

NEARLY_COPIED_SIMILARITY = 0.9
"""A translation at least this similar to its source (indel similarity, after whitespace and
full-width forms are normalised) copies it: a word or two changed is no translation."""
MIN_CHARS_FOR_NEARLY_COPIED = 20
"""Sources shorter than this (in letters) are judged only on an exact copy: a short line may
rightly stay nearly as it is (a name, a number, a sound)."""
WRONG_SCRIPT_SHARE = 0.5
"""A Chinese translation is in the other script when more than this share of its Han
characters that the two scripts write differently are written the other script's way. A
paragraph in the other script has them all so; a sentence in the target's script quoting a
name or a shop sign in the other one has a quarter or a third."""
MIN_WRONG_SCRIPT_CHARS = 3
"""...and at least this many of them: one ambiguous character, or a two-character name in a
short line, never warns."""
FOREIGN_LETTERS_SHARE = 0.8
"""A translation is in a third language when more than this share of its letters are in one
or more scripts its target language is not written in (digits and punctuation are no
letters). A Chinese sentence naming a program or a book in Latin letters stays below it, as
its Latin words are several letters each."""
MIN_LETTERS_FOR_LANGUAGE = 10
"""Translations with fewer letters are not judged on their language: an "OK!" or a brand name
may rightly stay in Latin letters."""
SCRIPT_NAMES = {
    "latin": "Latin letters",
    "hangul": "Hangul",
    "kana": "kana",
    "han": "Han characters",
}

_KANA_RUN = re.compile(r"[ぁ-ゖァ-ヺ][ぁ-ゖァ-ヺー]+")
"""Two kana or more: Chinese quotes a single の now and then, never a run."""
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
BRACKETS = (("「", "」"), ("『", "』"), ("“", "”"), ("（", "）"), ("(", ")"))
OPENING_QUOTES = "「『“‘\"«〝'"


@dataclass(frozen=True, slots=True)
class QualityWarning:
    code: str
    message: str
    paragraph_id: str = ""


def check_translation(
    source: str,
    translation: str,
    *,
    source_lang: str,
    target_lang: str,
    terms: Iterable[GlossaryEntry] = (),
    forms: Iterable[FormOfAddress] = (),
    paragraph_id: str = "",
) -> list[QualityWarning]:
    """Every problem the checks find in ``translation`` of ``source``; ``terms`` are the
    accepted glossary entries that occur in the source, ``forms`` the accepted forms of
    address its chunk was given."""
    terms = list(terms)
    problems = [
        *untranslated(source, translation, target_lang=target_lang),
        *length_out_of_band(source, translation, source_lang=source_lang, target_lang=target_lang),
        *punctuation(source, translation),
        *glossary_terms_missing(translation, terms),
        *forms_of_address_missing(source, translation, forms),
        *pronoun_of_the_other_gender(
            source, translation, terms, source_lang=source_lang, target_lang=target_lang
        ),
    ]
    return [QualityWarning(p.code, p.message, paragraph_id) for p in problems]


def untranslated(source: str, translation: str, *, target_lang: str) -> list[QualityWarning]:
    """What says the translation is not in its target language yet, one cause at a time:
    kana left in Chinese and a copied source (together when both hold), else the other
    Chinese script, else a third language."""
    if left := [
        *leftover_kana(translation, target_lang=target_lang),
        *copied_source(source, translation, target_lang=target_lang),
    ]:
        return left
    return wrong_script(translation, target_lang=target_lang) or wrong_language(
        source, translation, target_lang=target_lang
    )


def leftover_kana(translation: str, *, target_lang: str) -> list[QualityWarning]:
    if not is_chinese(target_lang) or not (run := _KANA_RUN.search(translation)):
        return []
    return [
        QualityWarning(
            "UNTRANSLATED_KANA",
            f"the translation still holds Japanese kana ({run.group()!r}): translate it",
        )
    ]


def copied_source(source: str, translation: str, *, target_lang: str) -> list[QualityWarning]:
    letters = _letters(source)
    if not letters or _only_han(letters, target_lang):
        return []
    original, copy = _squeezed(source), _squeezed(translation)
    if original == copy:
        return [
            QualityWarning("SAME_AS_SOURCE", "the translation is the source text, untranslated")
        ]
    if len(letters) < MIN_CHARS_FOR_NEARLY_COPIED:
        return []
    similarity = Indel.normalized_similarity(original, copy)
    if similarity < NEARLY_COPIED_SIMILARITY:
        return []
    return [
        QualityWarning(
            "SAME_AS_SOURCE",
            f"the translation is nearly all the source text ({similarity:.0%} the same), "
            "untranslated: translate it",
        )
    ]


def wrong_script(translation: str, *, target_lang: str) -> list[QualityWarning]:
    script = chinese_script(target_lang)
    if script is None or written_in_script(translation, target_lang) == translation:
        return []  # nothing the conversion into the target changes: the usual case, and cheap
    tally = tally_scripts(translation, target_lang)
    if tally.in_other < MIN_WRONG_SCRIPT_CHARS or tally.other_share <= WRONG_SCRIPT_SHARE:
        return []
    told = tally.in_target + tally.in_other
    return [
        QualityWarning(
            "WRONG_SCRIPT",
            f"the translation is written in {script.other} characters ({tally.in_other} of its "
            f"{told} characters that differ between the scripts, such as {' '.join(tally.fixes)}); "
            f"{target_lang} is written in {script}: rewrite it in {script} characters",
        )
    ]


def wrong_language(source: str, translation: str, *, target_lang: str) -> list[QualityWarning]:
    written = scripts_written(target_lang)
    letters = _letters_by_script(translation)
    total = sum(letters.values())
    if not written or total < MIN_LETTERS_FOR_LANGUAGE:
        return []
    foreign = Counter({s: n for s, n in letters.items() if s not in written})
    if foreign.total() <= FOREIGN_LETTERS_SHARE * total:
        return []
    [(script, count)] = foreign.most_common(1)
    source_scripts = _letters_by_script(source).most_common(1)
    if source_scripts and source_scripts[0][0] == script:
        return []  # the source's own letters kept: a copy or a quotation, judged as such
    return [
        QualityWarning(
            "WRONG_LANGUAGE",
            f"the translation is mostly {SCRIPT_NAMES[script]} ({count} of its {total} "
            f"letters), not {target_lang}: translate it into {target_lang}",
        )
    ]


def length_out_of_band(
    source: str, translation: str, *, source_lang: str, target_lang: str
) -> list[QualityWarning]:
    letters = len(_letters(source))
    if letters < MIN_CHARS_FOR_LENGTH:
        return []
    low, high = length_band(source_lang, target_lang)
    ratio = len(_letters(translation)) / letters
    if low <= ratio <= high:
        return []
    how = "shorter" if ratio < low else "longer"
    return [
        QualityWarning(
            "LENGTH_OUT_OF_BAND",
            f"the translation is {ratio:.2f} times the source's length, {how} than usual "
            f"({low:g}-{high:g}): check for a cut or an addition",
        )
    ]


def length_band(source_lang: str, target_lang: str) -> tuple[float, float]:
    pair = (_base(source_lang), _base(target_lang))
    return LENGTH_BANDS.get(pair, DEFAULT_LENGTH_BAND)


def punctuation(source: str, translation: str) -> list[QualityWarning]:
    problems = []
    if all(_balance(source, pair) == 0 for pair in BRACKETS):
        unbalanced = [o + c for o, c in BRACKETS if _balance(translation, (o, c)) != 0]
        if unbalanced:
            problems.append(
                QualityWarning(
                    "UNBALANCED_BRACKETS",
                    f"{' '.join(unbalanced)} opened and closed a different number of times",
                )
            )
    if source.lstrip()[:1] in OPENING_QUOTES and not any(q in translation for q in OPENING_QUOTES):
        problems.append(
            QualityWarning(
                "QUOTE_LOST",
                "the source opens a quotation and the translation has no quotation mark",
            )
        )
    return problems


def glossary_terms_missing(
    translation: str, terms: Iterable[GlossaryEntry]
) -> list[QualityWarning]:
    found = match_key(translation)
    missing = [t for t in terms if match_key(t.target) not in found]
    if not missing:
        return []
    listed = ", ".join(f"{t.source} → {t.target}" for t in missing)
    return [
        QualityWarning(
            "GLOSSARY_TERM_MISSING", f"the glossary's rendering is not in the translation: {listed}"
        )
    ]


def forms_of_address_missing(
    source: str, translation: str, forms: Iterable[FormOfAddress]
) -> list[QualityWarning]:
    message = address_forms_missing(source, translation, forms)
    return [QualityWarning("ADDRESS_FORM_MISSING", message)] if message else []


def pronoun_of_the_other_gender(
    source: str,
    translation: str,
    terms: Iterable[GlossaryEntry],
    *,
    source_lang: str,
    target_lang: str,
) -> list[QualityWarning]:
    named = [term for term in terms if term.is_character]
    message = wrong_pronoun(
        source, translation, named, source_lang=source_lang, target_lang=target_lang
    )
    return [QualityWarning("WRONG_PRONOUN", message)] if message else []


def _base(language: str) -> str:
    return language.lower().split("-")[0]


def _squeezed(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def _letters(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())


def _letters_by_script(text: str) -> Counter[str]:
    scripts = Counter(script_of(ch) for ch in text)
    del scripts["other"]
    return scripts


def _only_han(letters: str, target_lang: str) -> bool:
    return is_chinese(target_lang) and all(_HAN.match(ch) or ch.isdigit() for ch in letters)


def _balance(text: str, pair: tuple[str, str]) -> int:
    opening, closing = pair
    return text.count(opening) - text.count(closing)
