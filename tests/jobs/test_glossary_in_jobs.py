"""The glossary in jobs, over real HTTP in both protocols: each chunk's message lists exactly
the accepted entries that occur in it, the system prompt stays the same bytes, models propose
entries and are refused where they contradict the glossary, and extraction is a job of its own
that asks the translator how to render names. A book without a glossary is not offered the
glossary tools, and a conversation keeps the tools it began with to its end."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from honyaku.agent.broker import Answer, Broker, PersonRequest, QuestionReply, QuestionRequest
from honyaku.domain import JobKind
from honyaku.domain.glossary import EntryStatus, GlossaryEntry
from honyaku.jobs import JobRequest, JobStarted
from honyaku.jobs.glossary_prompts import GLOSSARY_HEADER, KNOWN_HEADER
from honyaku.jobs.records import JobRecords
from honyaku.store import ActionKind, GlossaryStore, Stores
from honyaku.testing import Mistake

from .conftest import (
    connected,
    engine,
    first_messages,
    run_to_end,
    stop_after_first_chunk,
    tool_results,
)

NOVEL = """\
第一章　王都

王《おう》都《と》の門にアリスが立っていた。
ｱﾘｽちゃんは笑った。ＡＢＣ商会の馬車が通り過ぎた。
夜になった。

第二章　ギルド

ギルドの受付でアリスは名を告げた。
マーリンさんが奥から出てきた。
"""
ENTRIES = [
    GlossaryEntry("王都", "王都", kind="place"),
    GlossaryEntry("アリス", "爱丽丝", "主人公", "character", ("アリスちゃん",), "female"),
    GlossaryEntry("abc商会", "ABC商会", kind="organization"),
    GlossaryEntry("ギルド", "公会"),
    GlossaryEntry("魔導書", "魔导书"),
]


SEPARATE = 60
"""A part's characters at which the novel's two chapters each have a conversation."""


@pytest.fixture
def novel_id(library, honyaku, tmp_path: Path) -> str:
    path = tmp_path / "novel.txt"
    path.write_text(NOVEL, encoding="utf-8")
    return asyncio.run(honyaku.books.import_file(path, source_lang="ja")).id


@pytest.fixture
def with_glossary(library, honyaku, novel_id) -> str:
    for entry in ENTRIES:
        asyncio.run(honyaku.glossary.add(novel_id, entry))
    return novel_id


def section(message: str, header: str = GLOSSARY_HEADER) -> list[str]:
    if header not in message:
        return []
    return message.split(header, 1)[1].strip().splitlines()


def test_each_chunk_lists_exactly_the_accepted_entries_in_its_text(
    run_job, library, honyaku, fake_model, with_glossary
):
    asyncio.run(
        honyaku.glossary.add(with_glossary, GlossaryEntry("マーリン", "梅林"), series="legends")
    )
    store = GlossaryStore(library.database)
    waiting = GlossaryEntry("受付", "前台", status=EntryStatus.PROPOSED)
    store.add(store.book_glossary(with_glossary), [waiting], origin="job")

    # (parts of 60 characters: the two chapters, of 55 and 34, too long to share one)
    outcome, _ = run_job(fake_model, with_glossary, concurrency=1, chunk_chars=SEPARATE)

    assert outcome.ok
    first, second = first_messages(fake_model)
    # Matched on the text the model sees: 王《おう》都《と》 reads 王都; ｱﾘｽちゃん finds
    # アリス by its alias, half-width; ＡＢＣ商会 finds abc商会; 魔導書 is nowhere.
    assert section(first) == [
        "- abc商会 → ABC商会 (organization)",
        "- アリス (アリスちゃん) → 爱丽丝 (character, female; 主人公)",
        "- 王都 → 王都 (place)",
    ]
    # The title of the first chunk counts, a shared glossary's entries count, a proposed
    # entry (受付) waits for the translator.
    assert section(second) == [
        "- アリス (アリスちゃん) → 爱丽丝 (character, female; 主人公)",
        "- ギルド → 公会",
        "- マーリン → 梅林",
    ]


def test_the_system_prompt_and_tools_stay_the_same_bytes_across_chunks(
    run_job, library, fake_model, with_glossary
):
    run_job(fake_model, with_glossary, chunk_chars=SEPARATE)

    firsts = [b for b in fake_model.requests if len(b["messages"]) == 2]
    assert len(firsts) == 2
    assert len({b["messages"][0]["content"] for b in firsts}) == 1
    assert len({repr(b.get("tools")) for b in firsts}) == 1
    assert len({b["messages"][1]["content"] for b in firsts}) == 2


def offered(body: dict) -> tuple[str, ...]:
    return tuple(spec["function"]["name"] for spec in body.get("tools", ()))


@pytest.mark.parametrize("protocol", ["native"], indirect=True)
def test_a_book_without_a_glossary_is_offered_no_glossary_tools_until_it_has_one(
    run_job, library, honyaku, fake_model, novel_id
):
    # Native calls: the request lists the tools it offers, and a call to one it does not
    # offer is still read as its schema says.
    library.update_settings(novel_id, auto_accept_terms=True)
    # Its first reply proposes an entry, accepted at once, and forgets to end: the reminder
    # takes a second request of the same conversation.
    fake_model.translator.proposals = ({"source": "アリス", "target": "爱丽丝"},)
    fake_model.translator.mistakes = {Mistake.FORGET_END}

    outcome, _ = run_job(fake_model, novel_id, chapters=[1])

    assert outcome.ok
    assert len(fake_model.requests) > 1
    [tools] = {offered(body) for body in fake_model.requests}
    assert "add_translation_batch" in tools
    assert not {"add_glossary_terms", "get_glossary"} & set(tools)
    assert [s.entry.source for s in asyncio.run(honyaku.glossary.entries(novel_id))] == ["アリス"]

    fake_model.requests.clear()
    run_job(fake_model, novel_id, chapters=[2])

    assert fake_model.requests
    assert all("get_glossary" in offered(body) for body in fake_model.requests)


def test_a_proposal_contradicting_an_accepted_entry_is_refused_with_the_entry(
    run_job, library, honyaku, jobs, fake_model, with_glossary
):
    fake_model.translator.proposals = (
        {"source": "アリス", "target": "艾莉丝"},
        {"source": "夜", "target": "夜晚"},
    )

    outcome, _ = run_job(fake_model, with_glossary, chapters=[1])

    assert outcome.ok
    [result] = tool_results(jobs, with_glossary, "add_glossary_terms")
    assert result["success"] is False
    assert result["error_code"] == "TERM_CONTRADICTS_GLOSSARY"
    assert "アリス → 艾莉丝 contradicts the glossary: アリス → 爱丽丝" in result["error"]
    [conflict] = result["conflicts"]
    assert conflict["existing"]["target"] == "爱丽丝"
    assert conflict["existing"]["status"] == "accepted"
    # Refused whole: the other proposal was not saved either.
    assert "夜" not in {
        s.entry.source for s in asyncio.run(honyaku.glossary.entries(with_glossary))
    }


def test_proposals_wait_for_the_translator_and_accepted_ones_reach_later_chunks(
    run_job, library, honyaku, jobs, fake_model, novel_id
):
    # An entry the chapters never name: the book has a glossary, and its tools are offered.
    asyncio.run(honyaku.glossary.add(novel_id, GlossaryEntry("魔導書", "魔导书")))
    fake_model.translator.proposals = ({"source": "アリス", "target": "爱丽丝", "note": "girl"},)

    run_job(fake_model, novel_id, chapters=[1])

    entries = asyncio.run(honyaku.glossary.entries(novel_id))
    [stored] = [s for s in entries if s.entry.source == "アリス"]
    assert (stored.entry.status, stored.origin.startswith("job ")) == (EntryStatus.PROPOSED, True)
    assert all(GLOSSARY_HEADER not in m for m in first_messages(fake_model))

    library.update_settings(novel_id, auto_accept_terms=True)
    fake_model.translator.proposals = ({"source": "ギルド", "target": "公会"},)
    fake_model.requests.clear()
    run_job(fake_model, novel_id, chapters=[2])

    accepted = asyncio.run(honyaku.glossary.entries(novel_id, status=EntryStatus.ACCEPTED))
    assert [s.entry.source for s in accepted] == ["ギルド", "魔導書"]
    [result] = tool_results(jobs, novel_id, "add_glossary_terms")[-1:]
    assert result["status"] == "accepted"


def test_the_model_looks_entries_up_with_get_glossary(run_job, library, fake_model, with_glossary):
    from honyaku.agent.broker import Broker
    from honyaku.agent.registry import ToolRegistry
    from honyaku.domain import ChunkWorkflow, split_into_chunks
    from honyaku.jobs.glossary_tools import GLOSSARY_TOOLS
    from honyaku.jobs.tools import ChunkContext
    from honyaku.llm.messages import ToolCall

    book = library.whole_book(with_glossary)
    chapter = book.chapters[0]
    [chunk] = split_into_chunks(chapter, chapter.work_paragraphs, max_chars=8000)
    workflow = ChunkWorkflow(JobKind.TRANSLATION, {}, (chapter.id,))
    context = ChunkContext(
        Broker(),
        "a test",
        JobRecords(Stores.over(library.database)),
        book,
        "job00000",
        "m",
        chunk,
        workflow,
    )
    registry = ToolRegistry(GLOSSARY_TOOLS, ChunkContext)

    result = asyncio.run(registry.run(ToolCall("c", "get_glossary", {"query": "爱丽"}), context))

    assert result["success"] is True
    assert [e["source"] for e in result["entries"]] == ["アリス"]
    assert result["entries"][0]["aliases"] == ["アリスちゃん"]


# -- extraction ------------------------------------------------------------------------------


class Person:
    """The translator: picks the second suggestion of every question."""

    def __init__(self) -> None:
        self.dialogs: list[PersonRequest] = []

    async def ask(self, request: PersonRequest) -> QuestionReply:
        assert isinstance(request, QuestionRequest)
        self.dialogs.append(request)
        return QuestionReply(
            tuple(Answer(n, q.suggested_answers[1], 1) for n, q in enumerate(request.questions))
        )


def test_extraction_asks_how_to_render_names_and_proposes_them_with_readings(
    run_job, library, honyaku, jobs, fake_model, novel_id
):
    asyncio.run(honyaku.glossary.add(novel_id, GlossaryEntry("ギルド", "公会")))
    person = Person()
    broker = Broker()

    with broker.attached(person):
        outcome, _ = run_job(
            fake_model,
            novel_id,
            JobKind.EXTRACTION,
            broker=broker,
            concurrency=1,
            chunk_chars=SEPARATE,
        )

    assert outcome.ok
    assert outcome.paragraphs_done == outcome.paragraphs_total == 5
    [first, second] = person.dialogs
    assert first.batch
    assert [q.text for q in first.questions] == ["「アリス」はどう訳しますか？"]
    # Chapter 2 lists アリス as already proposed: only マーリン is asked about.
    assert [q.text for q in second.questions] == ["「マーリン」はどう訳しますか？"]
    proposed = {
        s.entry.source: s.entry
        for s in asyncio.run(honyaku.glossary.entries(novel_id, status=EntryStatus.PROPOSED))
    }
    assert proposed["アリス"].target == "〈意〉アリス"  # the translator's answer
    assert proposed["アリス"].reading == "ありす"
    assert proposed["マーリン"].target == "〈意〉マーリン"
    assert "ギルド" not in proposed  # already in the glossary, listed as such
    assert any(KNOWN_HEADER in m for m in first_messages(fake_model))
    questions = jobs.actions(novel_id, kinds=[ActionKind.QUESTION])
    assert [a.action.payload["outcome"] for a in questions] == ["answered", "answered"]
    assert not any(c.translation for c in library.whole_book(novel_id).chapters[0].paragraphs)


def test_extraction_without_a_translator_proposes_its_own_renderings(
    run_job, library, honyaku, fake_model, novel_id
):
    outcome, _ = run_job(fake_model, novel_id, JobKind.EXTRACTION)

    assert outcome.ok
    proposed = {
        s.entry.source: s.entry.target for s in asyncio.run(honyaku.glossary.entries(novel_id))
    }
    assert proposed["アリス"] == "〈音〉アリス"


def test_an_interrupted_extraction_resumes_with_the_chapters_left(
    library, fake_model, novel_id, protocol
):
    service = engine(Stores.over(library.database))
    request = JobRequest(
        book_id=novel_id, kind=JobKind.EXTRACTION, concurrency=1, chunk_chars=SEPARATE
    )

    asyncio.run(stop_after_first_chunk(service, request, connected(fake_model, protocol)))
    sent = len(fake_model.requests)
    outcome, events = asyncio.run(run_to_end(service, request, connected(fake_model, protocol)))

    started = events[0]
    assert isinstance(started, JobStarted)
    assert (started.resumed, started.chunks, started.paragraphs_done) == (True, 1, 3)
    assert outcome.ok
    assert outcome.paragraphs_done == outcome.paragraphs_total == 5
    later = [b["messages"][1]["content"] for b in fake_model.requests[sent:]]
    assert all("Chapter 2" in message for message in later)
