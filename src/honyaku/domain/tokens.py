"""How many tokens a text costs: the ``TokenCounter`` every count goes through, and the
estimate from characters, script by script, for models whose tokenizer honyaku lacks.

Where honyaku ships a model's tokenizer it counts exactly (``llm.tokenizers``); otherwise it
counts characters per script and divides by a documented ratio. The ratios are those of
current BPE tokenizers (OpenAI's o200k, Gemini's, Qwen's, DeepSeek's) on book text, rounded:

- CJK (kanji, hanzi, kana, hangul, CJK punctuation, full-width forms): 1.2 characters a
  token; common characters are one token, rare kanji two or three;
- ASCII (English, JSON, ids, markup): 4 characters a token, as whole words and common
  punctuation runs are one token each;
- everything else (accented Latin, Cyrillic, Greek…): 2.5, between the two.

An estimate is refined by the usage a provider reported for earlier jobs with the same model
(``TokenRatio.refined``): the factor between what it billed and what was estimated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

CJK_CHARS_PER_TOKEN = 1.2
ASCII_CHARS_PER_TOKEN = 4.0
OTHER_CHARS_PER_TOKEN = 2.5

_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u303f\u3040-\u30ff\u3100-\u31ff\u3200-\u9fff"
    "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003ffff]+"
)
_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")


def estimate_tokens(text: str) -> float:
    """The tokens ``text`` would cost, by the per-script ratios above."""
    if not text:
        return 0.0
    other_and_cjk = sum(map(len, _NOT_ASCII.findall(text)))
    cjk = sum(map(len, _CJK.findall(text)))
    ascii_chars = len(text) - other_and_cjk
    return (
        cjk / CJK_CHARS_PER_TOKEN
        + (other_and_cjk - cjk) / OTHER_CHARS_PER_TOKEN
        + ascii_chars / ASCII_CHARS_PER_TOKEN
    )


class TokenCounter(Protocol):
    """Counts a text's tokens for one family of models."""

    @property
    def name(self) -> str:
        """What counts, in a few words: ``o200k``, ``DeepSeek``, ``per-script ratio``."""
        ...

    def count(self, text: str) -> float: ...


@dataclass(frozen=True, slots=True)
class ScriptRatio:
    """The estimate by script, for models whose tokenizer honyaku does not ship."""

    name: str = "per-script ratio"

    def count(self, text: str) -> float:
        return estimate_tokens(text)


SCRIPT_RATIO = ScriptRatio()


@dataclass(frozen=True, slots=True)
class TokenRatio:
    """A correction to the estimate: reported tokens per estimated token, 1.0 when nothing
    has been reported yet."""

    factor: float = 1.0
    samples: int = 0
    """Requests the factor was learned from."""

    @classmethod
    def refined(cls, estimated: float, reported: int, requests: int) -> TokenRatio:
        """The factor from earlier jobs: ``reported`` tokens billed where ``estimated`` were
        expected; no correction without both."""
        if estimated <= 0 or reported <= 0:
            return cls()
        return cls(reported / estimated, requests)

    def tokens(self, text: str, counter: TokenCounter = SCRIPT_RATIO) -> float:
        return counter.count(text) * self.factor
