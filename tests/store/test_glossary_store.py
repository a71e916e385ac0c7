"""Glossaries in the store: versions only added, a removal is a version, a book's own entry
over a shared one, and a job's view re-read when the glossary changed."""

from __future__ import annotations

from dataclasses import replace

from honyaku.domain.glossary import EntryStatus, GlossaryEntry
from honyaku.store import BookGlossary, GlossaryStore

ALICE = GlossaryEntry("アリス", "爱丽丝", kind="character")


def test_a_change_adds_a_version_and_the_latest_stands(library, book_id):
    store = GlossaryStore(library.database)
    own = store.book_glossary(book_id)

    store.add(own, [ALICE], origin="manual")
    store.add(own, [replace(ALICE, target="艾莉丝")], origin="manual")

    [current] = store.current([own])
    assert current.entry.target == "艾莉丝"
    assert [v.entry.target for v in store.history([own], "アリス")] == ["爱丽丝", "艾莉丝"]


def test_a_removal_is_a_version_and_leaves_the_history(library, book_id):
    store = GlossaryStore(library.database)
    own = store.book_glossary(book_id)
    store.add(own, [ALICE], origin="manual")

    store.remove(own, [ALICE], origin="manual")

    assert store.current([own]) == []
    assert [v.removed for v in store.history([own], "ｱﾘｽ")] == [False, True]


def test_the_books_own_entry_wins_over_a_shared_one(library, book_id):
    store = GlossaryStore(library.database)
    series = store.shared("saga", create=True)
    store.attach(book_id, series)
    store.add(series, [ALICE, GlossaryEntry("王都", "王都")], origin="manual")
    store.add(store.book_glossary(book_id), [replace(ALICE, target="亚丽丝")], origin="manual")

    current = {s.entry.source: s for s in store.current(store.glossaries_of(book_id))}

    assert current["アリス"].entry.target == "亚丽丝"
    assert current["アリス"].glossary.name is None
    assert current["王都"].glossary.name == "saga"


def test_a_jobs_view_sees_entries_accepted_while_it_runs(library, book_id):
    store = GlossaryStore(library.database)
    view = BookGlossary(store, book_id)
    own = store.book_glossary(book_id)
    store.add(own, [replace(ALICE, status=EntryStatus.PROPOSED)], origin="job")

    assert view.matcher().find(["アリスが来た"]) == []
    assert view.matcher(proposed=True).find(["アリスが来た"]) != []

    store.add(own, [ALICE], origin="manual")

    assert view.matcher().find(["アリスが来た"]) == [ALICE]
