"""The real terminal dialog, driven through a pseudo-terminal as a person would use it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

from honyaku.testing import FakeCall, FakeLLMServer

from .conftest import RASHOMON, imported

ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-B]|[=>])")
QUESTION = FakeCall(
    "ask_user",
    {"question": "「下人」はどう訳しますか？", "suggested_answers": ["仆人", "下人"]},
)
BATCH = FakeCall(
    "ask_user_batch",
    {
        "questions": [
            {"question": "一人称は？", "suggested_answers": ["我", "俺"]},
            {"question": "敬語の扱いは？"},
            {
                "question": "地名は？",
                "suggested_answers": ["音訳", "意訳"],
                "allow_free_text": False,
            },
        ]
    },
)


class Terminal:
    """``honyaku`` running on a pseudo-terminal: read its screen, type into it."""

    def __init__(self, *args: str) -> None:
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "honyaku", *args],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            env=env,
            close_fds=True,
        )
        os.close(follower)
        self.leader = leader
        self.screen = ""

    def wait_for(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            assert time.monotonic() < deadline, (
                f"{text!r} never appeared; screen:\n{self.screen[-2000:]}"
            )
            self._read(0.1)

    def type(self, line: str) -> None:
        self.screen = ""
        os.write(self.leader, f"{line}\r".encode())

    def finish(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.1)
        self._read(0.1)
        os.close(self.leader)
        return self.process.wait(timeout=5)

    def _read(self, wait_s: float) -> None:
        ready, _, _ = select.select([self.leader], [], [], wait_s)
        if ready:
            with contextlib.suppress(OSError):
                self.screen += ANSI.sub("", os.read(self.leader, 65536).decode(errors="replace"))


def answers_received(server: FakeLLMServer, name: str) -> list[dict]:
    names = {
        c["id"]: c["function"]["name"]
        for b in server.requests
        for m in b["messages"]
        for c in m.get("tool_calls") or ()
    }
    return [
        json.loads(m["content"])
        for b in server.requests[-1:]
        for m in b["messages"]
        if m["role"] == "tool" and names.get(m["tool_call_id"]) == name
    ]


def translate(server: FakeLLMServer, book: str) -> Terminal:
    return Terminal(
        "translate",
        book,
        "--model",
        "fake-translator",
        "--base-url",
        server.url,
        "--protocol",
        "native",
        "--chapters",
        "1",
        # One chunk: the fake model asks its questions in every chunk.
        "--chunk-chars",
        "6000",
    )


def test_the_person_picks_suggestion_2_and_the_model_gets_answer_and_selected_index_1():
    book = imported(RASHOMON)
    with FakeLLMServer() as server:
        server.translator.asks = (QUESTION,)
        terminal = translate(server, book)

        terminal.wait_for("「下人」はどう訳しますか？")
        assert "1  仆人" in terminal.screen
        assert "2  下人" in terminal.screen
        terminal.type("2")
        assert terminal.finish() == 0

        [received] = answers_received(server, "ask_user")
    assert received["answer"] == "下人"
    assert received["selected_index"] == 1


def test_a_batch_steps_through_its_questions_with_back_and_next():
    book = imported(RASHOMON)
    with FakeLLMServer() as server:
        server.translator.asks = (BATCH,)
        terminal = translate(server, book)

        terminal.wait_for("question 1 of 3")
        terminal.type("2")
        terminal.wait_for("question 2 of 3")
        terminal.type("丁寧語だけ残す")
        terminal.wait_for("question 3 of 3")
        terminal.type("/back")
        terminal.wait_for("answered: 丁寧語だけ残す")
        terminal.type("/next")
        terminal.wait_for("question 3 of 3")
        terminal.type("自分で考えた")
        terminal.wait_for("type a number from 1 to 2")
        terminal.type("1")
        assert terminal.finish() == 0

        [received] = answers_received(server, "ask_user_batch")
    assert received["answers"] == [
        {"question_index": 0, "answer": "俺", "selected_index": 1},
        {"question_index": 1, "answer": "丁寧語だけ残す"},
        {"question_index": 2, "answer": "音訳", "selected_index": 0},
    ]


def test_cancel_gives_the_model_the_answers_so_far():
    book = imported(RASHOMON)
    with FakeLLMServer() as server:
        server.translator.asks = (BATCH,)
        terminal = translate(server, book)

        terminal.wait_for("question 1 of 3")
        terminal.type("1")
        terminal.wait_for("question 2 of 3")
        terminal.type("/cancel")
        assert terminal.finish() == 0

        [received] = answers_received(server, "ask_user_batch")
    assert received["cancelled"] is True
    assert received["answers"] == [{"question_index": 0, "answer": "我", "selected_index": 0}]


def test_answers_pasted_all_at_once_answer_the_questions_in_turn():
    book = imported(RASHOMON)
    with FakeLLMServer() as server:
        server.translator.asks = (BATCH,)
        terminal = translate(server, book)

        terminal.wait_for("question 1 of 3")
        terminal.type("1\r丁寧語だけ残す\r2")
        assert terminal.finish() == 0

        [received] = answers_received(server, "ask_user_batch")
    assert [a["answer"] for a in received["answers"]] == ["我", "丁寧語だけ残す", "意訳"]
