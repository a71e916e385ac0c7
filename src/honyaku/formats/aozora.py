"""Aozora Bunko notation: ruby, editor's notes, gaiji, headings, header and colophon.

An Aozora Bunko text file opens with the title and author, then a legend explaining the
notation (between two dashed lines, containing 【テキスト中に現れる記号について】), and closes
with a colophon that starts at 底本：. Neither is story text. Inside the text:

- ruby ``漢字《かんじ》`` or ``｜漢字《かんじ》`` keeps only the base text, the reading kept as
  an inline mark over it (``marked_line``);
- notes ``［＃…］`` are removed; an emphasis note (``［＃「…」に傍点］``,
  ``［＃傍点］…［＃傍点終わり］``, 傍線, 太字, 斜体…) marks the words it names the way Aozora
  Bunko's XHTML does (``<em class="sesame_dot">``, ``<span class="futoji">``); a heading note
  (``［＃「…」は中見出し］`` or ``［＃中見出し］…［＃中見出し終わり］``) makes the line a heading:
  大 = 1, 中 = 2, 小 = 3;
- a gaiji ``※［＃「…」、第3水準1-88-81］`` becomes the character itself when the note names
  it by JIS X 0213 plane-row-cell or by Unicode code point, and disappears otherwise.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from honyaku.domain.sources import InlineMark

LEGEND_MARK = "【テキスト中に現れる記号について】"
MAX_HEADER_LINES = 6
CONTRIBUTOR_SUFFIXES = ("訳", "譯", "編", "編集", "編訳", "校訂", "監修", "翻訳", "訳注")

_GAIJI = re.compile(r"※［＃([^］]*)］")
_UNICODE = re.compile(r"U\+([0-9A-Fa-f]{4,6})")
_JIS_X_0213 = re.compile(r"(?<![0-9])([12])-(\d{1,2})-(\d{1,2})(?![0-9])")
_MARKED_RUBY = re.compile(r"[｜|]([^｜|《\n]*)《[^》\n]*》")
_RUBY = re.compile(r"《[^》\n]*》")
_NOTE = re.compile(r"［＃[^］]*］")
_RULE = re.compile(r"^-{20,}\s*$")
_COLOPHON = re.compile(r"^底本[：:]", re.MULTILINE)
_HEADING_NOTE = re.compile(r"［＃「([^」]+)」は(?:同行|窓)?([大中小])見出し］")
_HEADING_SPAN = re.compile(
    r"［＃(?:同行|窓)?([大中小])見出し］(.*?)［＃(?:同行|窓)?\1見出し終わり］"
)
_LEVELS = {"大": 1, "中": 2, "小": 3}
EMPHASIS = {
    "傍点": ("em", "sesame_dot"),
    "白ゴマ傍点": ("em", "white_sesame_dot"),
    "丸傍点": ("em", "black_circle"),
    "白丸傍点": ("em", "white_circle"),
    "黒三角傍点": ("em", "black_up-pointing_triangle"),
    "白三角傍点": ("em", "white_up-pointing_triangle"),
    "二重丸傍点": ("em", "bullseye"),
    "蛇の目傍点": ("em", "fisheye"),
    "ばつ傍点": ("em", "saltire"),
    "傍線": ("em", "underline_solid"),
    "二重傍線": ("em", "underline_double"),
    "鎖線": ("em", "underline_dotted"),
    "破線": ("em", "underline_dashed"),
    "波線": ("em", "underline_wave"),
    "太字": ("span", "futoji"),
    "斜体": ("span", "shatai"),
}
"""Emphasis notes and the element and class Aozora Bunko's XHTML writes for each."""
_NAMED_EMPHASIS = re.compile(r"「(.+?)」(?:に|は)(" + "|".join(EMPHASIS) + ")")
_TOKEN = re.compile(
    r"※［＃(?P<gaiji>[^］]*)］|［＃(?P<note>[^］]*)］|(?P<bar>｜|\|(?=[^｜|《\n]*《[^》\n]*》))"
    r"|《(?P<reading>[^》\n]*)》|[^※［｜|《]+|."
)
_KANJI = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff々〆ヵヶ]")


@dataclass(frozen=True, slots=True)
class AozoraHeading:
    """A heading line: its title, its level (大 1, 中 2, 小 3) and any other text on it."""

    title: str
    level: int
    rest: str


@dataclass(frozen=True, slots=True)
class AozoraParts:
    """An Aozora file cut into header (title, author) and body lines."""

    title: str | None
    author: str | None
    body: list[str]
    first_body_line: int = 0
    """The index in the file of the body's first line."""


def is_aozora_text(text: str) -> bool:
    """Whether ``text`` uses Aozora Bunko notation (its legend, its notes or its colophon)."""
    head = text[:20_000]
    return LEGEND_MARK in head or "［＃" in text or _COLOPHON.search(text) is not None


def gaiji_character(note: str) -> str | None:
    """The character a gaiji note names, or ``None`` when it names none we can map."""
    code_point = _UNICODE.search(note)
    if code_point:
        value = int(code_point.group(1), 16)
        return chr(value) if value <= 0x10FFFF else None
    men_ku_ten = _JIS_X_0213.search(note)
    if not men_ku_ten:
        return None
    plane, row, cell = (int(part) for part in men_ku_ten.groups())
    if not (1 <= row <= 94 and 1 <= cell <= 94):
        return None
    # EUC-JIS-2004 spells plane 1 as two bytes and plane 2 behind the SS3 byte 0x8F.
    encoded = bytes([0xA0 + row, 0xA0 + cell])
    if plane == 2:
        encoded = b"\x8f" + encoded
    try:
        return encoded.decode("euc_jis_2004")
    except UnicodeDecodeError:
        return None


def clean_line(line: str) -> str:
    """``line`` without ruby readings and notes, with gaiji mapped where possible."""
    if "※［＃" in line:
        line = _GAIJI.sub(lambda m: gaiji_character(m.group(1)) or "", line)
    if "《" in line:
        line = _RUBY.sub("", _MARKED_RUBY.sub(r"\1", line))
    if "［＃" in line:
        line = _NOTE.sub("", line)
    return line.replace("｜", "")


def marked_line(line: str) -> tuple[str, tuple[InlineMark, ...]]:
    """``clean_line(line)`` and the inline marks over it: each ruby with its reading, each
    emphasis its notes name."""
    if "《" not in line and "［＃" not in line:
        return clean_line(line), ()
    out: list[str] = []
    length = 0
    marks: list[InlineMark] = []
    ruby_start: int | None = None
    opened: dict[str, int] = {}
    for match in _TOKEN.finditer(line):
        piece = match.group(0)
        if match["gaiji"] is not None:
            piece = gaiji_character(match["gaiji"]) or ""
        elif match["note"] is not None:
            _note_marks(match["note"], "".join(out), length, opened, marks)
            piece = ""
        elif match["bar"]:
            ruby_start, piece = length, ""
        elif match["reading"] is not None:
            start = ruby_start if ruby_start is not None else _kanji_run_start("".join(out))
            if start < length and (reading := match["reading"].strip()):
                marks.append(InlineMark("ruby", start, length, (), reading))
            ruby_start, piece = None, ""
        out.append(piece)
        length += len(piece)
    text = "".join(out)
    return text, tuple(sorted(marks, key=lambda m: (m.start, -m.end)))


def _note_marks(
    note: str, text: str, at: int, opened: dict[str, int], marks: list[InlineMark]
) -> None:
    """The marks a note ``［＃note］`` at offset ``at`` of ``text`` makes, if any."""
    if named := _NAMED_EMPHASIS.fullmatch(note):
        words, kind = named.group(1), named.group(2)
        start = at - len(words)
        if start >= 0 and text[start:at] == words:
            marks.append(_emphasis(kind, start, at))
    elif (ending := note.removesuffix("終わり")) != note and ending in opened:
        start = opened.pop(ending)
        if start < at:
            marks.append(_emphasis(ending, start, at))
    elif note in EMPHASIS:
        opened[note] = at


def _emphasis(kind: str, start: int, end: int) -> InlineMark:
    tag, css_class = EMPHASIS[kind]
    return InlineMark(tag, start, end, (("class", css_class),))


def _kanji_run_start(text: str) -> int:
    """Where the run of kanji that ends ``text`` starts: the base of a ruby without ｜."""
    start = len(text)
    while start > 0 and _KANJI.match(text[start - 1]):
        start -= 1
    return start


def find_heading(line: str) -> AozoraHeading | None:
    """The heading a line carries, if any of its notes marks one."""
    span = _HEADING_SPAN.search(line)
    if span:
        level, title = _LEVELS[span.group(1)], clean_line(span.group(2)).strip()
        rest = clean_line(line[: span.start()] + line[span.end() :])
    else:
        note = _HEADING_NOTE.search(line)
        if not note:
            return None
        level, title = _LEVELS[note.group(2)], clean_line(note.group(1)).strip()
        rest = clean_line(line).replace(title, "", 1)
    return AozoraHeading(title, level, rest.strip()) if title else None


def split_aozora(lines: list[str]) -> AozoraParts:
    """Header fields and body lines, without the notation legend and the colophon."""
    header_end = _header_end(lines)
    title, author = _title_and_author([clean_line(line).strip() for line in lines[:header_end]])
    body_start = _legend_end(lines, header_end)
    body_end = _colophon_start(lines)
    return AozoraParts(title, author, lines[body_start:body_end], body_start)


def _header_end(lines: list[str]) -> int:
    for index, line in enumerate(lines[: MAX_HEADER_LINES + 1]):
        if not line.strip() or _RULE.match(line):
            return index
    return 0


def _title_and_author(header: list[str]) -> tuple[str | None, str | None]:
    header = [line for line in header if line]
    if not header:
        return None, None
    people = list(header[1:])
    contributors: list[str] = []
    while people and people[-1].endswith(CONTRIBUTOR_SUFFIXES):
        contributors.insert(0, people.pop())
    # Between title and author Aozora puts an optional subtitle; the author is the last line.
    author = people[-1] if people else (contributors[0] if contributors else None)
    return header[0], author


def _legend_end(lines: list[str], header_end: int) -> int:
    """The line after the legend block, or after the header when there is no legend."""
    rules = [i for i, line in enumerate(lines[:200]) if _RULE.match(line)]
    for opening, closing in itertools.pairwise(rules):
        if any(LEGEND_MARK in line for line in lines[opening:closing]):
            return closing + 1
    return header_end


def _colophon_start(lines: list[str]) -> int:
    for index in range(len(lines) - 1, -1, -1):
        if _COLOPHON.match(lines[index]):
            return index
    return len(lines)
