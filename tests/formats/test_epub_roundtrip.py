"""Round trips: what honyaku exports, honyaku imports back unchanged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from honyaku.domain.book import Book, BookDraft, ChapterDraft
from honyaku.formats import ExportFormat, read_book, write_book
from honyaku.formats.chapters import same_title
from honyaku.formats.headings import HeadingMatcher
from honyaku.formats.plaintext import MAX_TITLE_CHARS, TITLE_END_CHARS

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
ROUND_TRIP_BOOKS = [
    BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub",
    BOOKS / "epub" / "frankenstein_en_pg84_epub2" / "frankenstein_en_pg84_epub2.epub",
    BOOKS / "epub" / "moby-dick_en_epub3" / "moby-dick_en_epub3.epub",
    BOOKS / "kojiki" / "03gendaigoyaku_kojiki.sjis.txt",
]
PROPERTY_EXAMPLES = 25
HEADING_MATCHER = HeadingMatcher()


def _shape(draft: BookDraft) -> list[tuple[str, tuple[str, ...]]]:
    return [(chapter.title, chapter.paragraphs) for chapter in draft.chapters]


@pytest.mark.parametrize("source", ROUND_TRIP_BOOKS, ids=lambda p: p.stem)
def test_an_imported_book_exported_as_epub_imports_back_the_same(
    tmp_path: Path, source: Path, book_from: Callable[..., Book]
) -> None:
    draft = read_book(source)
    exported = tmp_path / "again.epub"

    write_book(book_from(draft), exported, ExportFormat.EPUB)
    again = read_book(exported)

    assert len(again.chapters) == len(draft.chapters)
    assert _shape(again) == _shape(draft)
    assert again.title == draft.title


# Text as the importers leave it: no layout whitespace at the ends or doubled inside, no
# control characters; a paragraph is either empty or holds something visible.
_WORD = st.text(
    alphabet=st.one_of(
        st.sampled_from("あいうえお漢字カナ。、「」ー"),
        st.characters(codec="utf-8", categories=("L", "N", "P", "S")),
    ),
    min_size=1,
    max_size=8,
)
_LINE = st.lists(_WORD, min_size=1, max_size=5).map(" ".join)


def _is_plain_prose(line: str) -> bool:
    """Lines a text file would read back as they are: no heading, no notation, no title end."""
    return not HEADING_MATCHER.level(line) and not any(m in line for m in ("《", "［＃", "底本"))


@st.composite
def _drafts(draw: st.DrawFn, *, for_text: bool = False) -> BookDraft:
    line = _LINE.filter(_is_plain_prose) if for_text else _LINE
    chapters = []
    for number in range(1, draw(st.integers(min_value=1, max_value=4)) + 1):
        title = draw(line.filter(lambda t: not same_title("先頭", t)))
        if for_text:  # a text file only knows chapters by their heading lines
            title = draw(st.just(f"第{number}章 {title}").filter(HEADING_MATCHER.level))
        body = draw(st.lists(st.one_of(line, st.just("")), min_size=0, max_size=6))
        paragraphs = ["先頭", *body, "末尾"]  # ends are never empty: imports trim empty ends
        chapters.append(ChapterDraft(title, tuple(paragraphs)))
    book_title = draw(
        line.filter(lambda t: len(t) <= MAX_TITLE_CHARS and not t.endswith(TITLE_END_CHARS))
    )
    return BookDraft(title=book_title, chapters=tuple(chapters))


@settings(max_examples=PROPERTY_EXAMPLES, deadline=None)
@given(draft=_drafts())
def test_any_paragraphs_written_as_epub_read_back_the_same(
    draft: BookDraft, book_from: Callable[..., Book]
) -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / "property.epub"
        write_book(book_from(draft), path, ExportFormat.EPUB)
        again = read_book(path)

    assert _shape(again) == _shape(draft)
    assert again.title == draft.title


@settings(max_examples=PROPERTY_EXAMPLES, deadline=None)
@given(draft=_drafts(for_text=True))
def test_any_paragraphs_written_as_txt_read_back_the_same(
    draft: BookDraft, book_from: Callable[..., Book]
) -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / "property.txt"
        write_book(book_from(draft), path, ExportFormat.TXT)
        again = read_book(path)

    assert _shape(again) == _shape(draft)
    assert again.title == draft.title
