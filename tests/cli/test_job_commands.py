"""translate, polish, proofread and demo as a person runs them, against the fake model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter

from honyaku.store import Database, JobStore, Library
from honyaku.testing import (
    FakeCall,
    FakeLLMServer,
    Mistake,
    Thinking,
    ThoughtPlace,
    pseudo_translation,
)

from .conftest import KOJIKI, RASHOMON, honyaku, imported

SECRET = "sk-test-0123456789abcdefSECRET"


def model_flags(server: FakeLLMServer) -> list[str]:
    return ["--model", "fake-translator", "--base-url", server.url]


def test_translate_then_polish_then_proofread_a_real_book(home, fake_model):
    book = imported(RASHOMON)

    translated = honyaku("translate", book, *model_flags(fake_model))
    honyaku("polish", book, *model_flags(fake_model))
    honyaku("proofread", book, *model_flags(fake_model))

    assert "paragraphs  37/37" in translated.stdout
    library = Library(Database.open(home))
    versions = Counter(
        tuple(v.kind for v in library.versions(book, p.id))
        for c in library.whole_book(book).chapters
        for p in c.work_paragraphs
    )
    assert set(versions) <= {
        ("translation", "polish", "proofreading"),
        ("translation", "polish"),
    }
    assert sum(versions.values()) == 37


def test_a_job_with_failed_chunks_exits_nonzero_with_a_summary(fake_model, tmp_path):
    book = imported(RASHOMON)
    fake_model.mistakes.add(Mistake.NEVER_FINISH)

    done = honyaku("translate", book, *model_flags(fake_model), check=False)

    assert done.returncode == 1
    assert "failed chapter 1 part 1: the model could not finish the workflow" in done.stderr
    assert "38 left, each with why:" in done.stdout
    assert "run the same command again" in done.stdout
    assert "Traceback" not in done.stderr
    exported = honyaku("export", book, "--format", "txt", "-o", str(tmp_path / "left.txt"))
    assert "38 paragraph(s) or chapter title(s) left untranslated" in exported.stdout


def test_the_api_key_never_appears_in_output(fake_model, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    book = imported(RASHOMON)

    # Not OpenAI's own server: its usual variable goes there only when named.
    done = honyaku("translate", book, *model_flags(fake_model), "--api-key-env", "OPENAI_API_KEY")

    assert "key from $OPENAI_API_KEY" in done.stdout
    assert SECRET not in done.stdout + done.stderr
    assert SECRET[-6:] not in done.stdout + done.stderr


def test_without_a_model_translate_says_how_to_choose_one():
    book = imported(RASHOMON)

    done = honyaku("translate", book, check=False)

    assert done.returncode == 2
    assert "--model" in done.stderr
    assert "Traceback" not in done.stderr


def test_chapters_option_limits_the_job(home, fake_model):
    book = imported(KOJIKI)

    honyaku("translate", book, "--chapters", "2-3", *model_flags(fake_model))

    chapters = Library(Database.open(home)).whole_book(book).chapters
    done = [bool(c.translated_title) for c in chapters]
    assert done[1:3] == [True, True]
    assert sum(done) == 2


def test_a_reversed_chapter_range_is_called_reversed_not_outside_the_book(fake_model):
    book = imported(KOJIKI)

    done = honyaku("translate", book, "--chapters", "5-2", *model_flags(fake_model), check=False)

    assert done.returncode == 2
    assert "reversed" in done.stderr
    assert "2-5" in done.stderr
    assert "outside" not in done.stderr
    assert "Traceback" not in done.stderr


def test_demo_translates_the_sample_and_says_where_the_result_is(home):
    done = honyaku("demo")

    assert "built-in demo model" in done.stdout
    assert (home / "exports" / "rashomon.zh-CN.epub").is_file()
    assert (home / "exports" / "rashomon.zh-CN.md").is_file()
    assert "honyaku show" in done.stdout


def test_a_job_killed_with_sigkill_resumes_once_its_claims_time_out_with_nothing_lost_or_doubled(
    home, tmp_path, monkeypatch
):
    monkeypatch.setenv("HONYAKU_CLAIM_TIMEOUT_S", str(CLAIM_TIMEOUT_S))
    monkeypatch.setenv("HONYAKU_HEARTBEAT_S", "0.2")
    book = imported(KOJIKI)
    honyaku("settings", book, "--chunk-chars", "1500")
    with FakeLLMServer(latency_s=0.15) as server:
        command = [
            sys.executable,
            "-m",
            "honyaku",
            "translate",
            book,
            *model_flags(server),
            "--concurrency",
            "2",
        ]
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ
        )
        library = Library(Database.open(home))
        deadline = time.monotonic() + 60
        while _translated(library, book) < 150 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
        killed_at = _translated(library, book)
        time.sleep(CLAIM_TIMEOUT_S)  # the dead process's claims go silent, then free

        resumed = honyaku("translate", book, *model_flags(server))

    assert 150 <= killed_at < _work(library, book)
    assert "Resuming translation job" in resumed.stdout
    jobs = JobStore(library.database).for_book(book)
    assert len(jobs) == 1
    assert jobs[0].status == "finished"
    for chapter in library.whole_book(book).chapters:
        for paragraph in chapter.work_paragraphs:
            assert paragraph.translation == pseudo_translation(paragraph.text)
            assert len(library.versions(book, paragraph.id)) == 1


def _translated(library: Library, book: str) -> int:
    return sum(c.translated for c in library.progress(book))


def _work(library: Library, book: str) -> int:
    return sum(c.work_paragraphs for c in library.progress(book))


CLAIM_TIMEOUT_S = 1.0

QUESTION = FakeCall(
    "ask_user", {"question": "「下人」はどう訳しますか？", "suggested_answers": ["仆人", "下人"]}
)


def test_without_a_terminal_questions_get_the_no_ui_error_and_show_actions_lists_them(fake_model):
    book = imported(RASHOMON)
    fake_model.translator.asks = (QUESTION,)

    done = honyaku("translate", book, *model_flags(fake_model))
    actions = honyaku("show", book, "--actions").stdout

    assert "paragraphs  37/37" in done.stdout
    assert "asked: 「下人」はどう訳しますか？ → not answered: nobody can answer" in actions


def test_skip_ask_user_setting_is_shown_and_hides_the_question_tools(fake_model):
    book = imported(RASHOMON)
    fake_model.translator.asks = (QUESTION,)

    settings = honyaku("settings", book, "--skip-ask-user", "on").stdout
    honyaku("translate", book, *model_flags(fake_model), "--protocol", "native")
    actions = honyaku("show", book, "--actions").stdout

    assert "skip_ask_user = True" in settings
    offered = {t["function"]["name"] for t in fake_model.requests[-1]["tools"]}
    assert "ask_user" not in offered
    assert "→ skipped" in actions


def test_ctrl_c_stops_the_job_saying_the_work_is_saved_and_it_resumes(home):
    book = imported(KOJIKI)
    with FakeLLMServer(latency_s=0.3) as server:
        command = [sys.executable, "-m", "honyaku", "translate", book, *model_flags(server)]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        library = Library(Database.open(home))
        deadline = time.monotonic() + 60
        while not _translated(library, book) and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)

        assert process.returncode == 130
        assert "interrupted: accepted work is saved" in stderr
        assert "Traceback" not in stderr
        assert JobStore(library.database).for_book(book)[0].status == "interrupted"
        resumed = honyaku("translate", book, *model_flags(server))
    assert "Resuming translation job" in resumed.stdout


def test_four_copies_started_together_share_one_job_and_pay_for_each_paragraph_once(home):
    book = imported(KOJIKI)
    honyaku("settings", book, "--chunk-chars", "1500")
    with FakeLLMServer(latency_s=0.1) as server:
        command = [sys.executable, "-m", "honyaku", "translate", book, *model_flags(server)]
        copies = [
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(4)
        ]
        outputs = [copy.communicate(timeout=120) for copy in copies]

    library = Library(Database.open(home))
    assert [copy.returncode for copy in copies] == [0, 0, 0, 0], outputs
    assert len(JobStore(library.database).for_book(book)) == 1
    for chapter in library.whole_book(book).chapters:
        for paragraph in chapter.work_paragraphs:
            assert len(library.versions(book, paragraph.id)) == 1


def test_overlapping_chapter_ranges_started_a_moment_apart_never_translate_twice(home):
    book = imported(KOJIKI)
    honyaku("settings", book, "--chunk-chars", "1500")
    with FakeLLMServer(latency_s=0.1) as server:
        runs = []
        for chapters in ("1-12", "6-18", "10-22"):
            command = [sys.executable, "-m", "honyaku", "translate", book, "--chapters", chapters]
            runs.append(
                subprocess.Popen(
                    [*command, *model_flags(server)],
                    text=True,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            )
            time.sleep(0.5)
        outputs = [run.communicate(timeout=120) for run in runs]

    library = Library(Database.open(home))
    assert [run.returncode for run in runs] == [0, 0, 0], outputs
    versions = Counter(
        len(library.versions(book, p.id))
        for c in library.whole_book(book).chapters
        for p in c.work_paragraphs
    )
    assert versions == {1: _work(library, book)}


def test_show_actions_dims_the_models_reasoning_or_leaves_it_out(home):
    book = imported(RASHOMON)
    with FakeLLMServer(thinking=Thinking()) as server:
        honyaku("translate", book, *model_flags(server))

    shown = honyaku("show", book, "--actions").stdout
    hidden = honyaku("show", book, "--actions", "--hide-reasoning").stdout

    assert "thought (" in shown
    assert "first draft" in shown
    assert "thought (" not in hidden


def test_reasoning_goes_back_to_a_server_only_with_replay_reasoning(home):
    book = imported(RASHOMON)
    with FakeLLMServer(thinking=Thinking(ThoughtPlace.FIELD)) as server:
        server.translator.calls_per_reply = 2
        honyaku("translate", book, *model_flags(server), "--protocol", "native")
        plain = _replies_sent_back(server)
        server.requests.clear()
        honyaku("translate", book, *model_flags(server), "--retranslate", "--replay-reasoning")
        replayed = _replies_sent_back(server)

    assert plain
    assert all("reasoning_content" not in reply for reply in plain)
    assert replayed
    assert all("first draft" in reply["reasoning_content"] for reply in replayed)


def _replies_sent_back(server: FakeLLMServer) -> list[dict]:
    return [m for body in server.requests for m in body["messages"] if m["role"] == "assistant"]
