"""The glossary tools of a job's model: propose entries, characters and forms of address,
look entries up.

A model's proposals are stored as ``proposed`` in the book's home glossary (its series', else
its own: ``GlossaryStore.home_glossary``): the translator accepts them (``honyaku glossary
accept``, ``honyaku cast accept``), or the book's ``auto_accept_terms`` setting accepts them
at once; accepted entries are listed with the later chunks they occur in. A proposal that
renders an accepted entry (the book's, or a shared glossary's) differently is refused whole,
with the entry it contradicts: the glossary is the translator's word. So is a form of address
that renders an accepted row's form differently.

A name proposed with an honorific (空太くん) whose base is a character already there (空太) is
that character: it is told so (``variants``), not added (``domain.honorifics``).

An extraction proposes characters with what the cast keeps of them (``add_characters``:
gender, pronoun, speech) and forms of address (``add_forms_of_address``); a translation may
propose forms of address where the book has a cast to name (``jobs.instructions``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from honyaku.agent.registry import Tool, tool
from honyaku.domain.cast import resolve_character
from honyaku.domain.forms_of_address import FormOfAddress, clean_form
from honyaku.domain.glossary import (
    CHARACTER,
    EntryStatus,
    GlossaryEntry,
    clean_entry,
    contradiction,
    match_key,
    same_rendering,
    search_entries,
)
from honyaku.domain.honorifics import split_honorific
from honyaku.errors import ToolError
from honyaku.jobs.tools import (
    ChunkContext,
    get_next_paragraphs,
    get_paragraph_info,
    get_paragraph_position,
    get_previous_paragraphs,
    update_task_status,
)
from honyaku.store.glossary import StoredEntry

MAX_TERMS_PER_CALL = 100
MAX_FORMS_PER_CALL = 50
MAX_LOOKUP_RESULTS = 30


class TermProposal(BaseModel):
    model_config = ConfigDict(extra="ignore")

    source: str = Field(description="As the book writes it.")
    target: str = Field(description="Its rendering.")
    note: str = Field(default="", description="Who or what it is, briefly.")
    kind: str = Field(default="", description="character, place, organization or term.")
    reading: str = Field(default="", description="Its reading (kana for Japanese).")


class CharacterProposal(BaseModel):
    model_config = ConfigDict(extra="ignore")

    source: str = Field(description="The name as the book writes it, without honorific.")
    target: str = Field(description="Its rendering.")
    reading: str = Field(default="", description="Its reading (kana for Japanese).")
    gender: str = Field(default="", description="male, female, or another word.")
    pronoun: str = Field(default="", description="The target language's pronoun for them.")
    speech: str = Field(default="", description="How they speak: register, verbal tics.")
    note: str = Field(default="", description="Who they are, briefly.")


class FormProposal(BaseModel):
    model_config = ConfigDict(extra="ignore")

    speaker: str = Field(description="The character who speaks, as the glossary names them.")
    listener: str = Field(description="The character addressed.")
    source_form: str = Field(description="As the book writes it: 先輩, お兄ちゃん, a name.")
    rendering: str = Field(description="Its rendering.")
    # "register" names a method of pydantic's models: the field takes it as its alias.
    register_: str = Field(
        default="", alias="register", description="The target's register where it has one: 您/你."
    )


@tool()
def add_glossary_terms(
    context: ChunkContext,
    terms: Annotated[
        list[TermProposal],
        Field(json_schema_extra={"minItems": 1, "maxItems": MAX_TERMS_PER_CALL}),
    ],
) -> dict[str, Any]:
    """Propose entries for names and recurring terms the glossary lacks. The translator
    approves them; one that contradicts an approved entry is refused: follow the glossary."""
    entries = [
        GlossaryEntry(term.source, term.target, term.note, term.kind, reading=term.reading)
        for term in terms
    ]
    return _propose(context, _cleaned(entries, "terms"))


@tool()
def add_characters(
    context: ChunkContext,
    characters: Annotated[
        list[CharacterProposal],
        Field(json_schema_extra={"minItems": 1, "maxItems": MAX_TERMS_PER_CALL}),
    ],
) -> dict[str, Any]:
    """Propose the characters the glossary lacks, with what is known of them. The
    translator approves them; one that contradicts an approved entry is refused."""
    entries = [
        GlossaryEntry(
            c.source,
            c.target,
            c.note,
            CHARACTER,
            gender=c.gender,
            reading=c.reading,
            pronoun=c.pronoun,
            speech=c.speech,
        )
        for c in characters
    ]
    return _propose(context, _cleaned(entries, "characters"))


@tool()
def add_forms_of_address(
    context: ChunkContext,
    forms: Annotated[
        list[FormProposal],
        Field(json_schema_extra={"minItems": 1, "maxItems": MAX_FORMS_PER_CALL}),
    ],
) -> dict[str, Any]:
    """Propose how one character addresses another, where the address book lacks it. The
    translator approves them; one that contradicts an approved row is refused."""
    cast = context.book_glossary().cast()
    proposals = []
    unknown: list[str] = []
    for n, proposed in enumerate(forms):
        try:
            form = clean_form(
                FormOfAddress(
                    proposed.speaker,
                    proposed.listener,
                    proposed.source_form,
                    proposed.rendering,
                    proposed.register_,
                )
            )
        except ValueError as exc:
            raise ToolError("INVALID_PARAMETER", f"forms[{n}]: {exc}") from None
        speaker = resolve_character(form.speaker, cast.everyone)
        listener = resolve_character(form.listener, cast.everyone)
        unknown += [
            name
            for name, who in ((form.speaker, speaker), (form.listener, listener))
            if who is None
        ]
        if speaker and listener:
            proposals.append(replace(form, speaker=speaker.source, listener=listener.source))
    if unknown:
        raise ToolError(
            "UNKNOWN_CHARACTER",
            f"no character named {', '.join(dict.fromkeys(unknown))} in the glossary: name the "
            "speaker and the listener as the glossary names them (propose a new character "
            "first). Nothing was saved.",
        )
    standing = {form.row: form for form in cast.forms if form.since is None}
    conflicts, fresh, unchanged = [], {}, []
    for form in proposals:
        existing = standing.get(form.row)
        if existing is not None and same_rendering(form.rendering, existing.rendering):
            unchanged.append(_form_label(form))
        elif existing is not None and existing.status is EntryStatus.ACCEPTED:
            conflicts.append(
                f"{_form_label(form)} → {form.rendering} contradicts the address book: "
                f"{_form_label(existing)} → {existing.rendering}."
            )
        else:
            fresh[form.key] = form
    if conflicts:
        raise ToolError(
            "ADDRESS_CONTRADICTS_BOOK",
            " ".join(conflicts) + " Nothing was saved; use the address book's renderings "
            "(a change of relationship is the translator's to record) and resend the others.",
        )
    status = _proposal_status(context)
    context.records.save_forms(
        context.book.id,
        [replace(form, status=status) for form in fresh.values()],
        origin=f"job {context.job_id} ({context.model})",
        claim=context.claim,
    )
    return {
        "added": [_form_label(form) for form in fresh.values()],
        "already_in_address_book": unchanged,
        "status": status.value,
    }


def _propose(context: ChunkContext, proposals: list[GlossaryEntry]) -> dict[str, Any]:
    """Store ``proposals`` in the book's home glossary, or refuse them all where one
    contradicts an accepted entry."""
    glossary = context.book_glossary()
    known = _by_match_key(glossary.entries())
    conflicts, fresh, unchanged = [], [], []
    variants: dict[str, str] = {}
    for proposal in proposals:
        if (character := _variant_of(proposal, known)) is not None:
            variants[proposal.source] = character.source
            continue
        existing = next((known[k] for k in proposal.match_keys if k in known), None)
        if existing is not None and contradiction(proposal, existing.entry):
            conflicts.append(_conflict(proposal, existing))
        elif existing is not None and same_rendering(proposal.target, existing.entry.target):
            unchanged.append(proposal.source)
        else:
            fresh.append(proposal)
    if conflicts:
        raise ToolError(
            "TERM_CONTRADICTS_GLOSSARY",
            " ".join(c["message"] for c in conflicts) + " Nothing was saved; use the glossary's "
            "renderings and resend the others.",
            conflicts=[{k: v for k, v in c.items() if k != "message"} for c in conflicts],
        )
    status = _proposal_status(context)
    context.records.save_terms(
        context.book.id,
        [replace(p, status=status) for p in fresh],
        origin=f"job {context.job_id} ({context.model})",
        claim=context.claim,
    )
    result: dict[str, Any] = {
        "added": [p.source for p in fresh],
        "already_in_glossary": unchanged,
        "status": status.value,
    }
    if variants:
        result["variants"] = {
            name: f"the same person as {base}, already in the glossary"
            for name, base in variants.items()
        }
    return result


def _proposal_status(context: ChunkContext) -> EntryStatus:
    return EntryStatus.ACCEPTED if context.book.settings.auto_accept_terms else EntryStatus.PROPOSED


def _variant_of(proposal: GlossaryEntry, known: dict[str, StoredEntry]) -> GlossaryEntry | None:
    """The character ``proposal`` is a variant of: a name with an honorific (空太くん) whose
    base is a character's name (空太), that names no entry itself."""
    base, honorific = split_honorific(proposal.source)
    if not honorific or proposal.key in known:
        return None
    found = known.get(match_key(base))
    return found.entry if found is not None and found.entry.is_character else None


def _form_label(form: FormOfAddress) -> str:
    return f"{form.speaker} → {form.listener}: {form.source_form}"


@tool()
def get_glossary(
    context: ChunkContext,
    query: Annotated[
        str,
        Field(min_length=1, description="A name, term, rendering or sentence."),
    ],
) -> dict[str, Any]:
    """Look up the book's glossary entries that match the query or occur in it. Read only."""
    stored = context.book_glossary().entries()
    found = search_entries([s.entry for s in stored], query)
    shown = found[:MAX_LOOKUP_RESULTS]
    result: dict[str, Any] = {"entries": [_entry_fields(e) for e in shown]}
    if more := len(found) - len(shown):
        result["more"] = more
    return result


GLOSSARY_TOOLS: tuple[Tool, ...] = (add_glossary_terms, get_glossary)
"""Offered in translation, polish and proofreading jobs, after the task tools."""
CAST_TOOLS: tuple[Tool, ...] = (add_forms_of_address,)
"""Offered in translation, polish and proofreading jobs over a book with a cast to name."""
EXTRACTION_TOOLS: tuple[Tool, ...] = (
    update_task_status,
    add_glossary_terms,
    add_characters,
    add_forms_of_address,
    get_glossary,
    get_previous_paragraphs,
    get_next_paragraphs,
    get_paragraph_position,
    get_paragraph_info,
)
"""A glossary extraction job reads and proposes: it submits no paragraphs."""


def _cleaned(entries: list[GlossaryEntry], parameter: str) -> list[GlossaryEntry]:
    cleaned: dict[str, GlossaryEntry] = {}
    for n, entry in enumerate(entries):
        try:
            entry = clean_entry(entry)
        except ValueError as exc:
            raise ToolError("INVALID_PARAMETER", f"{parameter}[{n}]: {exc}") from None
        cleaned[entry.key] = entry  # a source proposed twice keeps its last rendering
    return list(cleaned.values())


def _by_match_key(stored: list[StoredEntry]) -> dict[str, StoredEntry]:
    known: dict[str, StoredEntry] = {}
    for entry in stored:
        for key in entry.entry.match_keys:
            known.setdefault(key, entry)
    return known


def _conflict(proposal: GlossaryEntry, existing: StoredEntry) -> dict[str, Any]:
    entry = existing.entry
    return {
        "message": f"{proposal.source} → {proposal.target} contradicts the glossary: "
        f"{entry.source} → {entry.target}.",
        "source": proposal.source,
        "proposed": proposal.target,
        "existing": _entry_fields(entry),
    }


def _entry_fields(entry: GlossaryEntry) -> dict[str, Any]:
    fields: dict[str, Any] = {"source": entry.source, "target": entry.target}
    optional = {
        "note": entry.note,
        "kind": entry.kind,
        "aliases": list(entry.aliases),
        "gender": entry.gender,
        "reading": entry.reading,
        "pronoun": entry.pronoun,
        "speech": entry.speech,
    }
    fields |= {name: value for name, value in optional.items() if value}
    fields["status"] = entry.status.value
    return fields
