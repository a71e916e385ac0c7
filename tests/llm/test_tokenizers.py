"""A model's tokens are counted with its own tokenizer where one ships offline, whatever the
router's prefix or the local server's tag; any other model by the per-script ratio."""

from __future__ import annotations

import pytest

from honyaku.llm.tokenizers import token_counter, tokenizer_family


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("gpt-4o-mini", "o200k"),
        ("openai/gpt-4.1", "o200k"),
        ("o3-mini", "o200k"),
        ("gpt-4-0613", "cl100k"),
        ("gpt-3.5-turbo", "cl100k"),
        ("deepseek-chat", "DeepSeek"),
        ("deepseek/deepseek-reasoner", "DeepSeek"),
        ("qwen2.5:7b", "Qwen"),
        ("Llama-3.1-8B-Instruct", "Llama 3"),
        ("gemini-2.5-flash", None),
        ("smollm2-135m-instruct", None),
        (None, None),
    ],
)
def test_each_model_is_counted_with_its_own_tokenizer_where_one_ships(model, family):
    assert tokenizer_family(model) == family


def test_real_tokenizers_count_japanese_apart_from_the_ratio():
    text = "ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。"

    counted = {model: token_counter(model) for model in ("gpt-4o", "deepseek-chat", "unknown")}

    assert [c.name for c in counted.values()] == ["o200k", "DeepSeek", "per-script ratio"]
    assert counted["gpt-4o"].count(text) != counted["deepseek-chat"].count(text)
    assert all(10 < c.count(text) < len(text) for c in counted.values())
