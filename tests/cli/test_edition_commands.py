"""import --update as a translator runs it: a web novel that grows, a chapter revised."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from honyaku.domain.book import paragraph_text
from honyaku.formats import read_book
from honyaku.store import Database, Library
from honyaku.testing import FakeLLMServer

from .conftest import KOJIKI, KUSAMAKURA, honyaku, imported

PARAGRAPHS_PER_EPISODE = 8
WORK_ID = re.compile(r"\[ID: ([0-9a-f]{8})\]")


@pytest.fixture(scope="module")
def episodes() -> list[tuple[str, list[str]]]:
    """Kusamakura as a web novel posts it: 13 episodes of a few paragraphs each."""
    book = read_book(KUSAMAKURA)
    return [
        (f"第{n}話　{chapter.title}", [t for t in map(paragraph_text, chapter.paragraphs) if t])
        for n, chapter in enumerate(book.chapters, start=1)
    ]


def web_novel(folder: Path, episodes: list[tuple[str, list[str]]], name: str) -> Path:
    lines = ["草枕（連載版）", ""]
    for title, paragraphs in episodes:
        lines += [title, "", *paragraphs[:PARAGRAPHS_PER_EPISODE], ""]
    path = folder / name
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def model_flags(server: FakeLLMServer) -> list[str]:
    return ["--model", "fake-translator", "--base-url", server.url]


def sent_ids(server: FakeLLMServer, since: int) -> set[str]:
    """The work paragraphs the model was asked to translate in requests from ``since`` on."""
    return {
        found
        for body in server.requests[since:]
        for message in body["messages"]
        if message["role"] == "user"
        for found in WORK_ID.findall(message.get("content") or "")
    }


def test_a_web_novel_grown_by_three_episodes_translates_only_those(
    home, tmp_path, episodes, fake_model
):
    book = imported(web_novel(tmp_path, episodes[:10], "week-1.txt"))
    honyaku("translate", book, *model_flags(fake_model))
    library = Library(Database.open(home))
    first = {
        p.id: p.translation for c in library.whole_book(book).chapters for p in c.work_paragraphs
    }
    asked = len(fake_model.requests)

    updated = honyaku("import", web_novel(tmp_path, episodes, "week-2.txt"), "--update", book)
    honyaku("translate", book, *model_flags(fake_model))

    assert "chapters:   10 unchanged, 0 changed, 3 new, 0 gone" in updated.stdout
    assert f"paragraphs: {len(first)} unchanged, 0 changed, 24 new, 0 gone" in updated.stdout
    assert updated.stdout.strip().splitlines()[-1] == book
    chapters = library.whole_book(book).chapters
    added = {p.id for c in chapters[10:] for p in c.work_paragraphs}
    assert sent_ids(fake_model, asked) == added
    assert {p.id: p.translation for c in chapters[:10] for p in c.work_paragraphs} == first
    assert all(len(library.versions(book, pid)) == 1 for pid in first)
    assert all(p.translation for c in chapters for p in c.work_paragraphs)


def test_a_revised_paragraph_is_stale_everywhere_and_retranslated_with_its_old_translation(
    home, tmp_path, episodes, fake_model
):
    book = imported(web_novel(tmp_path, episodes[:3], "v1.txt"))
    honyaku("translate", book, *model_flags(fake_model))
    title, paragraphs = episodes[1]
    old_text = paragraphs[2]
    revised = [
        *episodes[:1],
        (title, [*paragraphs[:2], old_text.replace("。", "！", 1), *paragraphs[3:]]),
        *episodes[2:3],
    ]
    library = Library(Database.open(home))
    paragraph = next(
        p for p in library.whole_book(book).chapters[1].paragraphs if p.text == old_text
    )
    old_translation = paragraph.translation
    asked = len(fake_model.requests)

    honyaku("import", web_novel(tmp_path, revised, "v2.txt"), "--update", book)

    shown = honyaku("show", book).stdout
    assert "8/8 (100%), 1 stale" in shown
    assert "edition 2 from v2.txt" in shown
    checked = honyaku("check", book, "--chapters", "2").stdout
    assert "STALE_TRANSLATION" in checked
    assert old_text[:10] in checked
    honyaku("export", book, "--format", "json", "-o", tmp_path / "book.json")
    exported = json.loads((tmp_path / "book.json").read_text(encoding="utf-8"))
    stale = [p for c in exported["chapters"] for p in c["paragraphs"] if p.get("stale")]
    assert [(p["id"], p["previous_source"], p["translation"]) for p in stale] == [
        (paragraph.id, old_text, old_translation)
    ]

    honyaku("translate", book, *model_flags(fake_model))

    assert sent_ids(fake_model, asked) == {paragraph.id}
    message = next(
        m["content"] for m in fake_model.requests[asked]["messages"] if m["role"] == "user"
    )
    assert f"    ↺ was: {old_text}\n    ↺ translated: {old_translation}" in message
    assert "A new edition changed the source" in message
    assert not library.paragraphs(book, [paragraph.id])[paragraph.id].is_stale
    assert len(library.versions(book, paragraph.id)) == 2


def test_a_dry_run_prints_the_figures_and_writes_nothing(home, tmp_path, episodes):
    book = imported(web_novel(tmp_path, episodes[:2], "v1.txt"))

    done = honyaku(
        "import", web_novel(tmp_path, episodes[:3], "v2.txt"), "--update", book, "--dry-run"
    )

    assert "Dry run: nothing written" in done.stdout
    assert "chapters:   2 unchanged, 0 changed, 1 new, 0 gone" in done.stdout
    assert len(Library(Database.open(home)).whole_book(book).chapters) == 2


def test_an_unrelated_book_is_refused_in_one_line_with_the_figures(tmp_path, episodes):
    book = imported(web_novel(tmp_path, episodes[:2], "v1.txt"))

    done = honyaku("import", KOJIKI, "--update", book, check=False)

    assert done.returncode == 2
    assert (
        "does not look like an edition of «草枕（連載版）»: only 0 of the book's 16" in done.stderr
    )
    assert "--force" in done.stderr
    assert "Traceback" not in done.stderr
