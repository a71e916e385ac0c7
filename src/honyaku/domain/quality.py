"""Quality checks on a paragraph's translation: what a careful reader would flag.

Each check is a pure function of the source, the translation and what it needs to know (the
languages, the accepted glossary entries found in the source); each problem it finds is a
``QualityWarning`` with a code and a message a model or a person can act on. The checks never
refuse anything: a batch with warnings is accepted, the warnings go back to the model with
the result (to fix in review) and are kept with the version they describe.

- ``UNTRANSLATED_KANA``: a Chinese translation that still holds a run of kana.
- ``SAME_AS_SOURCE``: a translation identical to its source (a source of Han characters only
  may stay as it is in Chinese: a name, a title).
- ``LENGTH_OUT_OF_BAND``: a translation much shorter or longer than its source usually is for
  that pair of languages (``LENGTH_BANDS``); short sources are not judged.
- ``UNBALANCED_BRACKETS``: 「」『』“”（）() opened and closed a different number of times in
  the translation, where the source had them balanced.
- ``QUOTE_LOST``: a source that opens with a quotation mark, translated without any.
- ``GLOSSARY_TERM_MISSING``: an accepted entry occurs in the source, its rendering does not
  occur in the translation.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from honyaku.domain.glossary import GlossaryEntry, match_key
from honyaku.domain.languages import is_chinese

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
    paragraph_id: str = "",
) -> list[QualityWarning]:
    """Every problem the checks find in ``translation`` of ``source``; ``terms`` are the
    accepted glossary entries that occur in the source."""
    problems = [
        *untranslated(source, translation, target_lang=target_lang),
        *length_out_of_band(source, translation, source_lang=source_lang, target_lang=target_lang),
        *punctuation(source, translation),
        *glossary_terms_missing(translation, terms),
    ]
    return [QualityWarning(p.code, p.message, paragraph_id) for p in problems]


def untranslated(source: str, translation: str, *, target_lang: str) -> list[QualityWarning]:
    problems = []
    if is_chinese(target_lang) and (run := _KANA_RUN.search(translation)):
        problems.append(
            QualityWarning(
                "UNTRANSLATED_KANA",
                f"the translation still holds Japanese kana ({run.group()!r}): translate it",
            )
        )
    if _same(source, translation) and _letters(source) and not _only_han(source, target_lang):
        problems.append(
            QualityWarning("SAME_AS_SOURCE", "the translation is the source text, untranslated")
        )
    return problems


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


def _base(language: str) -> str:
    return language.lower().split("-")[0]


def _same(source: str, translation: str) -> bool:
    return _squeezed(source) == _squeezed(translation)


def _squeezed(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def _letters(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())


def _only_han(source: str, target_lang: str) -> bool:
    letters = _letters(source)
    return is_chinese(target_lang) and all(_HAN.match(ch) or ch.isdigit() for ch in letters)


def _balance(text: str, pair: tuple[str, str]) -> int:
    opening, closing = pair
    return text.count(opening) - text.count(closing)
