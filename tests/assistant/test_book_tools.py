"""The assistant reads the book, finds paragraphs and keeps every version it writes."""

from __future__ import annotations

import pytest

from honyaku.agent import Broker
from honyaku.domain import BookDraft, ChapterDraft
from honyaku.domain.book import TranslationKind
from honyaku.domain.placeholders import PlacedMark
from honyaku.domain.sources import InlineMark, SourceLocation
from honyaku.jobs.approvals import book_approvals
from honyaku.testing import FakeCall, Reply

pytestmark = pytest.mark.anyio


def calls(*made: FakeCall) -> list[Reply]:
    return [Reply("", (call,)) for call in made] + [Reply("Done.")]


async def test_given_a_book_when_the_assistant_reads_and_searches_then_it_gets_texts_and_progress(
    chat_with, library, book_id
):
    script = calls(
        FakeCall("book_info", {}),
        FakeCall("read_paragraphs", {"chapter": 1, "start": 2, "count": 5}),
        FakeCall("search_paragraphs", {"query": "門の(下|上)", "regex": True}),
    )
    with chat_with({"read": script}) as chat:
        await chat.say("Please read the book")

    (info,) = chat.server.results_of("book_info", latest=True)
    assert info["message"] == "「羅生門」: 2 chapters, 0/3 translated"
    assert [c["number"] for c in info["data"]["chapters"]] == [1, 2]
    (read,) = chat.server.results_of("read_paragraphs", latest=True)
    assert [p["text"] for p in read["data"]["paragraphs"]] == [
        "一人の下人が羅生門の下で雨やみを待っていた。"
    ]
    (found,) = chat.server.results_of("search_paragraphs", latest=True)
    assert [p["chapter"] for p in found["data"]["paragraphs"]] == [1, 2]
    assert found["message"] == "2 paragraphs found"


async def test_given_an_approved_rewrite_when_versions_are_read_then_both_are_kept_and_one_selected(
    chat_with, library, book_id
):
    paragraph = library.whole_book(book_id).chapters[0].paragraphs[0]
    library.add_translations(
        book_id, {paragraph.id: "那是某日的傍晚。"}, kind=TranslationKind.TRANSLATION
    )
    script = calls(
        FakeCall("write_version", {"paragraph_id": paragraph.id, "text": "某日傍晚。"}),
        FakeCall("paragraph_versions", {"paragraph_id": paragraph.id}),
        FakeCall("search_paragraphs", {"query": "傍晚", "in_translation": True}),
    )
    with chat_with({"rewrite": script}) as chat:
        await chat.say("Please rewrite the first line")
        first = library.versions(book_id, paragraph.id)[0].id
        chat.server.translator.assistant.scripts = {
            "back": calls(
                FakeCall("select_version", {"paragraph_id": paragraph.id, "version_id": first})
            )
        }
        await chat.say("Go back to the first version", chat.session)

    assert [d.tool for d in chat.person.dialogs] == ["write_version"]
    (versions,) = chat.server.results_of("paragraph_versions")[:1]
    assert [(v["text"], v["selected"]) for v in versions["data"]["versions"]] == [
        ("那是某日的傍晚。", False),
        ("某日傍晚。", True),
    ]
    (found,) = chat.server.results_of("search_paragraphs")[:1]
    assert [p["translation"] for p in found["data"]["paragraphs"]] == ["某日傍晚。"]
    selected = [v for v in library.versions(book_id, paragraph.id) if v.selected]
    assert [v.text for v in selected] == ["那是某日的傍晚。"]


async def test_always_allow_given_in_a_chat_is_saved_on_the_book_and_seen_by_its_jobs(
    chat_with, library, book_id
):
    # Given a chat about the book whose assistant writes a version, which needs approval
    first, second = library.whole_book(book_id).chapters[0].paragraphs
    script = calls(FakeCall("write_version", {"paragraph_id": first.id, "text": "某日傍晚。"}))
    with chat_with({"rewrite": script}) as chat:
        # When the translator answers "always allow"
        chat.person.always = True
        await chat.say("Please rewrite the first line")
        # Then a later chat about the book writes without asking
        chat.server.translator.assistant.scripts = {
            "second": calls(FakeCall("write_version", {"paragraph_id": second.id, "text": "一人"}))
        }
        await chat.say("And the second line")

    assert [d.tool for d in chat.person.dialogs] == ["write_version"]
    assert [v.text for v in library.versions(book_id, second.id)] == ["一人"]
    # And it is in the book's settings, which its jobs' approvals read
    assert library.settings(book_id).always_allow == ["write_version"]
    job_policy = book_approvals(Broker(), library, book_id)
    assert not job_policy.needs_approval("write_version", marked=True)


async def test_given_a_paragraph_with_markup_the_assistant_reads_its_placeholders_and_keeps_them(
    chat_with, library
):
    draft = BookDraft(
        "Manual",
        (
            ChapterDraft(
                "Start",
                ("Run lb config as root.",),
                (SourceLocation("a.xhtml", "/1/0#0", (InlineMark("tt", 4, 13),)),),
            ),
        ),
    )
    manual = library.add_book(draft, source_lang="en", target_lang="zh-CN")
    paragraph = library.whole_book(manual).chapters[0].paragraphs[0]
    script = calls(
        FakeCall("read_paragraphs", {"chapter": 1, "book_id": manual}),
        FakeCall(
            "write_version",
            {
                "paragraph_id": paragraph.id,
                "text": "以 root 运行⟦1⟧lb config⟦/1⟧。",
                "book_id": manual,
            },
        ),
    )
    with chat_with({"markup": script}) as chat:
        await chat.say("Please fix the markup")

    (read,) = chat.server.results_of("read_paragraphs", latest=True)
    assert read["data"]["paragraphs"][0]["marked_text"] == "Run ⟦1⟧lb config⟦/1⟧ as root."
    [version] = library.versions(manual, paragraph.id)
    assert (version.text, version.marks) == ("以 root 运行lb config。", (PlacedMark((0,), 9, 18),))
