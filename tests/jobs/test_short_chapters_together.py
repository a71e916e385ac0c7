"""Short chapters together: consecutive chapters shorter than a part share one conversation,
each after its own chapter_id with its title, every title submitted under its own id, review
refused while one is missing; a part never crosses the job's chapter scope, and a refused
conversation leaves each of its chapters to its own rounds, the refused paragraph isolated."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from honyaku.domain import JobKind
from honyaku.domain.book import BookDraft, ChapterDraft, Paragraph
from honyaku.domain.chunking import Opening, conversations
from honyaku.domain.workflow import ChunkWorkflow
from honyaku.errors import ToolError
from honyaku.formats.exporting import ExportFormat
from honyaku.jobs import JobRequest
from honyaku.store import Library, Stores
from honyaku.testing import (
    ContentFilter,
    FakeLLMServer,
    ScriptedTranslator,
    pseudo_translation,
)

from .conftest import connected, engine, first_messages, run_to_end, tool_results

CHUNK_CHARS = 400
WORD = "爆弾"


def short(number: int, paragraphs: int = 3) -> ChapterDraft:
    return ChapterDraft(
        f"第{number}話", tuple(f"第{number}話の{i}番目の段落。" for i in range(paragraphs))
    )


def long_chapter(number: int) -> ChapterDraft:
    return ChapterDraft(
        f"第{number}話　長い夜",
        tuple(f"第{number}話の{i}番目の段落で、彼はまだ歩いていた。" for i in range(30)),
    )


@pytest.fixture
def stories(library: Library) -> str:
    """A title page, two short episodes, a long one (two parts), then two short ones."""
    chapters = (
        ChapterDraft("表紙", ("短編集",)),
        short(2),
        short(3),
        long_chapter(4),
        short(5),
        short(6),
    )
    draft = BookDraft("短編集", chapters)
    return library.add_book(draft, source_lang="ja", target_lang="zh-CN")


def opening(messages: list[str], header: str) -> str:
    """The one conversation's first message that begins with ``header``."""
    [found] = [message for message in messages if message.startswith(header)]
    return found


def run(library: Library, server: FakeLLMServer, book_id: str, protocol: str, **request):
    model = connected(server, protocol)
    service = engine(Stores.over(library.database))
    job = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, chunk_chars=CHUNK_CHARS, **request)
    return asyncio.run(run_to_end(service, job, model))


def test_short_chapters_share_a_conversation_each_title_under_its_own_id(
    library: Library, stories: str, protocol: str, honyaku, tmp_path: Path
) -> None:
    # Given a book whose title page and episodes 2, 3, 5 and 6 are shorter than a part
    with FakeLLMServer() as server:
        # When it is translated
        outcome, _ = run(library, server, stories, protocol)

    # Then chapters 1–3 share one conversation, chapter 4 has its two, 5–6 share one
    assert outcome.ok
    opened = first_messages(server)
    assert len(opened) == 4
    book = library.whole_book(stories)
    first = opening(opened, "Chapters 1–3")
    assert first.startswith("Chapters 1–3, each after its chapter_id: 7 work paragraph(s).")
    for chapter in book.chapters[:3]:
        assert f"chapter_id: {chapter.id}\ntitle: {chapter.title}\n" in first
    assert book.chapters[3].id not in first
    # And each title was submitted under its own id, each paragraph in its place
    titles = tool_results(honyaku.stores.jobs, stories, "update_chapter_title")
    assert len(titles) == 6
    assert all(result["success"] for result in titles)
    for chapter in book.chapters:
        assert chapter.translated_title == pseudo_translation(chapter.title)
        for paragraph in chapter.paragraphs:
            assert paragraph.translation == pseudo_translation(paragraph.text)
    # And the export puts each chapter, its title first, in its place
    path = tmp_path / "book.txt"
    asyncio.run(honyaku.books.export(stories, path, ExportFormat.TXT))
    exported = path.read_text(encoding="utf-8")
    places = [exported.index(pseudo_translation(c.title)) for c in book.chapters]
    assert places == sorted(places)
    for chapter, at in zip(book.chapters, places, strict=True):
        assert exported.index(pseudo_translation(chapter.paragraphs[0].text)) > at


def test_review_is_refused_while_any_title_of_the_part_is_missing() -> None:
    # Given a part of three chapters, its paragraphs all accepted and two titles of three
    given = {pid: Paragraph(pid, 0, "段落") for pid in ("1a2b3c4d", "2b3c4d5e", "3c4d5e6f")}
    chapters = ("c0ffee01", "c0ffee02", "c0ffee03")
    workflow = ChunkWorkflow(JobKind.TRANSLATION, given, chapters, chapters)
    workflow.move("working")
    workflow.accept(list(given))
    workflow.accept_title("c0ffee01")
    assert workflow.accept_title("c0ffee03")["title_missing"] == "c0ffee02"

    # When the model asks for review, then Then it is refused, naming the one missing
    with pytest.raises(ToolError) as refused:
        workflow.move("review")
    assert refused.value.code == "WORK_INCOMPLETE"
    assert 'chapter_id "c0ffee02"' in str(refused.value)
    # And a title for a chapter outside the part is refused with the part's ids
    with pytest.raises(ToolError, match='"c0ffee01", "c0ffee02", "c0ffee03"'):
        workflow.check_title("deadbeef", "题")
    workflow.accept_title("c0ffee02")
    assert workflow.move("review")["status"] == "review"


def test_a_model_that_tries_review_first_is_told_every_missing_title(
    library: Library, stories: str, protocol: str, honyaku
) -> None:
    # Given a model that tries review before the chapter titles
    translator = ScriptedTranslator(title_after_review=True)
    with FakeLLMServer(translator=translator) as server:
        outcome, _ = run(library, server, stories, protocol)

    # Then review is refused in the shared conversation, naming the three titles missing
    assert outcome.ok
    refused = [
        result
        for result in tool_results(honyaku.stores.jobs, stories, "update_task_status")
        if result.get("error_code") == "WORK_INCOMPLETE"
    ]
    book = library.whole_book(stories)
    assert any(
        all(chapter.id in result["error"] for chapter in book.chapters[:3]) for result in refused
    )
    assert all(c.translated_title == pseudo_translation(c.title) for c in book.chapters)


def test_the_tool_list_of_a_conversation_never_changes_between_its_requests(
    library: Library, stories: str, protocol: str
) -> None:
    with FakeLLMServer(translator=ScriptedTranslator.careful()) as server:
        outcome, _ = run(library, server, stories, protocol)

    assert outcome.ok
    offered: dict[str, set[str]] = {}
    for body in server.requests:
        shown = repr(body.get("tools")) + body["messages"][0]["content"]
        offered.setdefault(body["messages"][1]["content"], set()).add(shown)
    assert len(offered) == 4
    assert all(len(tools) == 1 for tools in offered.values())


def test_a_part_never_crosses_the_jobs_chapter_scope(
    library: Library, stories: str, protocol: str
) -> None:
    # When only chapters 2–3 and 5 are translated
    with FakeLLMServer() as server:
        outcome, _ = run(library, server, stories, protocol, chapters=[2, 3, 5])

    # Then 2–3 share a conversation, and 5 (not next to 3) has its own
    assert outcome.ok
    opened = first_messages(server)
    assert sorted(re.match(r"Chapters? [0-9–]+", message)[0] for message in opened) == [
        "Chapter 5",
        "Chapters 2–3",
    ]
    book = library.whole_book(stories)
    assert [c.translated_title is not None for c in book.chapters] == [
        False,
        True,
        True,
        False,
        True,
        False,
    ]


def test_a_refused_conversation_leaves_each_chapter_to_its_own_rounds(
    library: Library, protocol: str
) -> None:
    # Given three short episodes, the second holding a word the provider's filter refuses
    chapters = (short(1), ChapterDraft("第2話", ("朝が来た。", f"{WORD}が落ちた。")), short(3))
    book_id = library.add_book(BookDraft("三話", chapters), source_lang="ja", target_lang="zh-CN")
    with FakeLLMServer(filter=ContentFilter(words={WORD})) as server:
        # When the book is translated
        outcome, _ = run(library, server, book_id, protocol)

    # Then the shared conversation was refused, and each chapter was tried again on its own:
    # all but the refused paragraph is translated, and only chapter 2 is left with its reason
    book = library.whole_book(book_id)
    refused = book.chapters[1].paragraphs[1]
    for chapter in book.chapters:
        assert chapter.translated_title == pseudo_translation(chapter.title)
        for paragraph in chapter.paragraphs:
            expected = None if paragraph.id == refused.id else pseudo_translation(paragraph.text)
            assert paragraph.translation == expected
    assert [(f.where.chapter, f.failure.kind.value) for f in outcome.failures] == [(2, "filtered")]


def test_a_title_page_goes_with_the_first_part_of_the_chapter_after_it(
    library: Library, protocol: str
) -> None:
    # Given a story whose title page is a chapter of its own, before a chapter of two parts
    chapters = (ChapterDraft("表紙", ("羅生門",)), long_chapter(2))
    book_id = library.add_book(BookDraft("羅生門", chapters), source_lang="ja", target_lang="zh-CN")
    with FakeLLMServer() as server:
        outcome, _ = run(library, server, book_id, protocol)

    # Then the title page shares the first part's conversation: two conversations, not three
    assert outcome.ok
    opened = first_messages(server)
    assert len(opened) == 2
    book = library.whole_book(book_id)
    first = opening(opened, "Chapters 1–2")
    assert f"chapter_id: {book.chapters[1].id}\ntitle: {book.chapters[1].title}" in first
    assert all(c.translated_title == pseudo_translation(c.title) for c in book.chapters)
    assert all(p.translation for c in book.chapters for p in c.paragraphs)


def test_conversations_join_consecutive_short_chapters_up_to_a_part() -> None:
    # Given chapters' first parts: 4 of two parts, 6 not waiting to run, 10 of two parts
    given = [
        Opening(1, 50, True),
        Opening(2, 300, True),
        Opening(3, 100, True),
        Opening(4, 290, False),
        Opening(5, 10, True),
        6,
        Opening(7, 10, True),
        Opening(8, 390, True),
        Opening(9, 5, True),
        Opening(10, 20, True),
        Opening(11, 10, True),
        Opening(12, 400, False),
        Opening(13, 10, True),
    ]
    assert conversations(given, 400) == [
        [1, 2],
        [3, 4],
        [5],
        [6],
        [7, 8],
        [9, 10, 11, 12],
        [13],
    ]
    assert conversations([Opening(n, 1, True) for n in range(1, 12)], 400) == [
        [1, 2, 3, 4, 5, 6, 7, 8],
        [9, 10, 11],
    ]
