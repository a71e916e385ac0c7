"""``honyaku questions``: questions of queued jobs that wait for you, and answering them."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape

from honyaku.cli.console import out
from honyaku.cli.options import Home, open_honyaku, run

questions_app = typer.Typer(
    help="Questions the models of queued jobs asked you. Each waits, its chunk parked, until "
    "you answer here or in the workbench, or the book's question_wait_hours pass.",
    invoke_without_command=True,
    rich_markup_mode=None,
)


@questions_app.callback()
def questions(
    context: typer.Context,
    book: Annotated[str | None, typer.Option("--book", help="Only this book's.")] = None,
    home: Home = None,
) -> None:
    """List the questions waiting for an answer, oldest first."""
    if context.invoked_subcommand is not None:
        return
    honyaku = open_honyaku(home)

    async def listed() -> list[Any]:
        return await honyaku.questions.waiting(await honyaku.books.resolve(book) if book else None)

    waiting = run(listed())
    if not waiting:
        out.print("No question waits for you.")
        return
    for question in waiting:
        out.print(f"[bold]{question.id}[/]  {escape(question.asker)} (job {question.job_id})")
        for n, asked in enumerate(question.request["questions"], start=1):
            out.print(f"    {n}. {escape(asked['question'])}")
            for pick, suggestion in enumerate(asked["suggested_answers"], start=1):
                out.print(f"       [{pick}] {escape(suggestion)}")
    out.print("Answer with [bold]honyaku questions answer ID ANSWER…[/] (one per question).")


@questions_app.command()
def answer(
    question: Annotated[int, typer.Argument(help="The question's id (honyaku questions).")],
    answers: Annotated[
        list[str] | None,
        typer.Argument(
            help="One answer per question, in order: your own words, or #N for its N-th suggestion."
        ),
    ] = None,
    cancel: Annotated[
        bool, typer.Option("--cancel", help="Answer nothing: the model decides alone.")
    ] = False,
    home: Home = None,
) -> None:
    """Answer a waiting question: its job goes on, on whichever worker takes it next."""
    given = [_answer(n, text) for n, text in enumerate(answers or [])]
    reply = {"cancelled": True, "answers": given} if cancel else {"answers": given}
    run(open_honyaku(home).questions.answer(question, reply))
    out.print(f"Answered question {question}: its chunk goes on.")


def _answer(index: int, text: str) -> dict[str, Any]:
    if text.startswith("#") and text[1:].isdigit():
        return {"question_index": index, "selected_index": int(text[1:]) - 1}
    return {"question_index": index, "answer": text}
