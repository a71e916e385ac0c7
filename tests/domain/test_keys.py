"""What a key's name may be (never a key), what of a key is ever shown, and how a key is
typed: one word of printable ASCII."""

from __future__ import annotations

import pytest

from honyaku.domain.keys import (
    check_found_key,
    check_key_name,
    check_key_text,
    key_tail,
    missing_key,
)
from honyaku.errors import ConfigError


@pytest.mark.parametrize(
    "name", ["DEEPSEEK_API_KEY", "openai_key2", "_A", "HF_TOKEN", "GPU3_KEY", "SK_TOKEN"]
)
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


PASTED_KEYS = [
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t",
    "sk-ant-api03-Zx9Yw8Vu7Ts6",
    "sk_live_51Hh2k3J4l5",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K",
    "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github_pat_11ABCDEFG0123456789",
    "xai-Q1w2E3r4T5y6U7i8O9p0",
    "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ",
    "gsk_Q1w2E3r4T5y6U7i8O9p0",
    "AKIAIOSFODNN7EXAMPLE",
    "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF",
    "3f9a1c7e5b2d4068a9c1e3f5b7d90a2c",
]


@pytest.mark.parametrize("key", PASTED_KEYS)
def test_a_key_pasted_as_a_name_is_refused_without_being_repeated_saying_where_keys_go(key):
    with pytest.raises(ConfigError) as refused:
        check_key_name(key)

    said = str(refused.value)
    assert key not in said
    assert key[4:12] not in said
    assert "the key itself goes into the key store" in said
    assert "\n" not in said


def test_a_key_that_an_http_header_cannot_carry_is_refused_without_showing_it():
    for bad in ("sk-秘密ABCDEFGHIJ", "sk-clé-0123456789", "sk-ABC\u200b123"):
        with pytest.raises(ConfigError) as refused:
            check_key_text(bad)
        assert "ABC" not in str(refused.value)
        assert "\n" not in str(refused.value)

    with pytest.raises(ConfigError, match=r"the key in \$MY_KEY is not one word of printable"):
        check_found_key("sk-秘密ABCDEFGHIJ", "$MY_KEY")
    assert check_found_key("sk-ok_0123", "$MY_KEY") == "sk-ok_0123"
