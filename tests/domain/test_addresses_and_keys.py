"""Where a model's key may go, and what an address may hold and show: a key variable says it
holds a key or was declared, a saved key goes only to its servers, no address reaches a
cloud's metadata service, and no address is shown with a key in it."""

from __future__ import annotations

import pytest

from honyaku.domain.addresses import check_base_url, masked_url, printable_url
from honyaku.domain.model_profile import (
    check_key_destination,
    key_destinations,
    looks_like_key_variable,
)
from honyaku.errors import ConfigError


@pytest.mark.parametrize("name", ["DEEPSEEK_API_KEY", "HF_TOKEN", "AZURE_CLIENT_SECRET", "my_key"])
def test_a_variable_named_for_a_key_looks_like_one(name: str):
    assert looks_like_key_variable(name)


@pytest.mark.parametrize("name", ["HOME", "PATH", "HONYAKU_HOME", "KEYBOARD", "USER"])
def test_a_variable_such_as_home_or_path_is_no_key_variable(name: str):
    assert not looks_like_key_variable(name)

    with pytest.raises(ConfigError, match=f"\\${name} does not look like a key variable"):
        check_key_destination(name, "http://127.0.0.1:8801/v1", {})


def test_a_variable_a_person_declared_is_a_key_variable_for_its_server():
    saved = key_destinations([("MY_DEEPSEEK", "https://api.deepseek.com/v1")])

    check_key_destination("MY_DEEPSEEK", "https://api.deepseek.com/beta", saved)


def test_a_saved_key_goes_only_to_the_server_it_was_saved_for():
    saved = key_destinations(
        [("DEEPSEEK_API_KEY", "https://api.deepseek.com/v1"), ("OPENAI_API_KEY", None)]
    )

    check_key_destination("OPENAI_API_KEY", None, saved)
    with pytest.raises(ConfigError, match=r"saved for https://api\.deepseek\.com/v1"):
        check_key_destination("DEEPSEEK_API_KEY", "http://127.0.0.1:8801/v1", saved)
    with pytest.raises(ConfigError, match="goes to no other server"):
        check_key_destination("DEEPSEEK_API_KEY", "http://api.deepseek.com/v1", saved)
    with pytest.raises(ConfigError, match="the provider's own"):
        check_key_destination("OPENAI_API_KEY", "http://127.0.0.1:8801/v1", saved)


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest",
        "http://[fd00:ec2::254]/v1",
        "http://[fe80::1]:8080/v1",
        "http://2852039166/v1",
        "http://0xa9fea9fe/v1",
        "http://[::ffff:169.254.169.254]/v1",
        "http://metadata.google.internal/v1",
    ],
)
def test_link_local_and_metadata_addresses_are_refused(url: str):
    with pytest.raises(ConfigError, match="link-local or cloud metadata"):
        check_base_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://h.example/v1?auth=sk-abc",
        "https://h.example/v1;api_key=sk-abc",
        "https://h.example/v1#api_key=sk-abc",
        "https://h.example/v1?k=abc",
        "https://h.example/v1?code=abc",
        "https://h.example/sk-abc123/v1",
        "https://h.example/v1?x=sk-abc",
        "https://user:pw@h.example/v1",
    ],
)
def test_keys_in_addresses_are_refused_and_never_shown(url: str):
    with pytest.raises(ConfigError, match="holds a password or a key"):
        check_base_url(url)

    for shown in (printable_url(url), masked_url(url)):
        assert "sk-abc" not in shown
        assert "pw" not in shown
        assert "=abc" not in shown


def test_a_printed_address_says_only_that_a_query_parameters_or_a_user_were_there():
    assert printable_url("https://h.example/v1?api-version=2024-02-01") == "https://h.example/v1?…"
    assert printable_url("https://u@h.example/v1;x=1#y") == "https://…@h.example/v1;…#…"
    assert (
        printable_url("https://h.example/a1B2c3D4e5F6g7H8i9J0k1L2/v1") == "https://h.example/…/v1"
    )
    assert printable_url("http://[::1]:8080/v1") == "http://[::1]:8080/v1"


def test_an_address_honyaku_accepts_comes_back_whole_where_it_is_given_back():
    url = "https://gw.example/v1/0123456789abcdef0123456789abcdef/openai?api-version=2024-02-01"

    check_base_url(url)

    assert masked_url(url) == url
