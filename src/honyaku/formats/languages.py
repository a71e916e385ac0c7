"""A cheap guess at a text's language, for files that do not declare one."""

from __future__ import annotations

import re

SAMPLE_CHARS = 20_000
MIN_KANA_SHARE = 0.02
MIN_HAN_SHARE = 0.10

_KANA = re.compile("[\u3041-\u3096\u30a1-\u30fa]")
_HAN = re.compile("[\u4e00-\u9fff]")


def guess_language(text: str) -> str | None:
    """``ja`` when kana show up, ``zh`` for ideographs without kana, else ``None``."""
    sample = text[:SAMPLE_CHARS]
    if not sample:
        return None
    if len(_KANA.findall(sample)) >= MIN_KANA_SHARE * len(sample):
        return "ja"
    if len(_HAN.findall(sample)) >= MIN_HAN_SHARE * len(sample):
        return "zh"
    return None
