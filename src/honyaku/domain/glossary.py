"""Glossary entries (terms and characters), how they are matched in text, and when a proposal
contradicts what the translator accepted.

An entry is a term or a character: a source as the book writes it, its rendering in the
target language, a note, and a kind (``character`` for a person, ``term`` by default, or any
word a translator uses: place, organization, skill…). A character also has aliases, a gender,
the pronoun the target language uses for it and a note on how it speaks (the cast:
``domain.cast``). Entries are matched case- and width-insensitively: source, aliases and text
are all NFKC-normalized and case-folded, so ``ＡＬＩＣＥ`` finds ``alice`` and half-width
katakana find full-width ones. A character is also found by the base of each of its names
(``domain.honorifics``): an entry for 空太先輩 reaches the chunks that say 空太 or 空太くん.

``GlossaryMatcher`` finds which entries occur in some texts with one Aho-Corasick automaton
over every key (``pyahocorasick``): a chunk's glossary is found in time proportional to its
text, whatever the glossary's size. Keys that begin or end with a Latin letter or digit match
whole words only, so ``Al`` is not found in ``Also``; CJK text has no word boundaries.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import ahocorasick

from honyaku.domain.honorifics import base_name

CHARACTER = "character"
DEFAULT_KIND = "term"
MAX_SOURCE_CHARS = 200
MAX_PRONOUN_CHARS = 40
MAX_SPEECH_CHARS = 500


class EntryStatus(StrEnum):
    PROPOSED = "proposed"
    """Suggested by a model: shown to the translator, never injected until accepted."""
    ACCEPTED = "accepted"


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    source: str
    target: str
    note: str = ""
    kind: str = DEFAULT_KIND
    aliases: tuple[str, ...] = ()
    """Other spellings of the same name or term: nicknames, short forms."""
    gender: str = ""
    reading: str = ""
    """How the source is read (kana for Japanese names), where known."""
    status: EntryStatus = EntryStatus.ACCEPTED
    pronoun: str = ""
    """A character's pronoun in the target language (他, 她, TA; il, elle), where set."""
    speech: str = ""
    """How a character speaks (register, verbal tics), briefly."""

    @property
    def is_character(self) -> bool:
        return self.kind == CHARACTER

    @property
    def key(self) -> str:
        """What identifies the entry in its glossary: its normalized source."""
        return match_key(self.source)

    @property
    def match_keys(self) -> tuple[str, ...]:
        """What finds the entry in text: its source and aliases, and for a character the
        base of each (空太 for 空太先輩)."""
        names = (self.source, *self.aliases)
        keys = [match_key(name) for name in names]
        if self.is_character:
            keys += [match_key(base_name(name)) for name in names]
        return tuple(dict.fromkeys(k for k in keys if k))


def match_key(text: str) -> str:
    """``text`` as glossary matching sees it: NFKC (widths unified), case-folded, trimmed."""
    return _normalized(text)


def _normalized(text: str) -> str:
    # Most paragraphs are NFKC already once their indentation (an ideographic space, which
    # NFKC would change) is off: checking costs a fortieth of normalizing.
    text = text.strip()
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text.casefold()


def clean_entry(entry: GlossaryEntry) -> GlossaryEntry:
    """The entry with its fields trimmed and its kind lower-cased; raises ``ValueError`` for a
    blank or overlong source or a blank target."""
    source, target = entry.source.strip(), entry.target.strip()
    if not source or "\n" in source:
        raise ValueError("the source must be one non-empty line")
    if len(source) > MAX_SOURCE_CHARS:
        raise ValueError(f"the source is longer than {MAX_SOURCE_CHARS} characters")
    if not target:
        raise ValueError(f"{source}: the target is blank")
    aliases = tuple(dict.fromkeys(a.strip() for a in entry.aliases if a.strip()))
    if len(entry.pronoun.strip()) > MAX_PRONOUN_CHARS:
        raise ValueError(f"{source}: the pronoun is longer than {MAX_PRONOUN_CHARS} characters")
    if len(entry.speech.strip()) > MAX_SPEECH_CHARS:
        raise ValueError(f"{source}: the speech note is longer than {MAX_SPEECH_CHARS} characters")
    return GlossaryEntry(
        source,
        target,
        " ".join(entry.note.split()),
        entry.kind.strip().lower() or DEFAULT_KIND,
        tuple(a for a in aliases if match_key(a) != match_key(source)),
        entry.gender.strip(),
        entry.reading.strip(),
        entry.status,
        entry.pronoun.strip(),
        " ".join(entry.speech.split()),
    )


def same_rendering(a: str, b: str) -> bool:
    return match_key(a) == match_key(b)


def contradiction(proposal: GlossaryEntry, existing: GlossaryEntry | None) -> bool:
    """Whether ``proposal`` renders an accepted entry's source differently."""
    return (
        existing is not None
        and existing.status is EntryStatus.ACCEPTED
        and not same_rendering(proposal.target, existing.target)
    )


@dataclass(frozen=True, slots=True)
class _Key:
    length: int
    word_start: bool
    """The key begins with a Latin letter or digit: it must not follow one in the text."""
    word_end: bool


@dataclass
class GlossaryMatcher:
    """The entries of a glossary, ready to be found in text."""

    entries: Sequence[GlossaryEntry]
    _automaton: ahocorasick.Automaton | None = field(init=False, default=None)
    _entries_of: list[tuple[int, ...]] = field(init=False, default_factory=list)
    """By key number: the entries the key finds (an alias may be shared)."""
    _bounded: list[_Key | None] = field(init=False, default_factory=list)
    """By key number: the key if it must match whole words, else ``None``."""

    def __post_init__(self) -> None:
        by_key: dict[str, list[int]] = {}
        for index, entry in enumerate(self.entries):
            for key in entry.match_keys:
                by_key.setdefault(key, []).append(index)
        if not by_key:
            return
        automaton = ahocorasick.Automaton()
        for number, (key, indexes) in enumerate(by_key.items()):
            automaton.add_word(key, number)
            self._entries_of.append(tuple(indexes))
            bounded = _Key(len(key), _word_char(key[0]), _word_char(key[-1]))
            self._bounded.append(bounded if bounded.word_start or bounded.word_end else None)
        automaton.make_automaton()
        self._automaton = automaton

    def find(self, texts: Iterable[str]) -> list[GlossaryEntry]:
        """The entries that occur in ``texts``, in the matcher's order."""
        automaton = self._automaton
        if automaton is None:
            return []
        bounded, found = self._bounded, set[int]()
        add = found.add
        # One pass over all the texts: no key holds a line break, so none spans two texts.
        normalized = "\n".join([_normalized(text) for text in texts])
        # The hot loop: a chunk holds thousands of hits, most of them keys seen before.
        for end, number in automaton.iter(normalized):
            key = bounded[number]
            if key is None or (number not in found and _fits(normalized, end, key)):
                add(number)
        if not found:
            return []
        entries_of = self._entries_of
        indexes = sorted({index for number in found for index in entries_of[number]})
        return [self.entries[index] for index in indexes]


def _word_char(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _fits(text: str, end: int, key: _Key) -> bool:
    start = end - key.length + 1
    if key.word_start and start > 0 and _word_char(text[start - 1]):
        return False
    return not (key.word_end and end + 1 < len(text) and _word_char(text[end + 1]))


def search_entries(entries: Iterable[GlossaryEntry], query: str) -> list[GlossaryEntry]:
    """Entries whose source, aliases, target or reading contain ``query``, or that occur in it
    (a sentence asks for the names it holds)."""
    wanted = match_key(query)
    if not wanted:
        return []
    found = []
    for entry in entries:
        fields = (*entry.match_keys, match_key(entry.target), match_key(entry.reading))
        if any(wanted in f for f in fields if f) or any(k in wanted for k in entry.match_keys):
            found.append(entry)
    return found
