"""What a model's address may hold and show: no address reaches a cloud's metadata service,
and no address is shown with a key in it. Where a key may go is ``test_key_addresses``."""

from __future__ import annotations

import pytest

from honyaku.domain.addresses import check_base_url, masked_url, printable_url
from honyaku.errors import ConfigError


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
