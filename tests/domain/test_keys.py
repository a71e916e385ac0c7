"""What a key's name may be, what of a key is ever shown, and how a key is typed."""

from __future__ import annotations

import pytest

from honyaku.domain.keys import check_key_name, check_key_text, key_tail, missing_key
from honyaku.errors import ConfigError


@pytest.mark.parametrize("name", ["DEEPSEEK_API_KEY", "openai_key2", "_A"])
def test_a_key_name_is_an_environment_variables_name(name):
    assert check_key_name(name) == name


@pytest.mark.parametrize("name", ["", "2KEY", "DEEPSEEK-KEY", "A B", "honyaku:names", "K" * 101])
def test_any_other_name_is_refused_in_one_line_that_says_what_a_name_looks_like(name):
    with pytest.raises(ConfigError) as refused:
        check_key_name(name)
    assert "letters, digits and '_'" in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("sk-abcdefghijklmnopqrstuvwxyz0123", "…0123"),
        ("sk-abcdefgh12345", "…2345"),
        ("abcdefgh", "…gh"),
        ("abc", "…"),
    ],
)
def test_a_key_shows_its_last_four_characters_at_most_and_less_of_a_short_one(key, shown):
    assert key_tail(key) == shown


def test_a_typed_key_is_stripped_and_one_word_or_refused_without_showing_it():
    assert check_key_text("  sk-abc123\n") == "sk-abc123"
    for bad in ("", "  \n", "sk-abc 123", "sk-abc\n123", "sk-abc\x00123"):
        with pytest.raises(ConfigError) as refused:
            check_key_text(bad)
        assert "abc" not in str(refused.value)


def test_a_missing_key_says_its_name_and_both_ways_to_give_it_in_one_line():
    said = str(missing_key("DEEPSEEK_API_KEY"))
    assert "honyaku keys set DEEPSEEK_API_KEY" in said
    assert "export DEEPSEEK_API_KEY=" in said
    assert "\n" not in said
