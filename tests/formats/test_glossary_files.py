"""Glossary files: GalTransl's dictionary lines, CSV and TSV with a header, written and read."""

from __future__ import annotations

import pytest

from honyaku.domain.glossary import GlossaryEntry
from honyaku.errors import BookFormatError
from honyaku.formats.glossary_file import read_glossary, write_glossary

GALTRANSL = """\
// GalTransl GPT dictionary
アリス\t爱丽丝\t主人公，女
魔導書    魔导书

\\\\ another comment
ギルド\t公会
"""


def test_galtransl_lines_are_read_with_tabs_or_four_spaces_and_comments_skipped(tmp_path):
    path = tmp_path / "gpt_dict.txt"
    path.write_text(GALTRANSL, encoding="utf-8")

    assert read_glossary(path) == [
        GlossaryEntry("アリス", "爱丽丝", "主人公，女"),
        GlossaryEntry("魔導書", "魔导书"),
        GlossaryEntry("ギルド", "公会"),
    ]


@pytest.mark.parametrize("suffix", ["csv", "tsv", "txt"])
def test_written_files_read_back_the_same(tmp_path, suffix):
    entries = [
        GlossaryEntry(
            "アリス", "爱丽丝", "主人公, 「姫」", "character", ("アリスちゃん",), "female"
        ),
        GlossaryEntry("魔導書", "魔导书", reading="まどうしょ"),
    ]
    path = tmp_path / f"glossary.{suffix}"

    write_glossary(entries, path)

    read = read_glossary(path)
    if suffix == "txt":  # GalTransl's three columns
        assert [(e.source, e.target, e.note) for e in read] == [
            (e.source, e.target, e.note) for e in entries
        ]
    else:
        assert read == entries


def test_a_csv_with_a_header_is_read_by_column_name(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("Target,Source,Kind\n爱丽丝,アリス,character\n", encoding="utf-8")

    assert read_glossary(path) == [GlossaryEntry("アリス", "爱丽丝", kind="character")]


def test_a_line_without_a_target_is_refused_by_its_number(tmp_path):
    path = tmp_path / "dict.tsv"
    path.write_text("アリス\t爱丽丝\n魔導書\n", encoding="utf-8")

    with pytest.raises(BookFormatError, match=r"dict.tsv: line 2: 魔導書: the target is blank"):
        read_glossary(path)


def test_an_unknown_extension_is_refused(tmp_path):
    with pytest.raises(BookFormatError, match=r"\.csv, \.tsv or \.txt"):
        read_glossary(tmp_path / "dict.json")
