"""The glossary tools of a job's model: propose entries, look entries up.

A model's proposals are stored in the book's own glossary as ``proposed``: the translator
accepts them (``honyaku glossary accept``), or the book's ``auto_accept_terms`` setting
accepts them at once; accepted entries are listed with the later chunks they occur in. A
proposal that renders an accepted entry (the book's, or a shared glossary's) differently is
refused whole, with the entry it contradicts: the glossary is the translator's word.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from honyaku.agent.registry import Tool, tool
from honyaku.domain.glossary import (
    EntryStatus,
    GlossaryEntry,
    clean_entry,
    contradiction,
    same_rendering,
    search_entries,
)
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
MAX_LOOKUP_RESULTS = 30


class TermProposal(BaseModel):
    model_config = ConfigDict(extra="ignore")

    source: str = Field(description="As the book writes it.")
    target: str = Field(description="Its rendering.")
    note: str = Field(default="", description="Who or what it is, briefly.")
    kind: str = Field(default="", description="character, place, organization or term.")
    reading: str = Field(default="", description="Its reading (kana for Japanese).")


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
    proposals = _cleaned(terms)
    glossary = context.book_glossary()
    known = _by_match_key(glossary.entries())
    conflicts, fresh, unchanged = [], [], []
    for proposal in proposals:
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
    status = (
        EntryStatus.ACCEPTED if context.book.settings.auto_accept_terms else EntryStatus.PROPOSED
    )
    context.records.save_terms(
        context.book.id,
        [replace(p, status=status) for p in fresh],
        origin=f"job {context.job_id} ({context.model})",
        claim=context.claim,
    )
    return {
        "added": [p.source for p in fresh],
        "already_in_glossary": unchanged,
        "status": status.value,
    }


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
EXTRACTION_TOOLS: tuple[Tool, ...] = (
    update_task_status,
    add_glossary_terms,
    get_glossary,
    get_previous_paragraphs,
    get_next_paragraphs,
    get_paragraph_position,
    get_paragraph_info,
)
"""A glossary extraction job reads and proposes: it submits no paragraphs."""


def _cleaned(terms: list[TermProposal]) -> list[GlossaryEntry]:
    cleaned: dict[str, GlossaryEntry] = {}
    for n, term in enumerate(terms):
        try:
            entry = clean_entry(
                GlossaryEntry(term.source, term.target, term.note, term.kind, reading=term.reading)
            )
        except ValueError as exc:
            raise ToolError("INVALID_PARAMETER", f"terms[{n}]: {exc}") from None
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
    }
    fields |= {name: value for name, value in optional.items() if value}
    fields["status"] = entry.status.value
    return fields
