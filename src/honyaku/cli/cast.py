"""``honyaku cast …``: a book's characters (their names and the variants the book writes,
gender, pronoun, how they speak) and its address book (how each addresses another)."""

from __future__ import annotations

import re
from typing import Annotated

import typer
from rich.markup import escape

from honyaku.application import CastView, Honyaku
from honyaku.cli.console import out
from honyaku.cli.default_command import runs_by_default
from honyaku.cli.options import BookRef, Home, open_honyaku, run
from honyaku.domain.forms_of_address import FormOfAddress, Since
from honyaku.domain.glossary import EntryStatus
from honyaku.errors import UserError

cast_app = typer.Typer(
    help="A book's cast and how they address each other. Characters are the glossary's "
    "(`honyaku glossary add NAME RENDERING --kind character`); a name with an honorific "
    "(空太先輩, 空太くん, Sora-senpai) is its character wherever it is written. A chunk is given "
    "the forms of address of the pairs it names, and its batches are checked against them. "
    "The cast and the address book of a series are shared by its books.",
    no_args_is_help=True,
    rich_markup_mode=None,
    cls=runs_by_default("list"),
)

Name = Annotated[str, typer.Argument(help="A character's name, as any variant of it.")]
OnlySpeaker = Annotated[str | None, typer.Argument(help="Only this speaker's row…")]
OnlyListener = Annotated[str | None, typer.Argument(help="…to this listener…")]
OnlyForm = Annotated[str | None, typer.Argument(help="…by this form.")]
Speaker = Annotated[str, typer.Argument(help="The character who speaks.")]
Listener = Annotated[str, typer.Argument(help="The character addressed.")]
SourceForm = Annotated[
    str, typer.Argument(help="How the speaker addresses them, as the book writes it: 先輩…")
]
From = Annotated[
    str | None,
    typer.Option(
        "--from",
        help="Only from this point of the book on: a chapter (5) or a chapter and a paragraph "
        "(5:12). A row from a later point takes over from an earlier one.",
        show_default=False,
    ),
]
Series = Annotated[
    str | None,
    typer.Option(
        "--series",
        help="The shared glossary to keep the row in. Default: the book's series, else the "
        "book's own.",
        show_default=False,
    ),
]
_POINT = re.compile(r"^(\d+)(?::(\d+))?$")


@cast_app.command("list")
def list_(
    book: BookRef,
    proposed: Annotated[
        bool,
        typer.Option("--proposed", help="Only characters and rows a model proposed."),
    ] = False,
    home: Home = None,
) -> None:
    """List the characters (with the variants of their names the book writes, most often
    first) and the address book (with the chapters each row was seen in)."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    view = run(honyaku.cast.view(book_id, proposed=proposed))
    if not view.members and not view.rows:
        out.print("No proposals wait." if proposed else "The cast is empty.")
        return
    _print_cast(view)
    _print_address_book(view)


@cast_app.command("set")
def set_(
    book: BookRef,
    name: Name,
    gender: Annotated[str | None, typer.Option(help="male, female, or another word.")] = None,
    pronoun: Annotated[
        str | None, typer.Option(help="The target language's pronoun: 他, 她, TA, il, elle…")
    ] = None,
    speech: Annotated[
        str | None, typer.Option(help="How they speak: register, verbal tics; '' clears.")
    ] = None,
    home: Home = None,
) -> None:
    """Change what the cast keeps of a character: a new version of its glossary entry."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    entry = run(
        honyaku.cast.set_character(book_id, name, gender=gender, pronoun=pronoun, speech=speech)
    )
    about = ", ".join(p for p in (entry.gender, entry.pronoun, entry.speech) if p)
    out.print(
        f"{escape(entry.source)} → {escape(entry.target)}"
        + (f" ({escape(about)})" if about else "")
    )


@cast_app.command()
def address(
    book: BookRef,
    speaker: Speaker,
    listener: Listener,
    source_form: SourceForm,
    rendering: Annotated[str, typer.Argument(help="Its rendering: 学长, 哥哥, 大人…")],
    register: Annotated[
        str, typer.Option(help="The target language's register, where it has one: 您, 你, vous…")
    ] = "",
    note: Annotated[str, typer.Option(help="Why, or when.")] = "",
    since: From = None,
    series: Series = None,
    home: Home = None,
) -> None:
    """Say how a speaker addresses a listener: add a row to the address book, or change the
    one for the same form from the same point."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    form = FormOfAddress(
        speaker, listener, source_form, rendering, register, note, _point(book_id, since)
    )
    made = run(honyaku.cast.add_form(book_id, form, series=series))
    out.print(f"{escape(_label(made))} → {escape(made.rendering)}")


@cast_app.command()
def remove(
    book: BookRef,
    speaker: Speaker,
    listener: Listener,
    source_form: SourceForm,
    since: From = None,
    home: Home = None,
) -> None:
    """Remove a row of the address book; its history keeps it."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    found = run(honyaku.cast.find_forms(book_id, speaker, listener, source_form))
    point = _point(book_id, since)
    chosen = [s for s in found if s.form.since == point]
    if not chosen:
        raise UserError("no such form of address in the book's address book")
    removed = run(honyaku.cast.remove_form(book_id, chosen[0].form.key))
    out.print(f"Removed {escape(_label(removed))} → {escape(removed.rendering)}")


@cast_app.command()
def accept(
    book: BookRef,
    speaker: OnlySpeaker = None,
    listener: OnlyListener = None,
    source_form: OnlyForm = None,
    home: Home = None,
) -> None:
    """Accept what a model proposed: characters and forms of address (one row, or every one).
    Accepted rows are given to later chunks and their batches checked against them."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    keys = _chosen(honyaku, book_id, speaker, listener, source_form)
    characters = [] if keys else _proposed_characters(honyaku, book_id)
    if characters:
        run(honyaku.glossary.accept(book_id, characters))
    accepted = run(honyaku.cast.accept_forms(book_id, keys))
    out.print(f"Accepted {len(characters)} character(s) and {len(accepted)} form(s) of address")


@cast_app.command()
def reject(
    book: BookRef,
    speaker: OnlySpeaker = None,
    listener: OnlyListener = None,
    source_form: OnlyForm = None,
    home: Home = None,
) -> None:
    """Reject forms of address a model proposed (one row, or every one); each stays in its
    history."""
    honyaku = open_honyaku(home)
    book_id = run(honyaku.books.resolve(book))
    keys = _chosen(honyaku, book_id, speaker, listener, source_form)
    rejected = run(honyaku.cast.reject_forms(book_id, keys))
    out.print(f"Rejected {len(rejected)} form(s) of address")


def _chosen(
    honyaku: Honyaku,
    book_id: str,
    speaker: str | None,
    listener: str | None,
    source_form: str | None,
) -> list[str]:
    if speaker is None:
        return []
    if listener is None or source_form is None:
        raise UserError("name a row by its speaker, its listener and its form, or none of them")
    found = run(honyaku.cast.find_forms(book_id, speaker, listener, source_form))
    waiting = [s.form.key for s in found if s.form.status is EntryStatus.PROPOSED]
    if not waiting:
        raise UserError(
            "no proposed form of address by which {speaker} addresses {listener} as {form}",
            speaker=speaker,
            listener=listener,
            form=source_form,
        )
    return waiting


def _proposed_characters(honyaku: Honyaku, book_id: str) -> list[str]:
    waiting = run(honyaku.glossary.entries(book_id, status=EntryStatus.PROPOSED, characters=True))
    return [stored.entry.source for stored in waiting]


def _point(book_id: str, since: str | None) -> Since | None:
    if since is None:
        return None
    found = _POINT.match(since.strip())
    if found is None or int(found[1]) < 1 or (found[2] is not None and int(found[2]) < 1):
        raise UserError(
            "--from {since}: a chapter (5) or a chapter and a paragraph (5:12), from 1",
            since=since,
        )
    return Since(book_id, int(found[1]), int(found[2] or 1) - 1)


def _label(form: FormOfAddress) -> str:
    since = f" (from {form.since.label()})" if form.since else ""
    return f"{form.speaker} → {form.listener}: {form.source_form}{since}"


def _print_cast(view: CastView) -> None:
    """A character a line, the variants of its names the book writes under it."""
    if not view.members:
        return
    out.print("[bold]Cast[/]")
    for member in view.members:
        entry = member.entry
        about = [entry.gender, member.pronoun, f"“{entry.speech}”" if entry.speech else ""]
        details = " · ".join(escape(part) for part in about if part)
        out.print(
            f"  {escape(entry.source)} → {escape(entry.target)}"
            + (f" · {details}" if details else "")
            + f" · {entry.status.value}"
        )
        if member.variants:
            written = ", ".join(f"{escape(form)} ×{count}" for form, count in member.variants)
            out.print(f"      written {written}")


def _print_address_book(view: CastView) -> None:
    """A row a line: who addresses whom by which form, its rendering, and where seen."""
    if not view.rows:
        return
    out.print("[bold]Address book[/]")
    for row in view.rows:
        form = row.form
        register = f" ({escape(form.register)})" if form.register else ""
        seen = ", ".join(str(n) for n in row.chapters)
        out.print(
            f"  {escape(_label(form))} → {escape(form.rendering)}{register}"
            f" · {form.status.value}" + (f" · seen in chapters {seen}" if seen else "")
        )
