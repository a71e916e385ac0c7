"""Glossary files in and out: CSV and TSV with a header, and GalTransl's dictionary lines.

With a header row (a first row naming ``source`` and ``target``), columns are read by name:
``source``, ``target``, ``note``, ``kind``, ``aliases`` (separated by ``|``), ``gender``,
``reading``, ``pronoun`` and ``speech`` (a character's); others are ignored. Without one,
columns are ``source``, ``target``, ``note`` in that order, which is GalTransl's dictionary
format: ``原文<TAB>译文<TAB>解释``, one entry a line, blank lines and ``//`` or ``#``
comments skipped, four spaces accepted for a tab.

Written files have the header and every field: ``.csv`` as CSV, ``.tsv`` as TSV; ``.txt`` is
GalTransl's three columns without a header. Files are read in any encoding ``decode_text``
recognizes; a bad line raises ``BookFormatError`` naming it.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path

from honyaku.domain.glossary import GlossaryEntry, clean_entry
from honyaku.errors import BookFormatError
from honyaku.formats.encoding import decode_text

COLUMNS = (
    "source", "target", "note", "kind", "aliases", "gender", "reading", "pronoun", "speech",
)  # fmt: skip
ALIAS_SEPARATOR = "|"
_GALTRANSL_SPACES = re.compile(r" {4,}")
_COMMENTS = ("//", "#", "\\\\")


class GlossaryFormat(StrEnum):
    CSV = "csv"
    TSV = "tsv"
    GALTRANSL = "txt"
    """GalTransl's dictionary: source, target and note, tab-separated, no header."""


def glossary_format(path: Path) -> GlossaryFormat:
    suffix = path.suffix.lower().lstrip(".")
    try:
        return GlossaryFormat(suffix)
    except ValueError:
        raise BookFormatError(
            f"{path.name}: a glossary file is .csv, .tsv or .txt (GalTransl's dictionary)"
        ) from None


def read_glossary(path: Path) -> list[GlossaryEntry]:
    """The entries of a glossary file, in file order."""
    fmt = glossary_format(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BookFormatError(f"cannot read {path}: {exc.strerror}") from exc
    text = decode_text(raw, path.name)
    if fmt is GlossaryFormat.CSV:
        rows = list(csv.reader(io.StringIO(text)))
    else:
        rows = [_tab_row(line) for line in text.splitlines()]
    return _entries(rows, path.name)


def write_glossary(entries: Iterable[GlossaryEntry], path: Path) -> None:
    fmt = glossary_format(path)
    buffer = io.StringIO()
    if fmt is GlossaryFormat.GALTRANSL:
        for entry in entries:
            buffer.write("\t".join(_one_line(v) for v in (entry.source, entry.target, entry.note)))
            buffer.write("\n")
    else:
        delimiter = "," if fmt is GlossaryFormat.CSV else "\t"
        writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(_row(entry) for entry in entries)
    try:
        path.write_text(buffer.getvalue(), encoding="utf-8")
    except OSError as exc:
        raise BookFormatError(f"cannot write {path}: {exc.strerror}") from exc


def _tab_row(line: str) -> list[str]:
    if not line.strip() or line.lstrip().startswith(_COMMENTS):
        return []
    separated = line if "\t" in line else _GALTRANSL_SPACES.sub("\t", line)
    return separated.split("\t")


def _entries(rows: list[list[str]], name: str) -> list[GlossaryEntry]:
    rows_numbered = [(n, row) for n, row in enumerate(rows, start=1) if any(c.strip() for c in row)]
    if not rows_numbered:
        return []
    columns = list(COLUMNS[:3])
    first = [cell.strip().lower() for cell in rows_numbered[0][1]]
    if "source" in first and "target" in first:
        columns = first
        rows_numbered = rows_numbered[1:]
    entries = []
    for number, row in rows_numbered:
        fields = {column: cell.strip() for column, cell in zip(columns, row, strict=False)}
        aliases = tuple(a for a in fields.get("aliases", "").split(ALIAS_SEPARATOR) if a.strip())
        try:
            entries.append(
                clean_entry(
                    GlossaryEntry(
                        fields.get("source", ""),
                        fields.get("target", ""),
                        fields.get("note", ""),
                        fields.get("kind", ""),
                        aliases,
                        fields.get("gender", ""),
                        fields.get("reading", ""),
                        pronoun=fields.get("pronoun", ""),
                        speech=fields.get("speech", ""),
                    )
                )
            )
        except ValueError as exc:
            raise BookFormatError(f"{name}: line {number}: {exc}") from None
    return entries


def _row(entry: GlossaryEntry) -> list[str]:
    return [
        entry.source,
        entry.target,
        entry.note,
        entry.kind,
        ALIAS_SEPARATOR.join(entry.aliases),
        entry.gender,
        entry.reading,
        entry.pronoun,
        entry.speech,
    ]


def _one_line(value: str) -> str:
    return " ".join(value.replace("\t", " ").split())
