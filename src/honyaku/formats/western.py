"""Telling Windows-1252 text from the other single-byte encodings that decode the same bytes.

Every single-byte encoding decodes every byte, so the bytes alone never say which one a file
uses: a Czech file read as Windows-1252 is "mìl tøi", an English one read as Windows-1257 is
"crčme brūlée". What tells them apart is how the result reads. Western European text (and
Latin-1, which Windows-1252 contains) uses the accented letters of one language, in words,
with typographic punctuation around them. Read in the wrong encoding, Central European,
Baltic, Turkish, Cyrillic or Greek text shows letters that no single Western language uses
together, and symbols inside words ("mo¿e", "by³o").
"""

from __future__ import annotations

from collections import Counter

CODEC = "cp1252"

MAX_FOREIGN_SHARE = 0.005
"""Of all letters, how many may lie outside the text's language, or be symbols outside its
typography: a few stray ones, far fewer than a Central European text misread shows."""

MAX_LOANWORD_SHARE = 0.01
"""Of all letters, how many may be accented ones of any language: the loanwords of an English
book (café, naïve, smörgåsbord, piñata), far fewer than any misread text shows."""

MAX_SYMBOLS_IN_WORDS_SHARE = 0.001
"""Of all letters, how many symbols may stand between two letters."""

# The accented letters of each Western European language; a text uses those of one of them.
LANGUAGE_LETTERS = (
    "àâæçéèêëîïôœùûüÿ",  # French
    "äöüßé",  # German
    "áéíñóúü",  # Spanish
    "áâãàçéêíóôõú",  # Portuguese
    "àèéìíîòóù",  # Italian
    "áéëèíïóöúü",  # Dutch
    "àçéèíïòóúü",  # Catalan
    "åæøé",  # Danish, Norwegian
    "åäöé",  # Swedish, Finnish
    "áðéíóúýþæö",  # Icelandic
)
TYPOGRAPHY = frozenset("\xa0‘’‚“”„–—…«»‹›·•°©®™€£¥¢§¶†‡¡¿×÷±½¼¾¹²³ªº´¨¯¸")
WORD_INNER_PUNCTUATION = frozenset("’‘–—·-")


def reads_as_western(text: str) -> bool:
    """Whether ``text`` (bytes decoded as Windows-1252) reads as Western European text."""
    letters = sum(1 for char in text if char.isalpha())
    accented = Counter(char.lower() for char in text if char.isalpha() and not char.isascii())
    covered = max(sum(accented[char] for char in language) for language in LANGUAGE_LETTERS)
    one_language = accented.total() - covered <= letters * MAX_FOREIGN_SHARE
    loanwords = accented.total() <= letters * MAX_LOANWORD_SHARE
    odd_symbols = sum(
        1 for char in text if not char.isascii() and not char.isalpha() and char not in TYPOGRAPHY
    )
    return (
        (one_language or loanwords)
        and odd_symbols <= letters * MAX_FOREIGN_SHARE
        and _symbols_in_words(text) <= letters * MAX_SYMBOLS_IN_WORDS_SHARE
    )


def _symbols_in_words(text: str) -> int:
    return sum(
        1
        for before, char, after in zip(text, text[1:], text[2:], strict=False)
        if not char.isascii()
        and not char.isalpha()
        and char not in WORD_INNER_PUNCTUATION
        and before.isalpha()
        and after.isalpha()
    )
