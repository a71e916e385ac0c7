"""The translation memory: earlier translations found for a paragraph whose source is the
same or nearly so.

What it remembers (``Remembered``) is a paragraph of the series (this book's, another
volume's) with its selected translation, or another translator's reference for it. Sources
are compared as the alignment of editions compares them (``alignment_key``: no width, case
or whitespace); paragraphs shorter than ``MIN_MEMORY_CHARS`` are left out (「はい」 is said a
thousand times, each time meaning something else).

``MemoryIndex`` answers without comparing a paragraph with every other:

- the same source, through a dictionary of keys;
- nearly the same (indel similarity ``NEARLY_SAME`` or more, rapidfuzz), through an inverted
  index of each key's character pairs (``GRAM``). Two texts that similar differ by at most
  ``d = 2 (1 - s) n / s`` insertions and deletions, each of which takes at most two of a
  text's pairs away: a text that holds none of the query's ``2 d + 1`` rarest pairs cannot be
  that similar (prefix filtering). Only the texts holding one of them, of a fitting length,
  are compared, in C.

``choose_translation`` picks what an exact match is written from memory with, where several
earlier translations of one source differ.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import Indel

from honyaku.domain.alignment import alignment_key

MIN_MEMORY_CHARS = 10
"""Sources shorter than this (once normalized) are neither remembered nor looked up."""
NEARLY_SAME = 0.9
"""Indel similarity from which a source is nearly the same as another: a word changed."""
GRAM = 2
"""Characters in each piece of a source the index keeps (its q-grams): pairs. Triples tell
texts of few distinct characters apart faster, but take twice as long to index."""
MAX_CANDIDATES = 2000
"""Texts compared for one query at most (a query of common pairs only, in a huge series)."""


def memory_key(text: str) -> str:
    """What the memory compares: ``text`` without width, case or whitespace."""
    return alignment_key(text)


@dataclass(frozen=True, slots=True)
class Remembered:
    """One paragraph of the series as the memory holds it."""

    book_id: str
    paragraph_id: str
    chapter: int
    """Its chapter's number, from 1."""
    index: int
    """Its position in the chapter."""
    source: str
    translation: str
    reference: str = ""
    """Where an imported reference came from (a file's name); empty for a translation."""
    order: int = 0
    """When it was written, against the others: the latest wins a tie."""

    @property
    def key(self) -> str:
        return memory_key(self.source)


@dataclass(frozen=True, slots=True)
class Recall:
    remembered: Remembered
    similarity: float
    """1.0 for the same source."""

    @property
    def exact(self) -> bool:
        return self.similarity >= 1.0


Allowed = Callable[[Remembered], bool]


@dataclass
class MemoryIndex:
    """The remembered paragraphs, found by their source; each paragraph held once (the
    latest ``put`` of it)."""

    _items: list[Remembered | None] = field(default_factory=list)
    _keys: list[str] = field(default_factory=list)
    """By item number: its source as the memory compares it, made once."""
    _where: dict[tuple[str, str], int] = field(default_factory=dict)
    _exact: dict[str, list[int]] = field(default_factory=dict)
    _pairs: dict[str, list[int]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self._where)

    def put(self, remembered: Iterable[Remembered]) -> None:
        """Remember each paragraph, in place of what was remembered of it before."""
        for item in remembered:
            key = item.key
            place = (item.book_id, item.paragraph_id)
            if (old := self._where.pop(place, None)) is not None:
                self._items[old] = None
            if len(key) < MIN_MEMORY_CHARS or not item.translation.strip():
                continue
            number = len(self._items)
            self._items.append(item)
            self._keys.append(key)
            self._where[place] = number
            self._exact.setdefault(key, []).append(number)
            for pair in _pairs(key):
                self._pairs.setdefault(pair, []).append(number)

    def places(self) -> list[tuple[str, str]]:
        """The paragraphs remembered: (book id, paragraph id) each."""
        return list(self._where)

    def exact(self, text: str, allowed: Allowed = lambda _: True) -> list[Remembered]:
        """What is remembered of ``text``'s very source, oldest first."""
        key = memory_key(text)
        if len(key) < MIN_MEMORY_CHARS:
            return []
        found = (self._items[n] for n in self._exact.get(key, ()))
        return [item for item in found if item is not None and allowed(item)]

    def recall(
        self, text: str, allowed: Allowed = lambda _: True, *, limit: int = 1
    ) -> list[Recall]:
        """The ``limit`` best remembered paragraphs whose source is ``text``'s or nearly so,
        the same source first, then the most similar."""
        key = memory_key(text)
        if len(key) < MIN_MEMORY_CHARS:
            return []
        same = [Recall(item, 1.0) for item in reversed(self.exact(text, allowed))]
        if len(same) >= limit:
            return same[:limit]
        near = sorted(
            self._near(key, allowed),
            key=lambda recall: (-recall.similarity, -recall.remembered.order),
        )
        return (same + near)[:limit]

    def _near(self, key: str, allowed: Allowed) -> list[Recall]:
        pairs = _pairs(key)
        if not pairs:
            return []
        length = len(key)
        most_edits = math.floor(2 * (1 - NEARLY_SAME) * length / NEARLY_SAME)
        rarest = sorted(pairs, key=lambda pair: len(self._pairs.get(pair, ())))
        candidates: set[int] = set()
        for pair in rarest[: GRAM * most_edits + 1]:
            candidates.update(self._pairs.get(pair, ()))
            if len(candidates) > MAX_CANDIDATES:
                break
        shortest = length * NEARLY_SAME / (2 - NEARLY_SAME)
        longest = length * (2 - NEARLY_SAME) / NEARLY_SAME
        keys, items = self._keys, self._items
        fitting = {
            number: keys[number]
            for number in candidates
            if items[number] is not None and shortest <= len(keys[number]) <= longest
        }
        alike = process.extract(
            key, fitting, scorer=Indel.normalized_similarity, score_cutoff=NEARLY_SAME, limit=None
        )
        found = []
        for other, similarity, number in alike:
            item = items[number]
            if item is not None and other != key and allowed(item):
                found.append(Recall(item, similarity))
        return found


def choose_translation(found: Iterable[Remembered]) -> str | None:
    """The translation most of ``found`` agree on; of a tie, the latest written."""
    items = list(found)
    if not items:
        return None
    counts = Counter(item.translation for item in items)
    latest = {item.translation: item.order for item in items}
    return max(counts, key=lambda text: (counts[text], latest[text]))


def _pairs(key: str) -> set[str]:
    return {key[i : i + GRAM] for i in range(len(key) - GRAM + 1)}
