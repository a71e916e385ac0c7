"""A new edition of a book matched against the book as it stands: what each paragraph and
chapter of the new file is, and what of the book it leaves out.

- A paragraph found with the same text (``alignment``) is **unchanged**: it keeps its id, its
  versions and its selection. One found with a similar text is **changed**: it keeps its id
  and versions and takes the new text; its selected translation becomes stale. Any other
  paragraph is **new**. A paragraph of the book the new file has nowhere is **gone**.
- A chapter of the new file continues the book's chapter that gave it most of its text
  (at least half of either one's text), each chapter of the book continued once; else the
  chapter with its title, if no other continues it. It keeps that chapter's id, and is
  unchanged if its title and paragraphs are, **changed** otherwise; a chapter that continues
  none is **new**; a chapter of the book nothing continues is **gone**. A chapter whose
  place among the others changed is **moved** as well.
- Empty paragraphs are layout: those of a continued chapter keep the ids of its empty
  paragraphs, in order, and are left out of the figures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum

from honyaku.domain.alignment import align_paragraphs, alignment_key
from honyaku.domain.book import (
    Book,
    BookDraft,
    Chapter,
    Paragraph,
    paragraph_text,
    stored_location,
)
from honyaku.domain.sources import SourceLocation

MIN_FOUND_SHARE = 0.2
"""Share of the book's paragraphs the new file must hold (same or similar) to be taken as
an edition of the book rather than another book."""
LINK_SHARE = 0.5
"""Share of either chapter's text two chapters must have in common for one to continue the
other."""


class Outcome(StrEnum):
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    NEW = "new"
    GONE = "gone"


@dataclass(frozen=True, slots=True)
class ParagraphPlan:
    """A paragraph of the new edition and what it is to the book."""

    id: str | None
    """The id it keeps; ``None`` for a new paragraph."""
    text: str
    outcome: Outcome
    source: SourceLocation | None = None
    previous_text: str | None = None
    """The book's text of it, for a paragraph that keeps its id."""

    @property
    def is_empty(self) -> bool:
        return not self.text


@dataclass(frozen=True, slots=True)
class ChapterPlan:
    """A chapter of the new edition, in the new file's order."""

    id: str | None
    title: str
    outcome: Outcome
    paragraphs: tuple[ParagraphPlan, ...]
    previous_title: str | None = None
    moved: bool = False
    title_source: SourceLocation | None = None


@dataclass(frozen=True, slots=True)
class GoneParagraph:
    id: str
    chapter_id: str
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class Tally:
    unchanged: int = 0
    changed: int = 0
    new: int = 0
    gone: int = 0

    @classmethod
    def of(cls, outcomes: Sequence[Outcome]) -> Tally:
        return cls(*(sum(1 for o in outcomes if o is kind) for kind in Outcome))


@dataclass(frozen=True, slots=True)
class EditionSummary:
    chapters: Tally
    moved_chapters: int
    paragraphs: Tally
    """Work paragraphs only: empty ones are layout."""
    book_paragraphs: int
    """The book's work paragraphs before the edition."""

    @property
    def found(self) -> int:
        """The book's paragraphs the new edition holds, same or similar."""
        return self.paragraphs.unchanged + self.paragraphs.changed

    @property
    def found_share(self) -> float:
        return self.found / self.book_paragraphs if self.book_paragraphs else 1.0

    @property
    def is_plausible(self) -> bool:
        """Whether the new file can be an edition of the book (``MIN_FOUND_SHARE``)."""
        return self.found_share >= MIN_FOUND_SHARE


@dataclass(frozen=True, slots=True)
class EditionMatch:
    chapters: tuple[ChapterPlan, ...]
    gone_chapters: tuple[str, ...]
    gone_paragraphs: tuple[GoneParagraph, ...]
    summary: EditionSummary


@dataclass(frozen=True, slots=True)
class _Found:
    chapter: int
    paragraph: Paragraph
    similar: bool


def match_edition(book: Book, draft: BookDraft) -> EditionMatch:
    """What each chapter and paragraph of ``draft`` is to ``book`` (see the module)."""
    texts = [[paragraph_text(raw) for raw in chapter.paragraphs] for chapter in draft.chapters]
    old = [(c, p) for c, chapter in enumerate(book.chapters) for p in chapter.work_paragraphs]
    new = [(d, k) for d, chapter in enumerate(texts) for k, text in enumerate(chapter) if text]
    alignment = align_paragraphs([p.text for _, p in old], [texts[d][k] for d, k in new])
    found = {
        new[j]: _Found(*old[i], similar=j in alignment.similar) for j, i in alignment.pairs.items()
    }
    links = _chapter_links(book, draft, texts, found)
    moved = _moved(links)
    chapters = tuple(
        _chapter_plan(book, draft, texts, found, d, links.get(d), moved) for d in range(len(texts))
    )
    kept = {p.id for chapter in chapters for p in chapter.paragraphs if p.id}
    gone_paragraphs = tuple(
        GoneParagraph(p.id, chapter.id, p.index, p.text)
        for chapter in book.chapters
        for p in chapter.paragraphs
        if p.id not in kept
    )
    linked = {book.chapters[c].id for c in links.values()}
    gone_chapters = tuple(c.id for c in book.chapters if c.id not in linked)
    summary = EditionSummary(
        Tally.of([c.outcome for c in chapters] + [Outcome.GONE] * len(gone_chapters)),
        sum(1 for c in chapters if c.moved),
        Tally.of(
            [p.outcome for c in chapters for p in c.paragraphs if not p.is_empty]
            + [Outcome.GONE for p in gone_paragraphs if p.text]
        ),
        len(old),
    )
    return EditionMatch(chapters, gone_chapters, gone_paragraphs, summary)


def _chapter_links(
    book: Book, draft: BookDraft, texts: list[list[str]], found: dict[tuple[int, int], _Found]
) -> dict[int, int]:
    """New chapter -> the book's chapter it continues."""
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for (d, k), hit in found.items():
        shared[d, hit.chapter] += len(texts[d][k])
    new_sizes = [sum(map(len, chapter)) for chapter in texts]
    old_sizes = [sum(len(p.text) for p in chapter.paragraphs) for chapter in book.chapters]
    links: dict[int, int] = {}
    for (d, c), size in sorted(shared.items(), key=lambda item: (-item[1], item[0])):
        substantial = size >= LINK_SHARE * min(new_sizes[d], old_sizes[c])
        if substantial and d not in links and c not in links.values():
            links[d] = c
    free = [c for c in range(len(book.chapters)) if c not in links.values()]
    for d, chapter in enumerate(draft.chapters):
        title = alignment_key(chapter.title)
        same = next((c for c in free if alignment_key(book.chapters[c].title) == title), None)
        if d not in links and same is not None:
            links[d] = same
            free.remove(same)
    return links


def _moved(links: dict[int, int]) -> set[int]:
    """New chapters whose place among the continued chapters changed."""
    order = [links[d] for d in sorted(links)]
    blocks = SequenceMatcher(None, sorted(order), order, autojunk=False).get_matching_blocks()
    in_place = {j + k for _, j, size in blocks for k in range(size)}
    return {d for j, d in enumerate(sorted(links)) if j not in in_place}


def _chapter_plan(
    book: Book,
    draft: BookDraft,
    texts: list[list[str]],
    found: dict[tuple[int, int], _Found],
    d: int,
    link: int | None,
    moved: set[int],
) -> ChapterPlan:
    chapter = draft.chapters[d]
    previous = book.chapters[link] if link is not None else None
    empties = [p for p in previous.paragraphs if p.is_empty] if previous else []
    paragraphs = []
    for k, text in enumerate(texts[d]):
        source = chapter.source_of(k)
        if source is not None:
            source = stored_location(chapter.paragraphs[k], source)
        hit = found.get((d, k))
        if hit is not None:
            outcome = Outcome.CHANGED if hit.similar else Outcome.UNCHANGED
            paragraphs.append(
                ParagraphPlan(hit.paragraph.id, text, outcome, source, hit.paragraph.text)
            )
        elif not text and empties:
            paragraphs.append(ParagraphPlan(empties.pop(0).id, "", Outcome.UNCHANGED, source, ""))
        else:
            paragraphs.append(ParagraphPlan(None, text, Outcome.NEW, source))
    if previous is None:
        return ChapterPlan(
            None, chapter.title, Outcome.NEW, tuple(paragraphs), title_source=chapter.title_source
        )
    outcome = (
        Outcome.UNCHANGED if _same_chapter(previous, chapter.title, paragraphs) else Outcome.CHANGED
    )
    return ChapterPlan(
        previous.id,
        chapter.title,
        outcome,
        tuple(paragraphs),
        previous.title,
        d in moved,
        chapter.title_source,
    )


def _same_chapter(previous: Chapter, title: str, paragraphs: list[ParagraphPlan]) -> bool:
    before = [(p.id, p.text) for p in previous.paragraphs]
    return previous.title == title and before == [(p.id, p.text) for p in paragraphs]
