"""Plain text import: Aozora Bunko's kojiki, encodings, line endings, headings, titles."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from honyaku.domain.book import BookDraft
from honyaku.errors import UserError
from honyaku.formats import read_book

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KOJIKI_SJIS = BOOKS / "kojiki" / "03gendaigoyaku_kojiki.sjis.txt"
KOJIKI_UTF8 = BOOKS / "kojiki" / "03gendaigoyaku_kojiki.utf8.txt"

JAPANESE = (
    "第一章　始まり\n\n　吾輩は猫である。名前はまだ無い。\n\n"
    "第二章　終わり\n　どこで生れたかとんと見当がつかぬ。\n"
)
CHINESE_SIMPLIFIED = (
    "第一章 开始\n他们说这是一个很好的时代，我们在这里生活了很多年。\n"
    "第二章 结束\n我不知道他为什么要走。\n"
)
CHINESE_TRADITIONAL = (
    "第一章 開始\n他們說這是一個很好的時代，我們在這裡生活了很多年。\n"
    "第二章 結束\n我不知道他為什麼要走。\n"
)


def _paragraphs(book: BookDraft) -> list[str]:
    return [p for chapter in book.chapters for p in chapter.paragraphs]


def test_kojiki_shift_jis_crlf_imports_22_chapters() -> None:
    book = read_book(KOJIKI_SJIS)

    assert len(book.chapters) == 22
    assert book.title == "古事記"
    assert book.author == "稗田の阿禮、太の安萬侶"
    assert book.language == "ja"


def test_kojiki_volume_headings_lead_the_first_chapter_of_each_volume() -> None:
    titles = [chapter.title for chapter in read_book(KOJIKI_SJIS).chapters]

    # 上の卷 (a 同行大見出し) and 序文 become one chapter; 中/下の卷 lead their first chapter.
    assert titles[0] == "古事記\u3000上の卷\u3000序文"
    assert titles[1] == "一、イザナギの命とイザナミの命"
    assert titles[8] == "古事記\u3000中の卷\u3000一、神武天皇"
    assert titles[15] == "古事記\u3000下の卷\u3000一、仁徳天皇"
    assert titles[-1] == "七、武烈天皇以後九代"


def test_kojiki_text_under_the_volume_heading_opens_the_preface_chapter() -> None:
    first = read_book(KOJIKI_SJIS).chapters[0]

    assert first.paragraphs[0] == "序文がついています"
    assert "\u3000わたくし安萬侶が申しあげます。" in first.paragraphs


def test_kojiki_paragraphs_keep_no_aozora_notation() -> None:
    text = "\n".join(_paragraphs(read_book(KOJIKI_SJIS)))

    for mark in ("《", "》", "｜", "［＃", "※"):
        assert mark not in text


def test_kojiki_gaiji_notes_become_the_characters_they_name() -> None:
    text = "".join(_paragraphs(read_book(KOJIKI_SJIS)))

    assert "かき\U0002231eされ" in text  # 「廴＋囘」、第4水準2-12-11
    assert text.count("\u80f7") == 5  # 「匈／（胃－田）」、U+80F7
    assert text.count("\u924f") == 2  # 「金＋且」、第3水準1-93-12


def test_kojiki_legend_and_colophon_are_not_story_text() -> None:
    text = "".join(_paragraphs(read_book(KOJIKI_SJIS)))

    assert "テキスト中に現れる記号について" not in text
    assert "底本" not in text
    assert "入力：川山隆" not in text


def test_kojiki_small_headings_stay_as_paragraphs_inside_chapters() -> None:
    chapter = read_book(KOJIKI_SJIS).chapters[1]

    assert chapter.paragraphs[0] == "天地のはじめ"
    assert "島々の生成" in chapter.paragraphs


def test_kojiki_shift_jis_and_utf8_copies_read_the_same() -> None:
    assert read_book(KOJIKI_SJIS) == read_book(KOJIKI_UTF8)


def test_kojiki_blank_lines_are_kept_as_empty_paragraphs() -> None:
    paragraphs = _paragraphs(read_book(KOJIKI_SJIS))

    assert paragraphs.count("") == 310
    assert all("\n" not in p and "\r" not in p for p in paragraphs)


JAPANESE_CHAPTERS = [
    ("第一章\u3000始まり", ("\u3000吾輩は猫である。名前はまだ無い。",)),
    ("第二章\u3000終わり", ("\u3000どこで生れたかとんと見当がつかぬ。",)),
]


@pytest.mark.parametrize(
    ("codec", "text", "expected"),
    [
        ("utf-8-sig", JAPANESE, JAPANESE_CHAPTERS),
        ("utf-16", JAPANESE, JAPANESE_CHAPTERS),
        ("cp932", JAPANESE, JAPANESE_CHAPTERS),
        ("euc_jp", JAPANESE, JAPANESE_CHAPTERS),
        (
            "gb18030",
            CHINESE_SIMPLIFIED,
            [
                ("第一章 开始", ("他们说这是一个很好的时代，我们在这里生活了很多年。",)),
                ("第二章 结束", ("我不知道他为什么要走。",)),
            ],
        ),
        (
            "big5",
            CHINESE_TRADITIONAL,
            [
                ("第一章 開始", ("他們說這是一個很好的時代，我們在這裡生活了很多年。",)),
                ("第二章 結束", ("我不知道他為什麼要走。",)),
            ],
        ),
    ],
    ids=["utf-8-bom", "utf-16-bom", "shift-jis", "euc-jp", "gb18030", "big5"],
)
def test_given_a_legacy_or_bom_encoding_when_read_then_text_is_decoded(
    tmp_path: Path, codec: str, text: str, expected: list[tuple[str, tuple[str, ...]]]
) -> None:
    path = tmp_path / "book.txt"
    path.write_bytes(text.encode(codec))

    book = read_book(path)

    assert [(c.title, c.paragraphs) for c in book.chapters] == expected


def test_given_shift_jis_with_cp932_only_characters_when_read_then_they_decode(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cp932.txt"
    path.write_bytes("①番目の髙橋さん～ですね。ひらがなも入れておきます。\n".encode("cp932"))

    assert read_book(path).chapters[0].paragraphs == (
        "①番目の髙橋さん～ですね。ひらがなも入れておきます。",
    )


@pytest.mark.parametrize("ending", ["\r\n", "\r", "\n"])
def test_given_any_line_ending_when_read_then_one_line_is_one_paragraph(
    tmp_path: Path, ending: str
) -> None:
    path = tmp_path / "lines.txt"
    path.write_bytes(ending.join(["第1話", "一行目", "", "三行目", "第2話", "終わり"]).encode())

    book = read_book(path)

    assert [c.paragraphs for c in book.chapters] == [("一行目", "", "三行目"), ("終わり",)]


def test_given_japanese_heading_variants_when_read_then_each_starts_a_chapter(
    tmp_path: Path,
) -> None:
    headings = [
        "プロローグ",
        "第一章　出会い",
        "第２話 雨",
        "第10節",
        "第三幕「夜」",
        "間章",
        "終章",
        "エピローグ",
    ]
    path = tmp_path / "novel.txt"
    path.write_text("\n".join(f"{h}\n本文です。" for h in headings), encoding="utf-8")

    assert [c.title for c in read_book(path).chapters] == headings


def test_given_english_headings_when_read_then_each_starts_a_chapter(tmp_path: Path) -> None:
    headings = ["Prologue", "Chapter 1", "CHAPTER II. The Storm", "Chapter Three", "Epilogue"]
    path = tmp_path / "novel.txt"
    path.write_text("\n".join(f"{h}\nSome text." for h in headings), encoding="utf-8")

    assert [c.title for c in read_book(path).chapters] == headings


def test_given_prose_that_mentions_a_chapter_when_read_then_it_stays_a_paragraph(
    tmp_path: Path,
) -> None:
    path = tmp_path / "novel.txt"
    path.write_text("第一章\n第一章を読み終えた。\n彼は序章について話した。\n", encoding="utf-8")

    (chapter,) = read_book(path).chapters
    assert chapter.paragraphs == ("第一章を読み終えた。", "彼は序章について話した。")


def test_given_a_custom_pattern_when_read_then_its_lines_start_chapters(tmp_path: Path) -> None:
    path = tmp_path / "serial.txt"
    path.write_text("◇Episode-A\nこんにちは。\n◇Episode-B\nさようなら。\n", encoding="utf-8")

    book = read_book(path, chapter_pattern=r"^◇Episode-[A-Z]$")

    assert [c.title for c in book.chapters] == ["◇Episode-A", "◇Episode-B"]


def test_given_an_invalid_custom_pattern_when_read_then_one_line_says_why(
    tmp_path: Path,
) -> None:
    path = tmp_path / "serial.txt"
    path.write_text("本文\n", encoding="utf-8")

    with pytest.raises(UserError, match="the regular expression does not work: missing ]"):
        read_book(path, chapter_pattern="([")
    with pytest.raises(UserError, match="time proportional to the text") as refused:
        read_book(path, chapter_pattern=r"^(第)\1")
    assert "\n" not in str(refused.value)


def test_a_backtracking_pattern_reads_a_line_of_79_characters_at_once(tmp_path: Path) -> None:
    # Given a line of 78 "a" and a "b": Python's re tries every way of splitting the a's
    # against (a+)+$, 0.28 s at 20 of them, doubling with each (4.3 s at 24, on this machine)
    path = tmp_path / "serial.txt"
    path.write_text("序\n" + "a" * 78 + "b\n第一話\n本文。\n", encoding="utf-8")

    started = time.monotonic()
    book = read_book(path, chapter_pattern="(a+)+$|^第.話$")
    took = time.monotonic() - started

    assert took < 5  # on RE2, milliseconds; the backtracking engine would take millennia
    assert [c.title for c in book.chapters][-1] == "第一話"


def test_a_custom_pattern_means_what_python_means_by_d_and_s(tmp_path: Path) -> None:
    path = tmp_path / "serial.txt"
    path.write_text("序\n＃\u3000１２\n本文。\n", encoding="utf-8")

    book = read_book(path, chapter_pattern=r"^＃\s\d+$")

    assert [c.title for c in book.chapters][-1] == "＃\u3000１２"


def test_given_a_part_heading_before_a_chapter_when_read_then_it_leads_the_title(
    tmp_path: Path,
) -> None:
    path = tmp_path / "saga.txt"
    path.write_text("第一部　旅立ち\n第一章　朝\n本文。\n第二章　昼\n本文。\n", encoding="utf-8")

    titles = [c.title for c in read_book(path).chapters]

    assert titles == ["第一部　旅立ち\u3000第一章　朝", "第二章　昼"]


def test_given_a_table_of_contents_of_headings_when_read_then_no_empty_chapters(
    tmp_path: Path,
) -> None:
    path = tmp_path / "toc.txt"
    path.write_text("第一話\n第二話\n\n第一話\n本文一。\n第二話\n本文二。\n", encoding="utf-8")

    book = read_book(path)

    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("第一話", ("本文一。",)),
        ("第二話", ("本文二。",)),
    ]


def test_given_a_lone_first_line_when_read_then_it_is_the_title_and_the_rest_is_front_matter(
    tmp_path: Path,
) -> None:
    path = tmp_path / "file-name.txt"
    path.write_text("猫の本\n\n　まえおき。\n\n第一章\n　本文。\n", encoding="utf-8")

    book = read_book(path)

    assert book.title == "猫の本"
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("猫の本", ("\u3000まえおき。",)),
        ("第一章", ("\u3000本文。",)),
    ]


def test_given_a_first_line_that_is_prose_when_read_then_the_file_name_is_the_title(
    tmp_path: Path,
) -> None:
    path = tmp_path / "my-novel.txt"
    path.write_text("　吾輩は猫である。\n名前はまだ無い。\n", encoding="utf-8")

    book = read_book(path)

    assert book.title == "my-novel"
    assert book.chapters[0].paragraphs == ("\u3000吾輩は猫である。", "名前はまだ無い。")


def test_given_web_novel_ruby_when_read_then_readings_go_and_brackets_stay(tmp_path: Path) -> None:
    path = tmp_path / "web.txt"
    path.write_text(
        "｜魔法使い《ウィザード》が漢字《かんじ》を読む。《炎の剣》だ。\n", encoding="utf-8"
    )

    (chapter,) = read_book(path).chapters

    assert chapter.paragraphs == ("魔法使いが漢字を読む。《炎の剣》だ。",)


def test_given_chinese_book_titles_in_double_brackets_when_read_then_they_are_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "zh.txt"
    path.write_text("他读了《红楼梦》和《三国演义》。\n", encoding="gb18030")

    assert read_book(path).chapters[0].paragraphs == ("他读了《红楼梦》和《三国演义》。",)
