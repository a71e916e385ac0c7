"""The quality checks run on an accepted batch, and how their warnings reach the model.

The checks (``domain.quality``) never refuse a batch. Their warnings are stored with the new
versions (a paragraph stays flagged until a later version passes) and go back in the tool
result, so the model fixes them during review.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from honyaku.domain.book import Book, Paragraph
from honyaku.domain.forms_of_address import FormOfAddress
from honyaku.domain.glossary import GlossaryMatcher
from honyaku.domain.quality import QualityWarning, check_translation

MAX_WARNINGS_IN_RESULT = 30
WARNINGS_HINT = (
    "The batch is saved, but these paragraphs look wrong. In review, move back to working and "
    "resubmit them fixed; a warning that is no mistake may stay."
)


def batch_warnings(
    book: Book,
    assigned: Mapping[str, Paragraph],
    texts: Mapping[str, str],
    glossary: GlossaryMatcher,
    forms: Sequence[FormOfAddress] = (),
) -> dict[str, list[QualityWarning]]:
    """Each paragraph's warnings, by id; paragraphs without any are left out. ``forms``: the
    accepted forms of address the chunk was given."""
    found: dict[str, list[QualityWarning]] = {}
    for pid, text in texts.items():
        source = assigned[pid].text
        if warnings := check_translation(
            source,
            text,
            source_lang=book.source_lang,
            target_lang=book.target_lang,
            terms=glossary.find([source]),
            forms=forms,
            paragraph_id=pid,
        ):
            found[pid] = warnings
    return found


def warnings_result(warnings: Mapping[str, list[QualityWarning]]) -> dict[str, Any]:
    """What a batch's result says about its warnings: nothing when there are none."""
    every = [w for found in warnings.values() for w in found]
    if not every:
        return {}
    shown = every[:MAX_WARNINGS_IN_RESULT]
    result: dict[str, Any] = {
        "warnings": [
            {"paragraph_id": w.paragraph_id, "code": w.code, "message": w.message} for w in shown
        ],
        "warnings_hint": WARNINGS_HINT,
    }
    if more := len(every) - len(shown):
        result["more_warnings"] = more
    return result
