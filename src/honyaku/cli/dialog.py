"""The terminal as a front end for the broker: questions and approvals on the whole screen.

While a dialog is open the job's progress bar is paused (other chapters keep working). A
question shows its suggestions numbered from 1: typing a number picks one, other text is a
free answer where allowed. A batch is one dialog that steps through its questions with
/back and /next. /cancel (or Ctrl-D) cancels; the answers given so far go back to the model.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import sys
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from honyaku.agent.broker import (
    Answer,
    ApprovalReply,
    ApprovalRequest,
    PersonReply,
    PersonRequest,
    Question,
    QuestionReply,
    QuestionRequest,
)

CANCEL, BACK, NEXT = "/cancel", "/back", "/next"
MAX_ARGUMENT_LINES = 30
READ_BYTES = 4096


class TerminalFrontEnd:
    def __init__(
        self,
        console: Console,
        paused: Callable[[], AbstractContextManager[None]],
        keyboard: TerminalInput | None = None,
    ) -> None:
        self.console = console
        self._paused = paused
        self._keyboard = keyboard or TerminalInput(sys.stdin.fileno())

    async def ask(self, request: PersonRequest) -> PersonReply:
        with self._paused(), self.console.screen(hide_cursor=False):
            if isinstance(request, ApprovalRequest):
                return await self._approve(request)
            return await self._questions(request)

    async def _questions(self, request: QuestionRequest) -> QuestionReply:
        answers: dict[int, Answer] = {}
        index, problem = 0, ""
        while index < len(request.questions):
            self._show_question(request, index, answers.get(index), problem)
            line = await self._keyboard.line()
            command = (line or "").strip()
            if line is None or command == CANCEL:
                return QuestionReply(tuple(answers[i] for i in sorted(answers)), cancelled=True)
            problem = ""
            if request.batch and command == BACK:
                index = max(0, index - 1)
            elif index in answers and command in ("", NEXT):
                index += 1
            elif isinstance(answer := _answer(request.questions[index], index, command), Answer):
                answers[index] = answer
                index += 1
            else:
                problem = answer
        return QuestionReply(tuple(answers[i] for i in range(len(request.questions))))

    def _show_question(
        self, request: QuestionRequest, index: int, given: Answer | None, problem: str
    ) -> None:
        question = request.questions[index]
        count = len(request.questions)
        title = f"question {index + 1} of {count}" if request.batch else "a question"
        lines: list[Text | str] = [Text(question.text, style="bold"), ""]
        lines += [
            f"  [cyan]{n}[/]  {escape(s)}" for n, s in enumerate(question.suggested_answers, 1)
        ]
        if given is not None:
            lines += ["", f"[green]answered:[/] {escape(given.answer)}  (Enter keeps it)"]
        if problem:
            lines += ["", f"[red]{escape(problem)}[/]"]
        self.console.clear()
        self.console.print(
            Panel(Group(*lines), title=f"honyaku: {title}", subtitle=escape(request.asker))
        )
        self.console.print(f"[dim]{_hint(question, batch=request.batch)}[/]")
        self.console.print("> ", end="")

    async def _approve(self, request: ApprovalRequest) -> ApprovalReply:
        problem = ""
        while True:
            self._show_approval(request, problem)
            line = await self._keyboard.line()
            choice = (line or "").strip().lower()
            if line is None or choice in ("n", "no", CANCEL):
                return ApprovalReply(allowed=False)
            if choice in ("y", "yes"):
                return ApprovalReply(allowed=True)
            if choice in ("a", "always"):
                return ApprovalReply(allowed=True, always=True)
            problem = "type y, a or n"

    def _show_approval(self, request: ApprovalRequest, problem: str) -> None:
        arguments = json.dumps(dict(request.arguments), ensure_ascii=False, indent=2).splitlines()
        if len(arguments) > MAX_ARGUMENT_LINES:
            arguments = [*arguments[:MAX_ARGUMENT_LINES], "…"]
        lines: list[Text | str] = [
            Text(f"The model wants to call {request.tool}:", style="bold"),
            Text("\n".join(arguments)),
        ]
        if problem:
            lines += ["", f"[red]{problem}[/]"]
        self.console.clear()
        self.console.print(
            Panel(Group(*lines), title="honyaku: allow this call?", subtitle=escape(request.asker))
        )
        self.console.print(f"[dim]y allow · a always allow {request.tool} · n deny[/]")
        self.console.print("> ", end="")


def _answer(question: Question, index: int, command: str) -> Answer | str:
    """The answer a typed line gives, or what is wrong with it."""
    suggestions = question.suggested_answers
    if command.isdigit() and 1 <= int(command) <= len(suggestions):
        picked = int(command) - 1
        return Answer(index, suggestions[picked], picked)
    if command and question.allow_free_text and not command.startswith("/"):
        return Answer(index, command)
    if suggestions:
        return f"type a number from 1 to {len(suggestions)}" + (
            ", or your own answer" if question.allow_free_text else ""
        )
    return "type your answer"


def _hint(question: Question, *, batch: bool) -> str:
    parts = []
    if question.suggested_answers:
        parts.append(f"1-{len(question.suggested_answers)} picks an answer")
    if question.allow_free_text:
        parts.append("or type your own")
    if batch:
        parts.append(f"{BACK} {NEXT}")
    parts.append(f"{CANCEL} or Ctrl-D cancels")
    return " · ".join(parts)


class TerminalInput:
    """Lines typed at the terminal, read without blocking the event loop.

    The descriptor is read directly into our own buffer: pasted lines wait here for the next
    question instead of hiding in a file object's buffer while we wait on the descriptor.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._lines: deque[str] = deque()
        self._partial = ""
        self._ended = False

    async def line(self) -> str | None:
        """The next line without its newline; ``None`` at end of input (Ctrl-D)."""
        while not self._lines:
            if self._ended:
                return None
            await self._readable()
            self._take(os.read(self._fd, READ_BYTES))
        return self._lines.popleft()

    def _take(self, data: bytes) -> None:
        if not data:
            self._ended = True
            data_left = self._partial + self._decoder.decode(b"", final=True)
            if data_left:
                self._lines.append(data_left)
            self._partial = ""
            return
        *complete, self._partial = (self._partial + self._decoder.decode(data)).split("\n")
        self._lines.extend(line.rstrip("\r") for line in complete)

    async def _readable(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(self._fd, _settle, ready)
        try:
            await ready
        finally:
            loop.remove_reader(self._fd)


def _settle(ready: asyncio.Future[None]) -> None:
    if not ready.done():
        ready.set_result(None)
