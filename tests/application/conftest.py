"""Real books and their new editions, made from the fixtures as an author's revision would."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

BOOKS = Path(__file__).parents[1] / "fixtures" / "books"
KUSAMAKURA = BOOKS / "epub" / "kusamakura_ja_epub3" / "kusamakura_ja_epub3.epub"

EDITED = {
    # One paragraph of 三 and one of 八, each edited by a few characters.
    "OPS/xhtml/三.xhtml": ("は妙な気持ちがした。", "は妙な気持がした。"),
    "OPS/xhtml/八.xhtml": ("和尚は虎の皮の上へ坐った。", "和尚は虎の皮の上に坐った。"),
    # The first paragraph of 四 split in two.
    "OPS/xhtml/四.xhtml": (
        "片側には書物が少々詰めてある。",
        "</p>\n    <p>片側には書物が少々詰めてある。",
    ),
}
ADDED_CHAPTER = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="ja" xmlns:epub="http://www.idpf.org/2007/ops">
<head><meta charset="utf-8" /><title>十四</title></head>
<body class="bodymatter" epub:type="bodymatter">
<section epub:type="chapter" class="main_text">
  <h2 epub:type="subtitle" class="chapter">十四</h2>
  <p>汽車の窓から見る景色は、いつでも余を少しく落ちつかせぬ。</p>
  <p>野も山も川も、みな後ろへ後ろへと飛んで行って、ひとつとして留まるものがない。</p>
  <p>「また来るでしょう」と那美さんは言った。余は答えなかった。</p>
</section>
</body>
</html>
"""


def new_kusamakura(folder: Path) -> Path:
    """Kusamakura's next edition: 十四 appended, 十二 removed, 七 moved after 十, two
    paragraphs edited and one split in two."""
    path = folder / "kusamakura-2.epub"
    with zipfile.ZipFile(KUSAMAKURA) as old, zipfile.ZipFile(path, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename in EDITED:
                before, after = EDITED[info.filename]
                assert before.encode() in data
                data = data.replace(before.encode(), after.encode(), 1)
            elif info.filename == "OPS/package.opf":
                data = _reordered(data.decode(), "itemref", 'idref="{}"').encode()
                data = data.replace(
                    b'<item id="\xe5\x8d\x81\xe4\xb8\x89"',  # 十三
                    '<item id="十四" href="xhtml/十四.xhtml" media-type="application/xhtml+xml"/>'
                    '\n    <item id="十三"'.encode(),
                )
            elif info.filename == "OPS/xhtml/目次.xhtml":
                data = _reordered(data.decode(), "li", 'id="toc-{}"').encode()
            compress = zipfile.ZIP_STORED if info.filename == "mimetype" else zipfile.ZIP_DEFLATED
            new.writestr(info, data, compress_type=compress)
        new.writestr("OPS/xhtml/十四.xhtml", ADDED_CHAPTER, compress_type=zipfile.ZIP_DEFLATED)
    return path


def _reordered(text: str, tag: str, marker: str) -> str:
    """``text`` with the ``tag`` element of 十二 gone, 七's after 十's, and 十四's after 十三's."""
    named = marker.format('(?P<name>[^"]+)')
    element = re.compile(rf"\s*<{tag}\b[^>]*{named}.*?(?:/>|</{tag}>)", re.S)
    found = {m["name"]: m for m in element.finditer(text)}
    seven, ten, twelve = found["七"][0], found["十"][0], found["十二"][0]
    fourteen = found["十三"][0].replace("十三", "十四")
    text = text.replace(seven, "", 1).replace(twelve, "", 1)
    text = text.replace(ten, ten + seven, 1)
    return text.replace(found["十三"][0], found["十三"][0] + fourteen, 1)
