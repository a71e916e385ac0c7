"""Legacy single-byte text: Windows-1252 and Latin-1 read as written, look-alikes never garbled.

Every single-byte encoding decodes every byte, so a wrong guess does not fail: it garbles
("crčme brūlée"). These files are real bytes in those encodings; each is either read exactly
as written or refused in one line that names ``--encoding``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from honyaku.errors import BookFormatError, ConfigError
from honyaku.formats import read_book

ENGLISH = (
    "The Dessert\n"
    "\n"
    "Chapter 1\n"
    "The crème brûlée was perfect, she said — a naïve remark.\n"
    "“Look at the façade,” he answered; “isn’t it grand?”\n"
    "Chapter 2\n"
    "Déjà vu: the café again… all of it.\n"
)
PLAIN = (
    "It was a bright cold day in April, and the clocks were striking thirteen. Winston Smith, "
    "his chin nuzzled into his breast in an effort to escape the vile wind, slipped quickly "
    "through the glass doors of Victory Mansions, though not quickly enough to prevent a "
    "swirl of gritty dust from entering along with him.\n"
)
LOANWORDS = "They ate smörgåsbord at Müller’s, broke a piñata, and praised the crème brûlée.\n"
FRENCH = (
    "Chapitre 1\n"
    "Il était une fois une société très âgée où l’on mangeait des crêpes à Noël.\n"
    "« Ça n’arrive plus », dit le garçon, « où êtes-vous donc ? »\n"
)
GERMAN = (
    "Kapitel 1\nÜber den Wolken muß die Freiheit wohl grenzenlos sein.\nGröße, Straße, schön.\n"
)
CZECH = (
    "Kapitola 1\n"
    "Byl jednou jeden král, který měl tři dcery. Nejmladší z nich byla velmi krásná.\n"
    "Řekl jí, že musí jít do lesa a přinést vodu z čisté studánky.\n"
)
POLISH = (
    "Rozdział 1\n"
    "Litwo! Ojczyzno moja! ty jesteś jak zdrowie. Ile cię trzeba cenić, ten tylko się dowie,\n"
    "kto cię stracił. Dziś piękność twą w całej ozdobie widzę i opisuję, bo tęsknię po tobie.\n"
)
RUSSIAN = (
    "Глава 1\n"
    "Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива "
    "по-своему.\nВсё смешалось в доме Облонских.\n"
)
QUICK_S = 5.0


def _paragraphs(path: Path, **options: str) -> list[str]:
    """The book's title, then each chapter's title and paragraphs."""
    book = read_book(path, **options)  # type: ignore[arg-type]
    return [book.title] + [p for c in book.chapters for p in (c.title, *c.paragraphs)]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line]


def test_a_cp1252_english_text_keeps_its_accents_smart_quotes_and_dashes(tmp_path: Path):
    path = tmp_path / "dessert.txt"
    path.write_bytes(ENGLISH.encode("cp1252"))

    paragraphs = _paragraphs(path)

    assert paragraphs == _lines(ENGLISH)
    assert "crème brûlée" in paragraphs[2]


def test_an_english_text_with_loanwords_from_several_languages_reads_as_written(
    tmp_path: Path,
):
    path = tmp_path / "loanwords.txt"
    path.write_bytes((PLAIN * 10 + LOANWORDS + PLAIN * 10).encode("cp1252"))

    assert LOANWORDS.strip() in _paragraphs(path)


def test_a_latin1_text_reads_as_written(tmp_path: Path):
    text = ENGLISH.replace("—", "-").replace("…", "...")
    text = text.replace("“", '"').replace("”", '"').replace("’", "'")
    path = tmp_path / "latin1.txt"
    path.write_bytes(text.encode("latin-1"))

    assert _paragraphs(path) == _lines(text)


@pytest.mark.parametrize("text", [FRENCH, GERMAN], ids=["french", "german"])
def test_western_european_languages_in_cp1252_read_as_written(tmp_path: Path, text: str):
    path = tmp_path / "book.txt"
    path.write_bytes(text.encode("cp1252"))

    assert set(text.splitlines()) <= set(_paragraphs(path))


@pytest.mark.parametrize(
    ("text", "codec"), [(CZECH, "cp1250"), (POLISH, "cp1250")], ids=["czech", "polish"]
)
def test_central_european_text_is_refused_with_the_way_out_not_garbled(
    tmp_path: Path, text: str, codec: str
):
    path = tmp_path / "kniha.txt"
    path.write_bytes(text.encode(codec))
    started = time.monotonic()

    with pytest.raises(BookFormatError) as refused:
        read_book(path)

    message = str(refused.value)
    assert time.monotonic() - started < QUICK_S
    assert "UTF-8" in message
    assert "--encoding" in refused.value.terminal_hint
    assert "kniha.txt" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "codec"), [(CZECH, "cp1250"), (ENGLISH, "cp1252"), (RUSSIAN, "koi8_r")]
)
def test_a_named_encoding_is_used_as_given(tmp_path: Path, text: str, codec: str):
    path = tmp_path / "book.txt"
    path.write_bytes(text.encode(codec))

    assert set(text.splitlines()) - {""} <= set(_paragraphs(path, encoding=codec))


def test_a_cyrillic_text_is_still_told_from_its_bytes(tmp_path: Path):
    path = tmp_path / "anna.txt"
    path.write_bytes(RUSSIAN.encode("cp1251"))

    assert set(RUSSIAN.splitlines()) <= set(_paragraphs(path))


def test_a_named_encoding_applies_to_an_html_file_too(tmp_path: Path):
    page = f"<html><body><h1>Kapitola</h1><p>{CZECH.splitlines()[1]}</p></body></html>"
    path = tmp_path / "kniha.html"
    path.write_bytes(page.encode("cp1250"))

    assert CZECH.splitlines()[1] in _paragraphs(path, encoding="cp1250")


def test_an_unknown_encoding_name_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "book.txt"
    path.write_bytes(ENGLISH.encode("cp1252"))

    with pytest.raises(ConfigError, match="unknown encoding 'klingon'"):
        read_book(path, encoding="klingon")


def test_bytes_that_the_named_encoding_cannot_decode_are_named_by_offset(tmp_path: Path):
    path = tmp_path / "book.txt"
    path.write_bytes(ENGLISH.encode("cp1252"))

    with pytest.raises(BookFormatError, match="offset"):
        read_book(path, encoding="utf-8")
