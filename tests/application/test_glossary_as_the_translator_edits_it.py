"""The glossary use cases the workbench needs beyond the terminal's: reject, edit, filter."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.application import Honyaku
from honyaku.domain.glossary import CHARACTER, EntryStatus, GlossaryEntry
from honyaku.errors import NotFoundError, UserError
from honyaku.store import Stores


def propose(stores: Stores, book_id: str, *entries: GlossaryEntry) -> None:
    proposed = [
        GlossaryEntry(e.source, e.target, kind=e.kind, status=EntryStatus.PROPOSED) for e in entries
    ]
    stores.glossary.add(stores.glossary.book_glossary(book_id), proposed, origin="job 1 fake")


def test_a_rejected_proposal_leaves_the_glossary_and_its_history_keeps_it(
    honyaku: Honyaku, stores: Stores, book_id: str
):
    # Given a model proposed two names
    propose(stores, book_id, GlossaryEntry("下人", "仆人"), GlossaryEntry("老婆", "老妇"))

    # When the translator rejects one and accepts the other
    [rejected] = asyncio.run(honyaku.glossary.reject(book_id, ["下人"]))
    asyncio.run(honyaku.glossary.accept(book_id))

    # Then only the accepted one stands, and the rejected one's history says what happened
    [kept] = asyncio.run(honyaku.glossary.entries(book_id))
    assert (kept.entry.source, kept.entry.status) == ("老婆", EntryStatus.ACCEPTED)
    history = asyncio.run(honyaku.glossary.history(book_id, "下人"))
    assert [(h.entry.target, h.removed, h.origin) for h in history] == [
        ("仆人", False, "job 1 fake"),
        ("仆人", True, "manual"),
    ]
    assert rejected.target == "仆人"


def test_rejecting_an_entry_that_is_not_proposed_is_refused(honyaku: Honyaku, book_id: str):
    asyncio.run(honyaku.glossary.add(book_id, GlossaryEntry("羅生門", "罗生门")))

    with pytest.raises(NotFoundError, match="no proposed entry for '羅生門'"):
        asyncio.run(honyaku.glossary.reject(book_id, ["羅生門"]))


def test_an_entry_edited_with_a_new_source_moves_and_the_old_source_is_gone(
    honyaku: Honyaku, book_id: str
):
    asyncio.run(honyaku.glossary.add(book_id, GlossaryEntry("下人", "仆人")))

    asyncio.run(honyaku.glossary.edit(book_id, "下人", GlossaryEntry("下人たち", "仆人们", "复数")))

    [entry] = asyncio.run(honyaku.glossary.entries(book_id))
    assert (entry.entry.source, entry.entry.target, entry.entry.note) == (
        "下人たち",
        "仆人们",
        "复数",
    )


def test_an_edit_that_is_refused_leaves_the_entry_as_it_was(honyaku: Honyaku, book_id: str):
    asyncio.run(honyaku.glossary.add(book_id, GlossaryEntry("下人", "仆人")))

    with pytest.raises(UserError, match="the target is blank"):
        asyncio.run(honyaku.glossary.edit(book_id, "下人", GlossaryEntry("下人たち", " ")))

    [entry] = asyncio.run(honyaku.glossary.entries(book_id))
    assert (entry.entry.source, entry.entry.target) == ("下人", "仆人")


def test_entries_are_filtered_by_kind_and_by_what_they_say(honyaku: Honyaku, book_id: str):
    for entry in (
        GlossaryEntry("下人", "仆人", kind=CHARACTER),
        GlossaryEntry("老婆", "老妇", kind=CHARACTER),
        GlossaryEntry("羅生門", "罗生门", kind="place"),
    ):
        asyncio.run(honyaku.glossary.add(book_id, entry))

    def sources(**filters: object) -> list[str]:
        return [s.entry.source for s in asyncio.run(honyaku.glossary.entries(book_id, **filters))]

    assert sources(characters=True) == ["下人", "老婆"]
    assert sources(characters=False) == ["羅生門"]
    assert sources(query="老妇") == ["老婆"]
    assert sources(characters=True, query="罗生门") == []


def test_the_series_a_book_is_attached_to_are_listed_by_name(honyaku: Honyaku, book_id: str):
    asyncio.run(honyaku.glossary.attach(book_id, "芥川"))
    asyncio.run(honyaku.glossary.attach(book_id, "今昔物語"))

    assert asyncio.run(honyaku.glossary.series(book_id)) == ["今昔物語", "芥川"]
    asyncio.run(honyaku.glossary.detach(book_id, "芥川"))
    assert asyncio.run(honyaku.glossary.series(book_id)) == ["今昔物語"]
    assert asyncio.run(honyaku.glossary.all_series()) == ["今昔物語", "芥川"]
