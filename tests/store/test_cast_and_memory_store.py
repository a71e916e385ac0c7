"""The address book and the translation memory in the store: rows versioned like entries, a
series carrying its rows and its books' translations, and a job's view of both kept current."""

from __future__ import annotations

from dataclasses import replace

from honyaku.domain import TranslationKind
from honyaku.domain.book import Paragraph
from honyaku.domain.forms_of_address import FormOfAddress
from honyaku.domain.glossary import EntryStatus, GlossaryEntry
from honyaku.store import BookGlossary, Point, Stores
from honyaku.testing.series import REPEATED, volumes

SENPAI = FormOfAddress("空太", "美咲", "美咲先輩", "美咲学姐", "你")


def series(stores: Stores) -> tuple[str, str]:
    first, second = (
        stores.library.add_book(draft, source_lang="ja", target_lang="zh-CN") for draft in volumes()
    )
    shared = stores.glossary.shared("さくら荘", create=True)
    for book in (first, second):
        stores.glossary.attach(book, shared)
    return first, second


def the_repeated_paragraph(
    stores: Stores, first: str, second: str
) -> tuple[Paragraph, Paragraph, list[tuple[str, Point]]]:
    """The paragraph volume 2 repeats from volume 1: in each, and as the memory is asked of it."""
    book = stores.library.whole_book(first)
    repeated = next(p for c in book.chapters for p in c.paragraphs if p.text == REPEATED)
    later = stores.library.whole_book(second).chapters[1]
    [again] = [p for p in later.paragraphs if p.text == REPEATED]
    return repeated, again, [(REPEATED, Point(later.order, again.index))]


def test_a_row_is_versioned_shared_by_the_series_and_seen_by_a_running_jobs_view(stores):
    first, second = series(stores)
    store = stores.glossary
    view = BookGlossary(store, second)
    home = store.home_glossary(first)
    characters = [GlossaryEntry(name, name, kind="character") for name in ("空太", "美咲")]
    store.add(home, characters, origin="manual")
    store.addresses.add(home, [replace(SENPAI, status=EntryStatus.PROPOSED)], origin="job")
    assert [f.status for f in view.cast().forms] == [EntryStatus.PROPOSED]

    store.addresses.add(home, [SENPAI], origin="manual")
    store.addresses.add(home, [replace(SENPAI, rendering="美咲前辈")], origin="manual")

    assert home.name == "さくら荘"
    assert [f.rendering for f in view.cast().accepted_forms] == ["美咲前辈"]
    assert view.cast().order == {first: 0, second: 1}
    history = store.addresses.history(store.glossaries_of(second), SENPAI.key)
    assert [(h.form.status, h.origin) for h in history] == [
        (EntryStatus.PROPOSED, "job"),
        (EntryStatus.ACCEPTED, "manual"),
        (EntryStatus.ACCEPTED, "manual"),
    ]
    store.addresses.remove(home, [SENPAI], origin="manual")
    assert view.cast().forms == ()


def test_the_memory_recalls_an_earlier_volume_and_what_was_translated_since_it_was_read(stores):
    first, second = series(stores)
    library, memory = stores.library, stores.memory
    repeated, again, asked = the_repeated_paragraph(stores, first, second)
    assert memory.recall(second, asked) == [[]]

    library.add_translations(first, {repeated.id: "樱花飞舞。"}, kind=TranslationKind.TRANSLATION)

    [[found]] = memory.recall(second, asked)
    assert (found.remembered.book_id, found.remembered.translation) == (first, "樱花飞舞。")
    # The first volume, added before the second, recalls nothing of it, nor of its own later
    library.add_translations(second, {again.id: "樱花。"}, kind=TranslationKind.TRANSLATION)
    assert memory.recall(first, [(REPEATED, Point(1, 0))]) == [[]]
    # A book translated since the index was built is read again on its next use
    library.add_translations(first, {repeated.id: "樱花在风中飞舞。"}, kind=TranslationKind.POLISH)
    [[found]] = memory.recall(second, asked)
    assert found.remembered.translation == "樱花在风中飞舞。"
    assert memory.summary(second).remembered == {first: 1, second: 1}


def test_the_memory_recalls_the_version_a_translator_selected_again_not_the_one_it_read(stores):
    first, second = series(stores)
    library, memory = stores.library, stores.memory
    repeated, _, asked = the_repeated_paragraph(stores, first, second)
    library.add_translations(first, {repeated.id: "樱花飞舞。"}, kind=TranslationKind.TRANSLATION)
    library.add_translations(first, {repeated.id: "樱花在风中飞舞。"}, kind=TranslationKind.POLISH)
    [[found]] = memory.recall(second, asked)
    assert found.remembered.translation == "樱花在风中飞舞。"

    # When the translator selects the first version again
    older = library.versions(first, repeated.id)[0]
    library.select_version(first, repeated.id, older.id)

    # Then the memory recalls it, not the one its index read last
    [[found]] = memory.recall(second, asked)
    assert found.remembered.translation == "樱花飞舞。"
    assert memory.summary(second).remembered == {first: 1, second: 0}
