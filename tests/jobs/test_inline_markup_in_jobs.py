"""Real books keep their inline markup through a translation: 草枕 (ruby, emphasis dots) and
Debian's Live Systems Manual (code, italics, bold, links), its Japanese edition and its English
one into Chinese, translated by the demo model and by a model that spoils its placeholders
(drops, repeats, reorders and invents them, writes them full-width), natively and in the XML
protocol. For every translated paragraph, the exported EPUB holds the source's inline elements
by name and attributes, its links resolve, and epubcheck finds nothing; bilingual too.

Each run is one test, a few chapters of its book: its givens are its own, however the tests
are spread over processes."""

from __future__ import annotations

import asyncio
import functools
import posixpath
import re
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urldefrag

import pytest
from lxml import etree

from honyaku.domain import JobKind
from honyaku.domain.book import BookDraft, Paragraph
from honyaku.domain.placeholders import (
    MARKUP_MISMATCH,
    PLACEHOLDER_RULE_ZH,
    RubyChoice,
    shown_line,
)
from honyaku.domain.sources import BookSources, InlineMark
from honyaku.formats import ExportFormat, read_book, write_book
from honyaku.formats.epub_reader import read_epub
from honyaku.formats.markup import parse_document
from honyaku.jobs import JobRequest
from honyaku.store import Library, Stores
from honyaku.testing import (
    FakeLLMServer,
    Mistake,
    ScriptedTranslator,
    pseudo_revision,
    pseudo_translation,
)

from ..conftest import BOOKS
from .conftest import connected, engine, run_to_end, tool_results

KUSAMAKURA = BOOKS / "epub/kusamakura_ja_epub3/kusamakura_ja_epub3.epub"
LIVE_MANUAL = Path("/usr/share/doc/live-manual/epub")
EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
XHTML = "{http://www.w3.org/1999/xhtml}"


@dataclass(frozen=True)
class Run:
    """A book, the chapters translated, the model and protocol, and the ruby setting."""

    name: str
    path: Path
    source_lang: str
    chapters: tuple[int, ...]
    spoils: bool
    protocol: str
    ruby: RubyChoice = RubyChoice.HINTS


RUNS = (
    Run("kusamakura-demo", KUSAMAKURA, "ja", (1,), False, "native"),
    Run("kusamakura-spoiled", KUSAMAKURA, "ja", (1,), True, "xml", RubyChoice.KEEP),
    Run("manual-ja-demo", LIVE_MANUAL / "live-manual.ja.epub", "ja", (2, 3, 4), False, "xml"),
    Run("manual-ja-spoiled", LIVE_MANUAL / "live-manual.ja.epub", "ja", (2, 3, 4), True, "native"),
    Run("manual-en-demo", LIVE_MANUAL / "live-manual.en.epub", "en", (2, 3, 4, 8), False, "native"),
    Run("manual-en-spoiled", LIVE_MANUAL / "live-manual.en.epub", "en", (2, 3, 4, 8), True, "xml"),
)


@functools.cache
def _draft(path: Path) -> BookDraft:
    return read_book(path)


@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_a_book_s_inline_markup_survives_its_translation_and_export(
    run: Run, library: Library, tmp_path: Path, epubcheck
):
    book_id = library.add_book(_draft(run.path), source_lang=run.source_lang, target_lang="zh-CN")
    library.update_settings(book_id, ruby=run.ruby)
    stores = Stores.over(library.database)
    mistakes = {Mistake.SPOILS_MARKUP} if run.spoils else set()

    with FakeLLMServer(translator=ScriptedTranslator(mistakes=mistakes), delta_chars=7) as server:
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, chapters=list(run.chapters))
        outcome, _ = asyncio.run(
            run_to_end(engine(stores), request, connected(server, run.protocol))
        )
    book = library.whole_book(book_id)
    sources = library.sources(book_id)
    assert sources is not None
    exported, bilingual = tmp_path / "alone.epub", tmp_path / "bilingual.epub"
    write_book(book, exported, ExportFormat.EPUB, sources=sources)
    write_book(book, bilingual, ExportFormat.EPUB, sources=sources, bilingual=True)

    assert outcome.ok
    assert outcome.left == []
    refused = [
        r
        for r in tool_results(stores.jobs, book_id, "add_translation_batch")
        if r.get("error_code") == MARKUP_MISMATCH
    ]
    assert bool(refused) is run.spoils  # the spoiler's mistakes are refused, then corrected
    paragraphs = [p for c in book.chapters if c.order in run.chapters for p in c.work_paragraphs]
    _read_back_around_the_same_words(paragraphs, run.ruby)
    _same_elements_in_export(paragraphs, sources, exported, run.ruby)
    broken_before = _unresolved(_documents(run.path))
    for path in (exported, bilingual):
        assert _unresolved(_documents(path)) <= broken_before, path.name
    _bilingual_as_its_source(bilingual, run.ruby)
    if run.path == KUSAMAKURA and run.ruby is RubyChoice.KEEP:
        # Ruby on translated words, repeated blocks: what epubcheck could object to. (The Live
        # Systems Manual's own EPUB holds thousands of epubcheck errors of its own: its exports
        # are held to what an export could add, ids, links and elements, above.)
        [report] = epubcheck([bilingual])
        assert report.clean, report.output


def _read_back_around_the_same_words(paragraphs: list[Paragraph], ruby: RubyChoice) -> None:
    """Every paragraph translated, each placeholder it was shown read back as a mark over the
    words its element held (the demo translates by keeping them)."""
    shown = 0
    for paragraph in paragraphs:
        line = shown_line(paragraph.text, paragraph.marks, ruby)
        assert paragraph.translation == pseudo_translation(paragraph.text), paragraph.id
        placed = {m.marks: m for m in paragraph.translation_marks}
        assert sorted(placed) == sorted(p.marks for p in line.placeholders), paragraph.id
        for placeholder in line.placeholders:
            mark = paragraph.marks[placeholder.marks[0]]
            where = placed[placeholder.marks]
            words = paragraph.translation[where.start : where.end]
            expected = paragraph.text[mark.start : mark.end] if mark.end > mark.start else ""
            assert words == (expected.strip() if placeholder.paired else placeholder.kept)
        shown += line.text != paragraph.text  # placeholders or readings shown
    assert shown >= 5


def _same_elements_in_export(
    paragraphs: list[Paragraph], sources: BookSources, exported: Path, ruby: RubyChoice
) -> None:
    """Each translated paragraph of the export holds its source's inline elements by name
    and attributes, read back from the exported EPUB; ruby as the book's setting says."""
    found = _located_marks(exported)
    differences = {}
    for paragraph in paragraphs:
        where = sources.paragraphs[paragraph.id]
        expected = _elements(where.marks, ruby)
        there = _elements(found[(where.document, where.locator)], RubyChoice.KEEP)
        if there != expected:
            differences[paragraph.id] = (expected - there, there - expected)
    assert differences == {}


def _bilingual_as_its_source(bilingual: Path, ruby: RubyChoice) -> None:
    """No id is repeated, and each translation repeated after its source holds the source's
    inline elements."""
    compared = 0
    for name, root in _documents(bilingual).items():
        repeated = [i for i, n in Counter(_ids(root)).items() if n > 1]
        assert repeated == [], name
        for translation in root.iter(f"{XHTML}*"):
            if "honyaku-translation" not in (translation.get("class") or "").split():
                continue
            source = translation.getprevious()
            if source is None or translation.tag != source.tag:
                continue  # a line followed by its translation, inside one block
            expected = _inline(source, ruby=ruby is RubyChoice.KEEP)
            assert _inline(translation, ruby=True) == expected
            compared += 1
    assert compared >= 5


def test_a_revision_keeps_the_markup_and_only_chunks_with_placeholders_are_told_of_them(
    library: Library,
):
    book_id = library.add_book(
        _draft(LIVE_MANUAL / "live-manual.en.epub"), source_lang="en", target_lang="zh-CN"
    )
    stores = Stores.over(library.database)
    chapters = [5, 8]  # the authors' list holds no markup; the chapter on translation does
    with FakeLLMServer(delta_chars=7) as server:
        for kind in (JobKind.TRANSLATION, JobKind.POLISH):
            request = JobRequest(book_id=book_id, kind=kind, chapters=chapters, chunk_chars=600)
            outcome, _ = asyncio.run(
                run_to_end(engine(stores), request, connected(server, "native"))
            )
            assert outcome.ok
        systems = [body["messages"][0]["content"] for body in server.requests]
        polished = library.whole_book(book_id, chapter_numbers=chapters)

    rule = f"- {PLACEHOLDER_RULE_ZH}"
    told = [s.endswith(rule) for s in systems]
    assert True in told
    assert False in told
    assert len({s.removesuffix(f"\n{rule}") for s in systems if "润色" not in s}) == 1
    for paragraph in (p for c in polished.chapters for p in c.work_paragraphs):
        line = shown_line(paragraph.text, paragraph.marks, RubyChoice.HINTS)
        assert paragraph.translation == pseudo_revision(
            pseudo_translation(paragraph.text), "polish"
        )
        assert sorted(m.marks for m in paragraph.translation_marks) == sorted(
            p.marks for p in line.placeholders
        )


def test_the_manual_s_chapter_as_markdown_writes_its_emphasis_code_and_links(
    library: Library, tmp_path: Path
):
    book_id = library.add_book(
        _draft(LIVE_MANUAL / "live-manual.en.epub"), source_lang="en", target_lang="zh-CN"
    )
    with FakeLLMServer() as server:
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, chapters=[2])
        asyncio.run(
            run_to_end(engine(Stores.over(library.database)), request, connected(server, "native"))
        )
    path = tmp_path / "manual.md"

    write_book(library.whole_book(book_id, chapter_numbers=[2]), path, ExportFormat.MD)

    text = path.read_text(encoding="utf-8")
    assert "〈译〉Some of the commands mentioned in the text must be executed" in text
    assert "via `su` or by using `sudo`" in text
    assert "*live-manual*" in text
    assert "**stretch**" in text
    assert "[http://debian-live.alioth.debian.org/](http://debian-live.alioth.debian.org/)" in text
    assert "⟦" not in text


def _located_marks(path: Path) -> dict[tuple[str, str], tuple[InlineMark, ...]]:
    draft = read_epub(path, path.name)
    return {
        (source.document, source.locator): source.marks
        for chapter in draft.chapters
        for source in chapter.sources
        if source is not None
    }


def _elements(marks, ruby: RubyChoice) -> Counter[tuple[str, tuple[tuple[str, str], ...]]]:
    """The inline elements by name and attributes (a language aside: the words are the
    target's now); ruby only where the book keeps it."""
    kept = Counter()
    for mark in marks:
        if mark.tag in ("ruby", "rb") and ruby is not RubyChoice.KEEP:
            continue
        attributes = tuple((k, v) for k, v in mark.attributes if k not in ("lang", XML_LANG))
        kept[(mark.tag, attributes)] += 1
    return kept


def _unresolved(documents: dict[str, etree._Element]) -> set[tuple[str, str]]:
    """The links into the book whose target no document holds (by id, or an EPUB 2 link's
    name)."""
    targets = {name: set(_ids(root)) | _names(root) for name, root in documents.items()}
    return {
        (name, href)
        for name, root in documents.items()
        for href in _fragment_links(root)
        if not _resolves(name, href, targets)
    }


def _documents(path: Path) -> dict[str, etree._Element]:
    with zipfile.ZipFile(path) as archive:
        return {
            name: parse_document(archive.read(name), name)
            for name in archive.namelist()
            if name.endswith((".xhtml", ".html"))
        }


def _ids(root: etree._Element) -> list[str]:
    return [e.get("id") for e in root.iter() if isinstance(e.tag, str) and e.get("id")]


def _fragment_links(root: etree._Element) -> list[str]:
    return [
        e.get("href")
        for e in root.iter(f"{XHTML}a")
        if "#" in (e.get("href") or "") and not re.match(r"[a-z]+:", e.get("href") or "")
    ]


def _names(root: etree._Element) -> set[str]:
    return {e.get("name") for e in root.iter(f"{XHTML}a") if e.get("name")}


def _resolves(document: str, href: str, targets: dict[str, set[str]]) -> bool:
    target, fragment = urldefrag(href)
    name = posixpath.normpath(posixpath.join(posixpath.dirname(document), unquote(target)))
    found = targets.get(name if target else document)
    return found is not None and fragment in found


def _inline(
    block: etree._Element, *, ruby: bool
) -> Counter[tuple[str, tuple[tuple[str, str], ...]]]:
    """The inline elements inside a block, by name and attributes other than ids and
    languages; ruby and its parts only if ``ruby``."""
    skipped = {"id", "lang", XML_LANG, "name"}
    found = Counter()
    for element in block.iterdescendants():
        if not isinstance(element.tag, str):
            continue
        name = etree.QName(element).localname
        if name in ("ruby", "rb", "rt", "rp") and not ruby:
            continue
        attributes = tuple(sorted((k, v) for k, v in element.attrib.items() if k not in skipped))
        if not attributes and name in ("span", "a"):
            continue  # an anchor: the source copy keeps the ids
        found[(name, attributes)] += 1
    return found
