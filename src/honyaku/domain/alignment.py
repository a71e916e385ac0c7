"""Which paragraph of an old text is which paragraph of a new one: a sequence alignment.

Texts are compared normalised (``alignment_key``: NFKC, no whitespace, case folded), so a
change of width or spacing is no change. Each pass pairs what the ones before left:

1. an ordered alignment of equal texts (``difflib.SequenceMatcher``): the text that kept its
   place;
2. equal or similar texts near their old place: for each run of new paragraphs still
   unpaired, the unpaired old paragraphs right after the old paragraph its left neighbour is
   paired with and right before its right neighbour's. A pair is similar when the texts are
   mostly the same (a few characters edited: ``SIMILAR_RATIO``) or when one is nearly whole
   inside the other (a paragraph split in two or two merged: ``CONTAINED_SHARE``); the best
   pairs are taken first (equal texts, then the closest), so of a split paragraph the larger
   part keeps it, and a line repeated all through the book (「……」) keeps its place;
3. equal texts anywhere, in order: a chapter moved elsewhere in the book;
4. pass 2 again, around what pass 3 found: an edit inside a moved chapter.

Pass 2 compares with rapidfuzz's indel similarity (the ratio difflib computes, in C).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from rapidfuzz import process
from rapidfuzz.distance import Indel

SIMILAR_RATIO = 0.75
"""Indel similarity (2 × common characters / both lengths) from which two texts are one
paragraph edited."""
CONTAINED_SHARE = 0.9
"""Share of the shorter text found, in order, in the longer one from which the shorter is a
part of the longer (a split or a merge)..."""
MIN_PART_SHARE = 0.25
"""...when it is at least this share of the longer one's length."""
MAX_RUN_PAIRS = 1_000_000
"""Pairs compared for one run of unpaired paragraphs at most: beyond it (a whole chapter
replaced by another), the run is left new and its neighbours gone."""

_LOWEST_SIMILAR_RATIO = min(
    SIMILAR_RATIO, 2 * CONTAINED_SHARE * MIN_PART_SHARE / (1 + MIN_PART_SHARE)
)
"""The lowest ratio a similar pair can have: a part of the smallest share, found whole."""
_SPACE = re.compile(r"\s+")


def alignment_key(text: str) -> str:
    """What the alignment compares: ``text`` without width, case or whitespace."""
    return _SPACE.sub("", unicodedata.normalize("NFKC", text)).casefold()


@dataclass(frozen=True, slots=True)
class Alignment:
    """New paragraph index -> old paragraph index, for the paragraphs found in both."""

    pairs: dict[int, int]
    similar: frozenset[int]
    """New indices paired with a similar, not an equal, old text."""


def align_paragraphs(old: Sequence[str], new: Sequence[str]) -> Alignment:
    """Pair the paragraphs of ``new`` with those of ``old`` they continue (see the module)."""
    old_keys = [alignment_key(text) for text in old]
    new_keys = [alignment_key(text) for text in new]
    pairs = _in_place(old_keys, new_keys)
    _near(old_keys, new_keys, pairs)
    _moved(old_keys, new_keys, pairs)
    _near(old_keys, new_keys, pairs)
    similar = {j for j, i in pairs.items() if new_keys[j] != old_keys[i]}
    return Alignment(pairs, frozenset(similar))


def _in_place(old: list[str], new: list[str]) -> dict[int, int]:
    # autojunk leaves lines that fill over 1% of the text (「……」) to the next passes:
    # anchoring on them would cost quadratic time for nothing.
    matcher = SequenceMatcher(None, old, new)
    return {j + k: i + k for i, j, size in matcher.get_matching_blocks() for k in range(size)}


def _moved(old: list[str], new: list[str], pairs: dict[int, int]) -> None:
    taken = set(pairs.values())
    free: dict[str, deque[int]] = defaultdict(deque)
    for i, key in enumerate(old):
        if i not in taken:
            free[key].append(i)
    for j, key in enumerate(new):
        if j not in pairs and free.get(key):
            pairs[j] = free[key].popleft()


def _near(old: list[str], new: list[str], pairs: dict[int, int]) -> None:
    paired_old = [False] * len(old)
    for i in pairs.values():
        paired_old[i] = True
    for run in _unpaired_runs(len(new), pairs):
        left = pairs.get(run.start - 1, -1)
        right = pairs.get(run.stop, len(old))
        candidates = sorted(
            set(_free_after(paired_old, left)) | set(_free_before(paired_old, right))
        )
        if not candidates or len(run) * len(candidates) > MAX_RUN_PAIRS:
            continue
        for j, i in _best_pairs(old, new, run, candidates):
            pairs[j] = i
            paired_old[i] = True


def _unpaired_runs(count: int, pairs: dict[int, int]) -> Iterator[range]:
    j = 0
    while j < count:
        if j in pairs:
            j += 1
            continue
        start = j
        while j < count and j not in pairs:
            j += 1
        yield range(start, j)


def _free_after(paired: list[bool], index: int) -> Iterator[int]:
    index += 1
    while index < len(paired) and not paired[index]:
        yield index
        index += 1


def _free_before(paired: list[bool], index: int) -> Iterator[int]:
    index -= 1
    while index >= 0 and not paired[index]:
        yield index
        index -= 1


def _best_pairs(
    old: list[str], new: list[str], run: range, candidates: list[int]
) -> list[tuple[int, int]]:
    """The similar pairs of ``run`` and ``candidates``, best first, each paragraph once."""
    choices = [old[i] for i in candidates]
    scored = []
    for j in run:
        found = process.extract(
            new[j],
            choices,
            scorer=Indel.normalized_similarity,
            score_cutoff=_LOWEST_SIMILAR_RATIO,
            limit=None,
        )
        for _, score, k in found:
            if _is_similar(new[j], choices[k], score):
                scored.append((score, j, candidates[k]))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    chosen: list[tuple[int, int]] = []
    used_new: set[int] = set()
    used_old: set[int] = set()
    for _, j, i in scored:
        if j not in used_new and i not in used_old:
            chosen.append((j, i))
            used_new.add(j)
            used_old.add(i)
    return chosen


def _is_similar(a: str, b: str, ratio: float) -> bool:
    if ratio >= SIMILAR_RATIO:
        return True
    shorter, longer = sorted((len(a), len(b)))
    if not shorter or shorter < MIN_PART_SHARE * longer:
        return False
    common = ratio * (shorter + longer) / 2
    return common >= CONTAINED_SHARE * shorter
