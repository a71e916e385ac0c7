"""honyaku cast … and honyaku memory … as a person types them."""

from __future__ import annotations

from pathlib import Path

import pytest

from honyaku.application import Honyaku
from honyaku.domain.forms_of_address import FormOfAddress
from honyaku.domain.glossary import EntryStatus, GlossaryEntry
from honyaku.testing import FakeLLMServer, ScriptedTranslator
from honyaku.testing.series import REPEATED, SERIES, series_translation, volumes

from .conftest import honyaku


@pytest.fixture
def series() -> tuple[str, str]:
    """The two volumes of the series, imported, attached to it."""
    app = Honyaku.open()
    try:
        first, second = (
            app.stores.library.add_book(draft, source_lang="ja", target_lang="zh-CN")
            for draft in volumes()
        )
    finally:
        app.close()
    for book in (first, second):
        honyaku("glossary", "attach", book, SERIES)
    return first, second


def test_the_cast_is_set_by_any_variant_its_rows_added_listed_and_refused_when_wrong(series):
    first, second = series
    for name, gender in (("空太", "male"), ("美咲", "female")):
        honyaku("glossary", "add", first, name, name, "--kind", "character", "--gender", gender,
                "--series", SERIES)  # fmt: skip

    set_ = honyaku("cast", "set", second, "美咲先輩", "--pronoun", "她", "--speech", "元气十足")
    added = honyaku(
        "cast", "address", second, "空太", "美咲先輩", "美咲先輩", "美咲学姐", "--register", "你"
    )
    later = honyaku(
        "cast", "address", second, "空太", "美咲", "美咲先輩", "美咲姐", "--from", "2:2"
    )
    listed = honyaku("cast", "list", first).stdout

    assert set_.stdout.strip() == "美咲 → 美咲 (female, 她, 元气十足)"
    assert added.stdout.strip() == "空太 → 美咲: 美咲先輩 → 美咲学姐"
    assert later.stdout.strip() == "空太 → 美咲: 美咲先輩 (from chapter 2, [2]) → 美咲姐"
    # Volume 1 sees what was set through volume 2: the series carries its cast
    assert "written 美咲先輩 ×1, 美咲 ×1" in listed  # the variants volume 1 writes
    assert "written 空太 ×3, 空太くん ×1" in listed
    assert "美咲学姐" in listed
    assert "chapter 2, [2]" in listed
    # A speaker outside the cast, or a point that is none, is one line and saves nothing
    unknown = honyaku("cast", "address", second, "空太", "誰か", "先輩", "学长", check=False)
    assert unknown.returncode != 0
    assert "no character named '誰か' in the cast" in unknown.stderr
    assert len(unknown.stderr.strip().splitlines()) == 1
    bad = honyaku(
        "cast", "address", second, "空太", "美咲", "先輩", "学长", "--from", "x", check=False
    )
    assert bad.returncode != 0
    assert "--from x: a chapter (5)" in bad.stderr

    removed = honyaku("cast", "remove", second, "空太", "美咲", "美咲先輩", "--from", "2:2")
    assert removed.stdout.strip() == "Removed 空太 → 美咲: 美咲先輩 (from chapter 2, [2]) → 美咲姐"
    assert "美咲姐" not in honyaku("cast", "list", second).stdout


def test_what_a_model_proposed_is_listed_apart_rejected_one_by_one_and_accepted_all(series):
    first, _ = series
    app = Honyaku.open()
    try:
        store = app.stores.glossary
        home = store.home_glossary(first)
        waiting = EntryStatus.PROPOSED
        names = ("空太", "美咲")
        characters = [GlossaryEntry(n, n, kind="character", status=waiting) for n in names]
        store.add(home, characters, origin="job")
        forms = [
            FormOfAddress("空太", "美咲", "美咲先輩", "美咲学姐", status=waiting),
            FormOfAddress("美咲", "空太", "後輩くん", "学弟", status=waiting),
        ]
        store.addresses.add(home, forms, origin="job")
    finally:
        app.close()

    proposed = honyaku("cast", "list", first, "--proposed").stdout
    rejected = honyaku("cast", "reject", first, "美咲先輩", "空太", "後輩くん").stdout
    accepted = honyaku("cast", "accept", first).stdout
    wrong = honyaku("cast", "accept", first, "空太", check=False)

    assert "空太 → 美咲: 美咲先輩 → 美咲学姐 · proposed · seen in chapters 1" in proposed
    assert rejected.strip() == "Rejected 1 form(s) of address"
    assert accepted.strip() == "Accepted 2 character(s) and 1 form(s) of address"
    assert "後輩くん" not in honyaku("cast", "list", first).stdout
    assert "name a row by its speaker, its listener and its form" in wrong.stderr


def test_the_memory_shows_what_it_recalls_writes_it_and_imports_a_reference(series, tmp_path: Path):
    first, second = series
    with FakeLLMServer(translator=ScriptedTranslator(translate=series_translation)) as server:
        honyaku("translate", first, "--model", "fake", "--base-url", server.url)

    shown = honyaku("memory", "show", second, "--chapters", "2-3").stdout
    honyaku("settings", second, "--write-from-memory", "on")
    written = honyaku("memory", "write", second).stdout
    reference = tmp_path / "volume-1.txt"
    reference.write_text("\n\n".join(f"参考{n}" for n in range(8)), encoding="utf-8")
    imported = honyaku("memory", "import", first, reference).stdout
    too_few = tmp_path / "short.txt"
    too_few.write_text("一行\n", encoding="utf-8")
    refused = honyaku("memory", "import", first, too_few, check=False)

    volume_1 = "《さくら荘のペットな彼女 1》 chapter 1"
    assert f"1. さくら荘のペットな彼女 1 ({first}): 8 paragraph(s) remembered" in shown
    assert f"the same as {volume_1} → {series_translation(REPEATED)}" in shown
    assert f"94% like {volume_1} → 真白一直望着窗外。" in shown
    assert written.strip() == "Wrote 1 paragraph(s) from memory"
    assert imported.strip() == "Imported 8 reference(s) from volume-1.txt"
    assert refused.returncode != 0
    assert "the reference has 1 paragraphs and the sample 8" in refused.stderr
    after = honyaku("memory", "show", second).stdout
    assert "written from memory: 1 paragraph(s); write-from-memory is on" in after


def test_a_book_after_cast_or_memory_lists_what_it_holds_and_a_mistyped_command_is_named(series):
    first, _ = series
    honyaku("glossary", "add", first, "空太", "空太", "--kind", "character", "--series", SERIES)

    # When the book is given without a command
    cast = honyaku("cast", first).stdout
    memory = honyaku("memory", first).stdout
    mistyped = honyaku("cast", "lst", first, check=False)

    # Then it is listed as `list` and `show` list it, and a mistyped command is not a book
    assert cast == honyaku("cast", "list", first).stdout
    assert "空太" in cast
    assert memory == honyaku("memory", "show", first).stdout
    assert mistyped.returncode == 2
    assert "No such command 'lst'" in mistyped.stderr
