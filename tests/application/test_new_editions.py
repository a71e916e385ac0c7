"""A book's new edition over the library: every translation that still fits is kept."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from honyaku.application import Honyaku, ModelChoice, UpdatedBook
from honyaku.domain import JobKind, TranslationKind
from honyaku.domain.glossary import GlossaryEntry
from honyaku.errors import UserError
from honyaku.formats import ExportFormat, read_book
from honyaku.jobs import JobRequest
from honyaku.store import Library

from ..conftest import every_row
from .conftest import BOOKS, KUSAMAKURA, new_kusamakura

FRANKENSTEIN = BOOKS / "epub" / "frankenstein_en_pg84_epub2" / "frankenstein_en_pg84_epub2.epub"


def translate_whole(library: Library, book_id: str) -> dict[str, str]:
    """Every paragraph and title translated (marked 译); the translations by paragraph id."""
    book = library.whole_book(book_id)
    texts = {p.id: f"译{p.text}" for c in book.chapters for p in c.work_paragraphs}
    library.add_translations(book_id, texts, kind=TranslationKind.TRANSLATION, model="m")
    for chapter in book.chapters:
        library.set_chapter_title(book_id, chapter.id, f"译{chapter.title}")
    return texts


def update(honyaku: Honyaku, book_id: str, path: Path, **options: bool) -> UpdatedBook:
    return asyncio.run(honyaku.editions.update(book_id, path, **options))


def chapter_numbers(honyaku: Honyaku, book_id: str) -> dict[str, int]:
    chapters = asyncio.run(honyaku.books.whole(book_id)).chapters
    return {chapter.title: number for number, chapter in enumerate(chapters, 1)}


@pytest.fixture
def translated_kusamakura(honyaku: Honyaku, library: Library) -> tuple[str, dict[str, str]]:
    book_id = asyncio.run(honyaku.books.import_file(KUSAMAKURA)).id
    return book_id, translate_whole(library, book_id)


def test_kusamakura_revised_keeps_every_untouched_translation_with_its_id(
    honyaku, library, translated_kusamakura, tmp_path
):
    book_id, translations = translated_kusamakura
    before = library.whole_book(book_id)
    chapter_ids = {c.title: c.id for c in before.chapters}
    by_place = {(c.title, p.text): p.id for c in before.chapters for p in c.work_paragraphs}

    updated = update(honyaku, book_id, new_kusamakura(tmp_path))

    after = library.whole_book(book_id)
    assert [c.title for c in after.chapters][-5:] == ["十", "七", "十一", "十三", "十四"]
    assert {c.title: c.id for c in after.chapters if c.title != "十四"} == {
        t: i for t, i in chapter_ids.items() if t != "十二"
    }
    stale = {p.id for c in after.chapters for p in c.paragraphs if p.is_stale}
    new = {p.id for c in after.chapters for p in c.work_paragraphs if p.translation is None}
    assert stale == {
        by_place[title, text]
        for title, text in by_place
        if (title, text[:8])
        in {("三", "昨夕は妙な気持ち"), ("八", "和尚は虎の皮の上"), ("四", "ぽかんと部屋へ帰")}
    }
    assert len(new) == 1 + 3  # the split's other part, and 十四's three
    old_chapters = {c.title: c for c in before.chapters}
    untouched = (
        len([p for c in before.chapters if c.title != "十二" for p in c.work_paragraphs]) - 3
    )
    assert sum(len(c.work_paragraphs) for c in after.chapters) - len(stale | new) == untouched
    for chapter in after.chapters[:-1]:
        kept = [(p.id, p.text) for p in chapter.work_paragraphs if p.id not in stale | new]
        ids = {pid for pid, _ in kept}
        assert kept == [
            (p.id, p.text) for p in old_chapters[chapter.title].paragraphs if p.id in ids
        ]
        assert len(ids) == len(chapter.work_paragraphs) - len(
            {p.id for p in chapter.paragraphs} & (stale | new)
        )
        for paragraph in chapter.work_paragraphs:
            if paragraph.id in ids:
                assert paragraph.translation == translations[paragraph.id]
    summary = updated.summary
    assert (summary.paragraphs.changed, summary.paragraphs.new) == (3, 4)
    assert (summary.chapters.new, summary.chapters.gone, summary.moved_chapters) == (1, 1, 1)


def test_an_edited_paragraph_keeps_its_versions_and_shows_its_old_source(
    honyaku, library, translated_kusamakura, tmp_path
):
    book_id, translations = translated_kusamakura
    old = next(
        p
        for c in library.whole_book(book_id).chapters
        for p in c.paragraphs
        if p.text.endswith("は妙な気持ちがした。")
    )

    update(honyaku, book_id, new_kusamakura(tmp_path))

    edited = library.paragraphs(book_id, [old.id])[old.id]
    assert edited.text == "昨夕は妙な気持がした。"
    assert edited.translation == translations[old.id]
    assert edited.previous_source == old.text
    assert [v.text for v in library.versions(book_id, old.id)] == [translations[old.id]]


def test_nothing_is_lost_the_removed_chapter_stays_in_the_history(
    honyaku, library, translated_kusamakura, tmp_path
):
    book_id, translations = translated_kusamakura
    removed = next(c for c in library.whole_book(book_id).chapters if c.title == "十二")

    update(honyaku, book_id, new_kusamakura(tmp_path))

    for paragraph in removed.work_paragraphs:
        assert [v.text for v in library.versions(book_id, paragraph.id)] == [
            translations[paragraph.id]
        ]
    assert library.paragraphs(book_id, [p.id for p in removed.paragraphs]) == {}
    history = asyncio.run(honyaku.editions.history(book_id))
    assert [e.number for e in history.editions] == [1, 2]
    assert history.gone_paragraphs == len(removed.work_paragraphs)


def test_a_job_log_and_the_glossary_still_point_at_what_they_named(honyaku, tmp_path):
    book_id = asyncio.run(honyaku.books.import_file(KUSAMAKURA)).id
    numbers = chapter_numbers(honyaku, book_id)
    term = GlossaryEntry("那美", "那美", kind="character")
    asyncio.run(honyaku.glossary.add(book_id, term))
    request = JobRequest(
        book_id=book_id, kind=JobKind.TRANSLATION, chapters=[numbers["七"], numbers["十二"]]
    )

    async def translate() -> None:
        async for _ in honyaku.jobs.run(request, ModelChoice("demo")):
            pass

    asyncio.run(translate())
    logged = asyncio.run(honyaku.books.actions(book_id))
    assert {a.chapter_number for a in logged} >= {numbers["七"], numbers["十二"]}

    update(honyaku, book_id, new_kusamakura(tmp_path))

    moved = chapter_numbers(honyaku, book_id)
    assert moved["七"] != numbers["七"]
    after = asyncio.run(honyaku.books.actions(book_id))
    assert [a.action for a in after] == [a.action for a in logged]
    by_number = {numbers["七"]: moved["七"], numbers["十二"]: None}
    assert [a.chapter_number for a in after] == [
        by_number.get(a.chapter_number, a.chapter_number) for a in logged
    ]
    assert [s.entry for s in asyncio.run(honyaku.glossary.entries(book_id))] == [term]


def test_the_new_archive_is_the_original_an_in_place_export_translates(
    honyaku, library, translated_kusamakura, tmp_path
):
    book_id, _ = translated_kusamakura
    edition = new_kusamakura(tmp_path)

    update(honyaku, book_id, edition)
    asyncio.run(honyaku.books.export(book_id, tmp_path / "out.epub", ExportFormat.EPUB))

    sources = library.sources(book_id)
    assert sources is not None
    assert sources.original.data == edition.read_bytes()
    assert set(sources.paragraphs) == {
        p.id for c in library.whole_book(book_id).chapters for p in c.paragraphs
    }
    with zipfile.ZipFile(tmp_path / "out.epub") as exported:
        added = exported.read("OPS/xhtml/十四.xhtml").decode()
        kept = exported.read("OPS/xhtml/十三.xhtml").decode()
    assert "汽車の窓から見る景色は" in added  # new: the source, until translated
    assert "译" not in added
    assert kept.count("译") > 50


def test_a_dry_run_writes_nothing(honyaku, library, translated_kusamakura, tmp_path, database):
    book_id, _ = translated_kusamakura
    before = every_row(database)

    updated = update(honyaku, book_id, new_kusamakura(tmp_path), dry_run=True)

    assert updated.edition is None
    assert updated.summary.paragraphs.new == 4
    assert every_row(database) == before


def test_an_unrelated_book_is_refused_with_the_figures_unless_forced(
    honyaku, library, translated_kusamakura, database
):
    book_id, _ = translated_kusamakura
    before = every_row(database)

    with pytest.raises(UserError, match=r"only 0 of the book's \d+ paragraphs \(0%\)") as refused:
        update(honyaku, book_id, FRANKENSTEIN)

    assert "--force" in (refused.value.terminal_hint or "")
    assert every_row(database) == before
    forced = update(honyaku, book_id, FRANKENSTEIN, force=True)
    assert forced.edition == 2
    assert (
        library.whole_book(book_id).chapters[0].title == read_book(FRANKENSTEIN).chapters[0].title
    )


STALLED_UPDATE = """
import asyncio, sys, time
from pathlib import Path

import honyaku.store.editions as editions
from honyaku.application import Honyaku

written = editions._record_gone


def stalled(*args, **kwargs):
    written(*args, **kwargs)
    print("inside the transaction", flush=True)
    time.sleep(120)


editions._record_gone = stalled
asyncio.run(Honyaku.open(Path(sys.argv[1])).editions.update(sys.argv[2], Path(sys.argv[3])))
"""


def test_a_process_killed_during_the_update_leaves_the_book_as_it_was(
    translated_kusamakura, tmp_path, home, database
):
    book_id, _ = translated_kusamakura
    edition = new_kusamakura(tmp_path)
    before = every_row(database)
    process = subprocess.Popen(
        [sys.executable, "-c", STALLED_UPDATE, str(home), book_id, str(edition)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "inside the transaction"
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
        process.stdout.close()

    assert process.returncode == -signal.SIGKILL
    assert every_row(database) == before
