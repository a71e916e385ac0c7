"""A translation in the wrong Chinese script, in a third language or copying its source, in
translation jobs over real HTTP: the batch is saved, its result tells the model what to fix,
the paragraphs the model leaves so stay flagged for the translator, and a later version in
the right script clears the flag. The text is the opening of Akutagawa's Rashōmon, with a
translation of it in each script."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.domain import BookDraft, ChapterDraft
from honyaku.store import Library
from honyaku.testing import FakeLLMServer, ScriptedTranslator

from .conftest import tool_results

TITLE = ("羅生門", "罗生门", "羅生門")
PARAGRAPHS = (
    # source, Simplified, Traditional
    (
        "ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。",
        "某日傍晚，有一个仆人在罗生门下等雨停。",
        "某日傍晚，有一個僕人在羅生門下等雨停。",
    ),
    (
        "広い門の下には、この男のほかに誰もいない。",
        "宽广的门下，除了这个男人以外，再没有别人。",
        "寬廣的門下，除了這個男人以外，再沒有別人。",
    ),
    (
        "なぜかと云うと、この二三年、京都には、地震とか辻風とか火事とか饑饉とか云う災がつづいて起った。",
        "要说为什么，是因为这两三年来，京都接连发生了地震、旋风、火灾、饥荒等灾祸。",
        "要說為什麼，是因為這兩三年來，京都接連發生了地震、旋風、火災、饑荒等災禍。",
    ),
    (
        "「何をしていた。云え。云わぬと、これだぞよ。」",
        "“你在干什么？说！不说就让你尝尝这个！”",
        "「你在幹什麼？說！不說就讓你嚐嚐這個！」",
    ),
)
SIMPLIFIED = {source: zh for source, zh, _ in (TITLE, *PARAGRAPHS)}
TRADITIONAL = {source: zh for source, _, zh in (TITLE, *PARAGRAPHS)}


def rashomon(library: Library, target_lang: str) -> str:
    draft = BookDraft(
        "羅生門", (ChapterDraft(TITLE[0], tuple(p[0] for p in PARAGRAPHS)),), author="芥川龍之介"
    )
    return library.add_book(draft, source_lang="ja", target_lang=target_lang)


def warnings_seen(jobs, book_id: str) -> dict[str, list[tuple[str, str]]]:
    """Each warned paragraph's (code, message), as the model read them in its batches' results."""
    seen: dict[str, list[tuple[str, str]]] = {}
    for result in tool_results(jobs, book_id, "add_translation_batch"):
        assert result["success"]
        for w in result.get("warnings", []):
            seen.setdefault(w["paragraph_id"], []).append((w["code"], w["message"]))
    return seen


def flagged_codes(honyaku, book_id: str) -> dict[str, list[str]]:
    return {
        p.paragraph_id: [w.code for w in p.warnings]
        for p in asyncio.run(honyaku.books.flagged(book_id))
    }


def work_ids(library: Library, book_id: str) -> list[str]:
    return [p.id for p in library.whole_book(book_id).chapters[0].work_paragraphs]


@pytest.mark.parametrize(
    ("target", "table", "written", "wanted"),
    [
        ("zh-CN", TRADITIONAL, "Traditional", "Simplified"),
        ("zh-TW", SIMPLIFIED, "Simplified", "Traditional"),
    ],
)
def test_a_batch_in_the_other_script_is_saved_and_its_result_says_which_script_to_write(
    run_job, library, jobs, fake_model: FakeLLMServer, target, table, written, wanted
):
    book_id = rashomon(library, target)
    fake_model.translator = ScriptedTranslator(translate=table.__getitem__)

    outcome, _ = run_job(fake_model, book_id)

    assert outcome.ok  # warnings never refuse anything
    seen = warnings_seen(jobs, book_id)
    assert list(seen) == work_ids(library, book_id)
    for [(code, message)] in seen.values():
        assert code == "WRONG_SCRIPT"
        assert message.startswith(f"the translation is written in {written} characters (")
        assert message.endswith(
            f"{target} is written in {wanted}: rewrite it in {wanted} characters"
        )
    [first] = seen[work_ids(library, book_id)[0]]
    arrow = "個→个" if target == "zh-CN" else "个→個"
    assert arrow in first[1]
    saved = [p.translation for p in library.whole_book(book_id).chapters[0].work_paragraphs]
    assert saved == [table[p[0]] for p in PARAGRAPHS]


def test_a_batch_in_the_right_script_gets_no_warning(run_job, library, jobs, fake_model):
    book_id = rashomon(library, "zh-CN")
    fake_model.translator = ScriptedTranslator(translate=SIMPLIFIED.__getitem__)

    outcome, _ = run_job(fake_model, book_id)

    assert outcome.ok
    assert warnings_seen(jobs, book_id) == {}


def test_the_wrong_script_left_unfixed_stays_flagged_until_a_version_in_the_right_one(
    run_job, library, honyaku, fake_model
):
    book_id = rashomon(library, "zh-CN")
    fake_model.translator = ScriptedTranslator(translate=TRADITIONAL.__getitem__)
    run_job(fake_model, book_id)
    ids = work_ids(library, book_id)

    assert flagged_codes(honyaku, book_id) == {pid: ["WRONG_SCRIPT"] for pid in ids}

    fake_model.translator = ScriptedTranslator(translate=SIMPLIFIED.__getitem__)
    outcome, _ = run_job(fake_model, book_id, retranslate=True)

    assert outcome.ok
    assert flagged_codes(honyaku, book_id) == {}
    assert [len(library.versions(book_id, pid)) for pid in ids] == [2, 2, 2, 2]


def test_a_third_language_and_a_copied_source_are_warned_once_each(
    run_job, library, jobs, honyaku, fake_model
):
    book_id = rashomon(library, "zh-CN")
    english = "One evening, a servant was waiting for the rain to stop under the Rashomon gate."
    late = PARAGRAPHS[2][0]
    answers = {
        **SIMPLIFIED,
        PARAGRAPHS[0][0]: english,
        PARAGRAPHS[1][0]: PARAGRAPHS[1][2],  # Traditional
        late: late.replace("火事", "火灾"),  # the source, one word changed
    }
    fake_model.translator = ScriptedTranslator(translate=answers.__getitem__)

    run_job(fake_model, book_id)

    first, second, third, fourth = work_ids(library, book_id)
    seen = {pid: [code for code, _ in found] for pid, found in warnings_seen(jobs, book_id).items()}
    assert seen == {
        first: ["WRONG_LANGUAGE", "LENGTH_OUT_OF_BAND"],
        second: ["WRONG_SCRIPT"],
        third: ["UNTRANSLATED_KANA", "SAME_AS_SOURCE"],
    }
    assert fourth not in seen
    assert flagged_codes(honyaku, book_id) == seen
