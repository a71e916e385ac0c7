"""The cast, its forms of address and the translation memory, carried from one volume of a
series to the next: a synthetic two-volume series (``honyaku.testing.series``), Japanese into
Chinese, translated over real HTTP by a scripted fake model, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.domain import JobKind, TranslationKind
from honyaku.jobs import JobFinished, JobRequest
from honyaku.jobs.glossary_prompts import FORMS_HEADER
from honyaku.jobs.memory_prompts import MEMORY_HEADER
from honyaku.testing import FakeLLMServer, ScriptedTranslator
from honyaku.testing.series import (
    CHARACTERS,
    FIRST_DRAFTS,
    FORMS_OF_ADDRESS,
    LATE_FORM,
    NEARLY_REPEATED,
    REPEATED,
    SERIES,
    WRONG_ADDRESS,
    WRONG_PRONOUN,
    series_translation,
    volumes,
)

ROWS_OF = {
    "第一章　再会": {
        "- 空太 → 美咲: 美咲先輩 → 美咲学姐 (你)",
        "- 美咲 → 空太: 後輩くん → 学弟 (你)",
    },
    "第二章　相談": {
        "- 空太 → 千尋先生: 千尋先生 → 千寻老师 (您)",
        "- 千尋先生 → 空太: 空太くん → 空太 (你)",
    },
    "第三章　絵": set(),
}
"""The forms of address each chapter of volume 2 must be given, and no others: its pairs'."""


SEPARATE = 100
"""Chunks of 100 characters: each chapter of volume 2 its own conversation, not one shared."""


def run(
    honyaku: Honyaku, server: FakeLLMServer, book_id: str, kind: JobKind, **options: Any
) -> JobFinished:
    model = ModelChoice("fake-model", server.url, protocol=ToolProtocol.NATIVE)
    request = JobRequest(book_id=book_id, kind=kind, concurrency=1, **options)

    async def events() -> JobFinished:
        found = [event async for event in honyaku.jobs.run(request, model)]
        assert isinstance(found[-1], JobFinished)
        return found[-1]

    finished = asyncio.run(events())
    assert finished.outcome.ok, finished.outcome
    return finished


def first_volume_done(honyaku: Honyaku) -> tuple[str, str]:
    """Both volumes in the series, the first one's cast extracted and accepted, then the
    first volume translated (proposing one more form of address, accepted too)."""
    library = honyaku.stores.library
    first, second = (
        library.add_book(draft, source_lang="ja", target_lang="zh-CN") for draft in volumes()
    )
    for book in (first, second):
        asyncio.run(honyaku.glossary.attach(book, SERIES))
    extractor = ScriptedTranslator(characters=CHARACTERS, forms_of_address=FORMS_OF_ADDRESS)
    with FakeLLMServer(translator=extractor) as server:
        run(honyaku, server, first, JobKind.EXTRACTION)
    asyncio.run(honyaku.glossary.accept(first))
    asyncio.run(honyaku.cast.accept_forms(first))
    translator = ScriptedTranslator(translate=series_translation, forms_of_address=LATE_FORM)
    with FakeLLMServer(translator=translator) as server:
        run(honyaku, server, first, JobKind.TRANSLATION)
    asyncio.run(honyaku.cast.accept_forms(first))
    return first, second


def chunk_messages(server: FakeLLMServer) -> dict[str, str]:
    """Each conversation's first message, by the title of the chapter it opens."""
    found = {}
    for body in server.requests:
        if [m["role"] for m in body["messages"]] == ["system", "user"]:
            message = body["messages"][1]["content"]
            title = message.split("title: ", 1)[1].split("\n", 1)[0]
            found[title] = message
    return found


def section(message: str, header: str) -> list[str]:
    if header not in message:
        return []
    return message.split(header, 1)[1].split("\n\n", 1)[0].strip().splitlines()


def batch_results(server: FakeLLMServer) -> list[dict[str, Any]]:
    """Every result of ``add_translation_batch`` the model was sent."""
    results = {}
    for body in server.requests:
        calls = {
            call["id"]: call["function"]["name"]
            for message in body["messages"]
            for call in message.get("tool_calls") or ()
        }
        for message in body["messages"]:
            if (
                message["role"] == "tool"
                and calls[message["tool_call_id"]] == "add_translation_batch"
            ):
                results[message["tool_call_id"]] = json.loads(message["content"])
    return list(results.values())


def by_source(honyaku: Honyaku, book_id: str) -> dict[str, Any]:
    book = honyaku.stores.library.whole_book(book_id)
    return {p.text: p for chapter in book.chapters for p in chapter.work_paragraphs}


def test_the_second_volume_is_given_its_pairs_forms_its_warnings_and_the_first_volumes_words(
    honyaku: Honyaku,
):
    # Given volume 1 translated, its cast and forms of address accepted in the series
    _, second = first_volume_done(honyaku)
    view = asyncio.run(honyaku.cast.view(second))
    assert len(view.members) == len(CHARACTERS)
    assert len(view.rows) == len(FORMS_OF_ADDRESS) + len(LATE_FORM)
    assert all(m.entry.status.value == "accepted" for m in view.members)

    # When volume 2 is translated by a model that first renders 美咲先輩 otherwise, and calls
    # 真白 he
    careless = ScriptedTranslator(translate=series_translation, first_drafts=FIRST_DRAFTS)
    with FakeLLMServer(translator=careless) as server:
        run(honyaku, server, second, JobKind.TRANSLATION, chunk_chars=SEPARATE)

    # Then each chunk carried the rows of the pairs it names, and no other
    messages = chunk_messages(server)
    assert set(messages) == set(ROWS_OF)
    for title, rows in ROWS_OF.items():
        assert set(section(messages[title], FORMS_HEADER)) == rows, title
    # and the system prompt and the tools were the same bytes for every chunk
    firsts = [b for b in server.requests if len(b["messages"]) == 2]
    assert len({b["messages"][0]["content"] for b in firsts}) == 1
    assert len({repr(b["tools"]) for b in firsts}) == 1
    # and the characters' pronouns and speech came with the names the chunk holds
    assert (
        "- 真白 → 真白 (character, female, 她; speech: 平淡、寡言，句子很短)"
        in messages["第三章　絵"]
    )
    # and the warnings were in the batches' results
    warned = {w["code"]: w for r in batch_results(server) for w in r.get("warnings", ())}
    assert set(warned) == {"ADDRESS_FORM_MISSING", "WRONG_PRONOUN"}
    assert "美咲先輩 → 美咲学姐" in warned["ADDRESS_FORM_MISSING"]["message"]
    assert "真白" in warned["WRONG_PRONOUN"]["message"]
    # and the fixes were saved, no paragraph left flagged
    paragraphs = by_source(honyaku, second)
    assert paragraphs[WRONG_ADDRESS].translation == series_translation(WRONG_ADDRESS)
    assert paragraphs[WRONG_PRONOUN].translation == series_translation(WRONG_PRONOUN)
    assert asyncio.run(honyaku.books.flagged(second)) == []
    # and the repeated paragraph came with volume 1's translation, the near one with its own
    references = section(messages["第二章　相談"], MEMORY_HEADER)
    assert references == [
        f"- [3] the same source, 《さくら荘のペットな彼女 1》, chapter 1: "
        f"{series_translation(REPEATED)}"
    ]
    [near] = section(messages["第三章　絵"], MEMORY_HEADER)
    assert near.startswith("- [3] 94% alike, 《さくら荘のペットな彼女 1》, chapter 1: ")
    assert section(messages["第一章　再会"], MEMORY_HEADER) == []
    # and everything is translated
    leftover = asyncio.run(honyaku.books.left(second))
    assert leftover.left == []
    assert NEARLY_REPEATED in paragraphs


def test_the_memory_writes_what_it_holds_and_what_the_model_does_not_fix_stays_flagged(
    honyaku: Honyaku,
):
    # Given volume 1 translated, and volume 2 set to be written from memory where it can
    first, second = first_volume_done(honyaku)
    asyncio.run(honyaku.settings.change(second, write_from_memory=True))

    # When volume 2 is translated by a model that leaves its warnings be
    stubborn = ScriptedTranslator(
        translate=series_translation, first_drafts=FIRST_DRAFTS, fixes_warnings=False
    )
    with FakeLLMServer(translator=stubborn) as server:
        run(honyaku, server, second, JobKind.TRANSLATION)

    # Then the repeated paragraph was written from memory, listed as such, and never sent
    repeated = by_source(honyaku, second)[REPEATED]
    [version] = honyaku.stores.library.versions(second, repeated.id)
    assert (version.kind, version.model) == (TranslationKind.MEMORY, "memory")
    assert version.text == series_translation(REPEATED)
    assert all(REPEATED not in body["messages"][1]["content"] for body in server.requests)
    report = asyncio.run(honyaku.memory.report(second))
    assert report.written == 1
    assert report.summary.books == (first, second)
    # and the near one was not: only the very same source is written
    near = by_source(honyaku, second)[NEARLY_REPEATED]
    assert honyaku.stores.library.versions(second, near.id)[0].kind is TranslationKind.TRANSLATION
    # and the warnings the model did not fix stay on their paragraphs for the translator
    flagged = asyncio.run(honyaku.books.flagged(second))
    codes = {w.code for item in flagged for w in item.warnings}
    assert codes == {"ADDRESS_FORM_MISSING", "WRONG_PRONOUN"}
    # and a second writing finds nothing left to write: nothing is ever overwritten
    assert asyncio.run(honyaku.memory.write_exact(second)) == 0
    assert honyaku.stores.library.versions(second, repeated.id) == [version]


def test_another_translators_volume_is_imported_as_references_the_next_volume_is_shown(
    honyaku: Honyaku,
):
    library = honyaku.stores.library
    first, second = (
        library.add_book(draft, source_lang="ja", target_lang="zh-CN") for draft in volumes()
    )
    for book in (first, second):
        asyncio.run(honyaku.glossary.attach(book, SERIES))
    lines = [
        f"〈参考〉{series_translation(p.text)}"
        for chapter in library.whole_book(first).chapters
        for p in chapter.work_paragraphs
    ]

    # When another translator's volume 1 is imported, one paragraph a line (blank ones skipped)
    imported = asyncio.run(
        honyaku.memory.import_reference(first, ["", *lines], origin="volume-1.txt")
    )

    # Then the memory recalls it for volume 2, marked as another translator's
    assert imported == len(lines)
    [match] = [m for m in asyncio.run(honyaku.memory.matches(second)) if m.recall.exact]
    assert match.paragraph.text == REPEATED
    assert match.recall.remembered.translation == f"〈参考〉{series_translation(REPEATED)}"
    assert match.recall.remembered.reference == "volume-1.txt"
    # and volume 1's own versions are untouched
    assert all(p.translation is None for p in by_source(honyaku, first).values())
