"""Language tags: what a book may be written in is a tag, in its usual spelling, or refused."""

from __future__ import annotations

import pytest

from honyaku.domain.languages import is_language_tag, normalize_language
from honyaku.errors import UserError


@pytest.mark.parametrize(
    ("given", "kept"),
    [("ja", "ja"), ("zh-cn", "zh-CN"), ("zh_hant_tw", "zh-Hant-TW"), ("en-GB", "en-GB")],
)
def test_a_language_tag_is_kept_in_its_usual_spelling(given, kept):
    assert normalize_language(given) == kept


@pytest.mark.parametrize("given", ["../../etc", "ja\x00", "ja\nzh", "Japanese", "", "zh-CN; rm"])
def test_anything_but_a_language_tag_is_refused_with_examples_of_one(given):
    assert not is_language_tag(given)
    with pytest.raises(UserError, match="not a language tag: write one like ja"):
        normalize_language(given)
