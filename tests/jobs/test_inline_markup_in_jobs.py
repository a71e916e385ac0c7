"""Real books keep their inline markup through a translation: 草枕 (ruby, emphasis dots) and
Debian's Live Systems Manual (code, italics, bold, links), its Japanese edition and its English
one into Chinese, translated by the demo model and by a model that spoils its placeholders
(drops, repeats, reorders and invents them, writes them full-width), natively and in the XML
protocol. For every translated paragraph, the exported EPUB holds the source's inline elements
by name and attributes, its links resolve, and epubcheck finds nothing; bilingual too.

The books are translated once for the module (a few chapters each), and their exports are
read by the tests that follow."""

from __future__ import annotations

import asyncio
import functools
import posixpath
import re
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urldefrag

import pytest
from lxml import etree

from honyaku.domain import JobKind
from honyaku.domain.book import BookDraft, Paragraph
from honyaku.domain.placeholders import MARKUP_MISMATCH, RubyChoice, shown_line
from honyaku.domain.sources import InlineMark
from honyaku.formats import ExportFormat, read_book, write_book
from honyaku.formats.epub_reader import read_epub
from honyaku.formats.markup import parse_document
from honyaku.jobs import JobOutcome, JobRequest
from honyaku.store import Database, Library, Stores
from honyaku.testing import FakeLLMServer, Mistake, ScriptedTranslator, pseudo_translation

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


@dataclass
class Translated:
    run: Run
    book_id: str
    outcome: JobOutcome
    markup_refused: int
    exported: Path
    bilingual: Path


@pytest.fixture(scope="module")
def translated(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Library, dict[str, Translated]]]:
    """Each run's book imported, its chapters translated, and exported in place, alone and
    bilingual; in one database for the module."""
    folder = tmp_path_factory.mktemp("markup")
    database = Database.open(folder)
    library = Stores.over(database).library
    found = {}
    for run in RUNS:
        found[run.name] = _translate(library, run, folder)
    yield library, found
    database.close()


@functools.cache
def _draft(path: Path) -> BookDraft:
    return read_book(path)


def _translate(library: Library, run: Run, folder: Path) -> Translated:
    book_id = library.add_book(_draft(run.path), source_lang=run.source_lang, target_lang="zh-CN")
    library.update_settings(book_id, ruby=run.ruby)
    stores = Stores.over(library.database)
    mistakes = {Mistake.SPOILS_MARKUP} if run.spoils else set()
    with FakeLLMServer(translator=ScriptedTranslator(mistakes=mistakes), delta_chars=7) as server:
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, chapters=list(run.chapters))
        outcome, _ = asyncio.run(
            run_to_end(engine(stores), request, connected(server, run.protocol))
        )
    refused = [
        r
        for r in tool_results(stores.jobs, book_id, "add_translation_batch")
        if r.get("error_code") == MARKUP_MISMATCH
    ]
    book = library.whole_book(book_id)
    sources = library.sources(book_id)
    exported, bilingual = folder / f"{run.name}.epub", folder / f"{run.name}.bilingual.epub"
    write_book(book, exported, ExportFormat.EPUB, sources=sources)
    write_book(book, bilingual, ExportFormat.EPUB, sources=sources, bilingual=True)
    return Translated(run, book_id, outcome, len(refused), exported, bilingual)


def _scope(library: Library, done: Translated) -> list[Paragraph]:
    book = library.whole_book(done.book_id, chapter_numbers=done.run.chapters)
    return [p for chapter in book.chapters for p in chapter.work_paragraphs]


@pytest.mark.parametrize("run", [r.name for r in RUNS])
def test_every_paragraph_is_translated_its_placeholders_read_back_around_the_same_words(
    translated, run
):
    library, runs = translated
    done = runs[run]

    paragraphs = _scope(library, done)

    assert done.outcome.ok
    assert done.outcome.left == []
    shown = 0
    for paragraph in paragraphs:
        line = shown_line(paragraph.text, paragraph.marks, done.run.ruby)
        assert paragraph.translation == pseudo_translation(paragraph.text), paragraph.id
        placed = {m.marks: m for m in paragraph.translation_marks}
        assert sorted(placed) == sorted(p.marks for p in line.placeholders), paragraph.id
        for placeholder in line.placeholders:
            mark = paragraph.marks[placeholder.marks[0]]
            words = paragraph.translation[
                placed[placeholder.marks].start : placed[placeholder.marks].end
            ]
            expected = paragraph.text[mark.start : mark.end] if mark.end > mark.start else ""
            assert words == (expected.strip() if placeholder.paired else placeholder.kept)
        shown += line.text != paragraph.text  # placeholders or readings shown
    assert shown >= 5


@pytest.mark.parametrize("run", [r.name for r in RUNS if r.spoils])
def test_spoiled_placeholders_are_refused_with_their_code_and_corrected(translated, run):
    _, runs = translated

    assert runs[run].markup_refused >= 1
    assert runs[run].outcome.ok


@pytest.mark.parametrize("run", [r.name for r in RUNS])
def test_the_exported_epub_holds_each_translated_paragraph_s_inline_elements(translated, run):
    library, runs = translated
    done = runs[run]
    sources = library.sources(done.book_id)
    assert sources is not None
    exported = _located_marks(done.exported)

    differences = {}
    for paragraph in _scope(library, done):
        where = sources.paragraphs[paragraph.id]
        expected = _elements(where.marks, done.run.ruby)
        found = _elements(exported[(where.document, where.locator)], RubyChoice.KEEP)
        if found != expected:
            differences[paragraph.id] = (expected - found, found - expected)

    assert differences == {}


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


@pytest.mark.parametrize("run", [r.name for r in RUNS])
def test_every_link_and_note_of_the_exports_resolves_and_bilingual_ids_stay_unique(translated, run):
    _, runs = translated
    done = runs[run]
    broken_before = _unresolved(_documents(done.run.path))

    for path in (done.exported, done.bilingual):
        documents = _documents(path)
        assert _unresolved(documents) <= broken_before, path.name
        if path == done.bilingual:
            repeated = {
                name: [i for i, n in Counter(_ids(root)).items() if n > 1]
                for name, root in documents.items()
            }
            assert {name: found for name, found in repeated.items() if found} == {}


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


@pytest.mark.parametrize("run", [r.name for r in RUNS])
def test_a_bilingual_translation_holds_the_inline_elements_of_the_source_before_it(translated, run):
    _, runs = translated
    done = runs[run]

    compared = 0
    for root in _documents(done.bilingual).values():
        for translation in root.iter(f"{XHTML}*"):
            if "honyaku-translation" not in (translation.get("class") or "").split():
                continue
            source = translation.getprevious()
            if source is None or translation.tag != source.tag:
                continue  # a line followed by its translation, inside one block
            expected = _inline(source, ruby=done.run.ruby is RubyChoice.KEEP)
            assert _inline(translation, ruby=True) == expected
            compared += 1
    assert compared >= 5


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


def test_the_manual_s_chapter_as_markdown_writes_its_emphasis_code_and_links(translated):
    library, runs = translated
    done = runs["manual-en-demo"]
    book = library.whole_book(done.book_id, chapter_numbers=[2, 8])
    path = done.exported.with_suffix(".md")

    write_book(book, path, ExportFormat.MD)

    text = path.read_text(encoding="utf-8")
    assert "〈译〉Some of the commands mentioned in the text must be executed" in text
    assert "via `su` or by using `sudo`" in text
    assert "*live-manual*" in text
    assert "**stretch**" in text
    assert "[http://debian-live.alioth.debian.org/](http://debian-live.alioth.debian.org/)" in text
    assert "⟦" not in text


def test_epubcheck_finds_nothing_in_the_novel_s_exports_ruby_kept_or_read_as_hints(
    translated, epubcheck
):
    # The Live Systems Manual's own EPUB holds thousands of epubcheck errors of its own: its
    # exports are held to what an export could add (ids, links, elements) by the tests above.
    _, runs = translated
    exports = [runs["kusamakura-demo"].exported, runs["kusamakura-spoiled"].bilingual]

    reports = epubcheck(exports)

    assert [report.clean for report in reports] == [True, True], [r.output for r in reports]
