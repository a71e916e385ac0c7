"""Aozora Bunko notation, line by line, and a whole small Aozora file."""

from __future__ import annotations

from pathlib import Path

import pytest

from honyaku.formats import read_book
from honyaku.formats.aozora import clean_line, find_heading, gaiji_character

SMALL_AOZORA_FILE = """\
走れメロス
太宰治

-------------------------------------------------------
【テキスト中に現れる記号について】

《》：ルビ
（例）邪智暴虐《じゃちぼうぎゃく》
-------------------------------------------------------

［＃３字下げ］一［＃「一」は中見出し］

　メロスは激怒した。必ず、かの邪智暴虐《じゃちぼうぎゃく》の王を除かなければならぬと決意した。
［＃ここから２字下げ］
　｜三十路《みそじ》の男である。
［＃ここで字下げ終わり］

［＃中見出し］二［＃中見出し終わり］
　※［＃「目＋匡」、第3水準1-88-81］を閉じた。



底本：「太宰治全集3」ちくま文庫、筑摩書房
入力：金川一之
"""


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("かの邪智暴虐《じゃちぼうぎゃく》の王", "かの邪智暴虐の王"),
        ("三｜方《かた》の山", "三方の山"),
        ("［＃５字下げ］天地のはじめ", "天地のはじめ"),
        ("一羽も※［＃「廴＋囘」、第4水準2-12-11］らない", "一羽も\U0002231eらない"),
        ("※［＃「匈／（胃－田）」、U+80F7、213-14］の中", "\u80f7の中"),
        ("謎の※［＃「字」、ページ数-行数］字", "謎の字"),
    ],
)
def test_clean_line_keeps_base_text_and_drops_notes(line: str, expected: str) -> None:
    assert clean_line(line) == expected


def test_gaiji_note_with_jis_plane_one_code_maps_to_its_character() -> None:
    assert gaiji_character("「目＋匡」、第3水準1-88-81") == "眶"


def test_gaiji_note_without_a_code_maps_to_nothing() -> None:
    assert gaiji_character("「口＋世」、ページ数-行数") is None


def test_heading_note_gives_title_level_and_the_rest_of_the_line() -> None:
    heading = find_heading(
        "［＃１字下げ］古事記　上の卷［＃「古事記　上の卷」は同行大見出し］　序文がついています"
    )

    assert heading is not None
    assert (heading.title, heading.level, heading.rest) == (
        "古事記　上の卷",
        1,
        "序文がついています",
    )


def test_heading_span_with_ruby_gives_a_clean_title() -> None:
    heading = find_heading("［＃中見出し］綏靖《すいせい》天皇［＃中見出し終わり］")

    assert heading is not None
    assert (heading.title, heading.level, heading.rest) == ("綏靖天皇", 2, "")


def test_given_a_small_aozora_file_when_read_then_header_legend_and_colophon_are_handled(
    tmp_path: Path,
) -> None:
    path = tmp_path / "merosu.txt"
    path.write_bytes(SMALL_AOZORA_FILE.replace("\n", "\r\n").encode("cp932"))

    book = read_book(path)

    assert (book.title, book.author, book.language) == ("走れメロス", "太宰治", "ja")
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        (
            "一",
            (
                "\u3000メロスは激怒した。必ず、かの邪智暴虐の王を除かなければならぬと決意した。",
                "\u3000三十路の男である。",
            ),
        ),
        ("二", ("\u3000眶を閉じた。",)),
    ]
