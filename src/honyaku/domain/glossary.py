"""Glossary entries (terms and characters), how they are matched in text, and when a proposal
contradicts what the translator accepted.

An entry is a term or a character: a source as the book writes it, its rendering in the
target language, a note, and a kind (``character`` for a person, ``term`` by default, or any
word a translator uses: place, organization, skill…). A character also has aliases and a
gender. Entries are matched case- and width-insensitively: source, aliases and text are all
NFKC-normalized and case-folded, so ``ＡＬＩＣＥ`` finds ``alice`` and half-width katakana
find full-width ones.

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

CHARACTER = "character"
DEFAULT_KIND = "term"
MAX_SOURCE_CHARS = 200


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

    @property
    def is_character(self) -> bool:
        return self.kind == CHARACTER

    @property
    def key(self) -> str:
        """What identifies the entry in its glossary: its normalized source."""
        return match_key(self.source)

    @property
    def match_keys(self) -> tuple[str, ...]:
        keys = (match_key(s) for s in (self.source, *self.aliases))
        return tuple(dict.fromkeys(k for k in keys if k))


def match_key(text: str) -> str:
    """``text`` as glossary matching sees it: NFKC (widths unified), case-folded, trimmed."""
    return unicodedata.normalize("NFKC", text).casefold().strip()


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
    return GlossaryEntry(
        source,
        target,
        " ".join(entry.note.split()),
        entry.kind.strip().lower() or DEFAULT_KIND,
        tuple(a for a in aliases if match_key(a) != match_key(source)),
        entry.gender.strip(),
        entry.reading.strip(),
        entry.status,
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
    entry: int
    length: int
    word_start: bool
    """The key begins with a Latin letter or digit: it must not follow one in the text."""
    word_end: bool


@dataclass
class GlossaryMatcher:
    """The entries of a glossary, ready to be found in text."""

    entries: Sequence[GlossaryEntry]
    _automaton: ahocorasick.Automaton | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        keys: dict[str, list[_Key]] = {}
        for index, entry in enumerate(self.entries):
            for key in entry.match_keys:
                found = _Key(index, len(key), _word_char(key[0]), _word_char(key[-1]))
                keys.setdefault(key, []).append(found)
        if not keys:
            return
        automaton = ahocorasick.Automaton()
        for key, found in keys.items():
            automaton.add_word(key, tuple(found))
        automaton.make_automaton()
        self._automaton = automaton

    def find(self, texts: Iterable[str]) -> list[GlossaryEntry]:
        """The entries that occur in ``texts``, in order of first occurrence."""
        if self._automaton is None:
            return []
        seen: dict[int, None] = {}
        for text in texts:
            normalized = match_key(text)
            for end, keys in self._automaton.iter(normalized):
                for key in keys:
                    if key.entry not in seen and _fits(normalized, end, key):
                        seen[key.entry] = None
        return [self.entries[index] for index in seen]


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
