"""``honyaku chat``: the assistant in the terminal, the same one the workbench's panel shows.

Lines typed are messages; ``/new`` starts a new session, ``/sessions`` lists this book's,
``/open ID`` goes back to one, ``/delete ID`` deletes one, ``/quit`` (or Ctrl-D) leaves.
Ctrl-C stops the reply being written and keeps the chat open. Jobs started from the chat
run while it stays open.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Annotated

import typer
from rich.markup import escape

from honyaku.agent.broker import Broker
from honyaku.application import Chats, ChatSession, Honyaku, ModelChoice, ModelOptions
from honyaku.assistant import (
    ChatDone,
    ChatEvent,
    ChatFailed,
    ChatNotice,
    ChatRetry,
    ChatText,
    QuestionWaiting,
    ToolOutcome,
)
from honyaku.cli.console import out
from honyaku.cli.dialog import TerminalFrontEnd, TerminalInput
from honyaku.cli.models import chosen_model, with_model_options
from honyaku.cli.options import Home, open_honyaku, run
from honyaku.errors import NotFoundError

ReadLine = Callable[[], Awaitable[str | None]]
HELP = (
    "Type a message. /new starts over, /sessions lists chats, /open ID reopens one, "
    "/delete ID deletes one, /quit."
)


@with_model_options
def chat(
    options: ModelOptions,
    book: Annotated[
        str | None, typer.Argument(help="The book to talk about (id or title); none: all.")
    ] = None,
    home: Home = None,
) -> None:
    """Chat with the assistant: it reads the book, keeps your plan and starts jobs."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book)) if book else None
    choice = chosen_model(honyaku, options, book=book_id)
    choice.check()
    out.print(f"Model: {escape(choice.describe())}\n[dim]{HELP}[/]")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_converse(honyaku, choice, book_id))


async def _converse(honyaku: Honyaku, choice: ModelChoice, book_id: str | None) -> None:
    chats = honyaku.chats
    read_line = _reader()
    try:
        with _person(honyaku.broker):
            session: ChatSession | None = None
            while (line := await read_line()) is not None:
                text = line.strip()
                if text == "/quit":
                    break
                if text.startswith("/"):
                    try:
                        session = await _command(chats, text, book_id, session)
                    except NotFoundError as exc:
                        out.print(f"[red]{escape(str(exc))}[/]")
                elif text:
                    session = session or await chats.open(None, book_id, text)
                    await _reply(chats.reply(session, text, choice))
    finally:
        await honyaku.aclose()


async def _command(
    chats: Chats, text: str, book_id: str | None, session: ChatSession | None
) -> ChatSession | None:
    command, _, argument = text.partition(" ")
    if command == "/new":
        out.print("[dim]A new chat.[/]")
        return None
    if command == "/sessions":
        for found in await chats.sessions(book_id):
            mark = "*" if session and found.id == session.id else " "
            out.print(f"{mark} {found.id}  {escape(found.title)}")
        return session
    if command == "/open" and argument:
        opened = await chats.get(argument.strip())
        out.print(f"[dim]Back in 「{escape(opened.title)}」.[/]")
        return opened
    if command == "/delete" and argument:
        doomed = await chats.get(argument.strip())
        await chats.delete(doomed.id)
        out.print(f"[dim]Deleted 「{escape(doomed.title)}」.[/]")
        return None if session and session.id == doomed.id else session
    out.print(f"[dim]{HELP}[/]")
    return session


async def _reply(events: AsyncIterator[ChatEvent]) -> None:
    """Print the reply as it streams; Ctrl-C stops it."""
    task = asyncio.ensure_future(_show(events))
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        out.print("\n[yellow]stopped[/]")
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


async def _show(events: AsyncIterator[ChatEvent]) -> None:
    async for event in events:
        _print(event)


def _print(event: ChatEvent) -> None:
    match event:
        case ChatText(content=content):
            out.print(escape(content), end="")
        case ToolOutcome(name=name, success=success, message=said):
            mark = "[green]✓[/]" if success else "[red]✗[/]"
            out.print(f"\n  {mark} {name}: {escape(said or '')}")
        case QuestionWaiting():
            out.print("\n  [dim]a question for you…[/]")
        case ChatNotice(text=text):
            out.print(f"\n[yellow]{escape(text)}[/]")
        case ChatRetry(attempt=attempt, reason=reason):
            out.print(f"\n[dim]retrying ({attempt}): {escape(reason)}[/]")
        case ChatFailed(message=message):
            out.print(f"\n[red]{escape(message)}[/]")
        case ChatDone():
            out.print()


def _reader() -> ReadLine:
    """Lines from the terminal, read without blocking the jobs; from a pipe, line by line."""
    if sys.stdin.isatty():
        keyboard = TerminalInput(sys.stdin.fileno())

        async def typed() -> str | None:
            out.print("[bold]>[/] ", end="")
            return await keyboard.line()

        return typed

    async def piped() -> str | None:
        line = await asyncio.to_thread(sys.stdin.readline)
        return line or None

    return piped


@contextlib.contextmanager
def _person(broker: Broker) -> Iterator[None]:
    """Questions and approvals on this terminal, if there is one."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        yield
        return
    with broker.attached(TerminalFrontEnd(out, contextlib.nullcontext)):
        yield
