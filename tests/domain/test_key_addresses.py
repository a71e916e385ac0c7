"""Where a key may go: a key's name to the servers the profiles saved with it bound it to, an
environment variable only where a terminal named it, a provider's usual variable only to its
own server (or the base URL the same environment sets for it)."""

from __future__ import annotations

import pytest

from honyaku.domain.key_addresses import USUAL_KEYS, KeyAddresses, KeyBinding, KeyRoute
from honyaku.errors import ConfigError

DEEPSEEK = "https://api.deepseek.com/v1"
ELSEWHERE = "http://127.0.0.1:8801/v1"


def test_a_usual_variable_goes_to_its_providers_own_server_and_the_base_url_set_beside_it():
    alone = KeyAddresses()
    with_base_url = KeyAddresses(environment={"OPENAI_BASE_URL": "https://gateway.example/v1"})

    assert alone.environment_allowed("OPENAI_API_KEY", "https://api.openai.com/v1/")
    assert alone.environment_allowed("GEMINI_API_KEY", "https://generativelanguage.googleapis.com")
    assert alone.environment_allowed("ANTHROPIC_API_KEY", "https://api.anthropic.com")
    assert not alone.environment_allowed("OPENAI_API_KEY", ELSEWHERE)
    assert not alone.environment_allowed("OPENAI_API_KEY", "http://api.openai.com/v1")  # not TLS
    assert not alone.environment_allowed("GEMINI_API_KEY", "https://api.openai.com/v1")
    assert with_base_url.environment_allowed("OPENAI_API_KEY", "https://gateway.example/v2")
    assert not with_base_url.environment_allowed("GEMINI_API_KEY", "https://gateway.example/v2")


def test_each_provider_is_one_row_of_the_usual_keys():
    providers = [row.provider for row in USUAL_KEYS]
    variables = [variable for row in USUAL_KEYS for variable in row.variables]

    assert providers == ["openai", "gemini", "anthropic"]
    assert len(set(variables)) == len(variables)


def test_a_stored_key_goes_only_to_the_servers_a_profile_bound_it_to():
    bound = KeyAddresses([KeyBinding("DEEPSEEK_API_KEY", "https://api.deepseek.com:443", False)])

    assert bound.store_allowed("DEEPSEEK_API_KEY", "https://api.deepseek.com/beta")
    assert not bound.store_allowed("DEEPSEEK_API_KEY", ELSEWHERE)
    assert not bound.store_allowed("DEEPSEEK_API_KEY", "http://api.deepseek.com/v1")
    assert not bound.store_allowed("FREE_KEY", DEEPSEEK)  # bound to nothing: goes nowhere
    # A binding made in the workbench reads no environment variable of that name.
    assert not bound.environment_allowed("DEEPSEEK_API_KEY", DEEPSEEK)


def test_an_environment_variable_is_read_only_for_the_server_a_terminal_named_it_for():
    bound = KeyAddresses(
        [
            KeyBinding("MY_DEEPSEEK", "https://api.deepseek.com:443", True),
            KeyBinding("MY_DEEPSEEK", "http://127.0.0.1:8801", False),
        ]
    )

    assert bound.environment_allowed("MY_DEEPSEEK", DEEPSEEK)
    assert not bound.environment_allowed("MY_DEEPSEEK", ELSEWHERE)
    assert not bound.environment_allowed("AWS_SECRET_ACCESS_KEY", DEEPSEEK)


def test_the_workbench_binds_a_free_key_but_moves_no_bound_one_and_names_no_variable():
    bound = KeyAddresses([KeyBinding("DEEPSEEK_API_KEY", "https://api.deepseek.com:443", True)])

    bound.check_binding(KeyRoute(ELSEWHERE, "FREE_KEY", variable=False), declared=False)
    bound.check_binding(KeyRoute(DEEPSEEK, "DEEPSEEK_API_KEY", variable=False), declared=False)
    bound.check_binding(KeyRoute(DEEPSEEK, "DEEPSEEK_API_KEY", variable=True), declared=False)
    with pytest.raises(ConfigError, match=r"goes only to https://api\.deepseek\.com"):
        bound.check_binding(KeyRoute(ELSEWHERE, "DEEPSEEK_API_KEY", variable=False), declared=False)
    with pytest.raises(ConfigError, match="read only for the servers a terminal named it for"):
        bound.check_binding(KeyRoute(ELSEWHERE, "GITHUB_TOKEN", variable=True), declared=False)
    with pytest.raises(ConfigError, match=r"goes only to https://api\.openai\.com"):
        bound.check_binding(KeyRoute(ELSEWHERE, "OPENAI_API_KEY", variable=False), declared=False)


def test_a_terminal_binds_any_key_to_the_server_it_typed():
    bound = KeyAddresses([KeyBinding("DEEPSEEK_API_KEY", "https://api.deepseek.com:443", True)])

    for variable in (True, False):
        bound.check_binding(KeyRoute(ELSEWHERE, "DEEPSEEK_API_KEY", variable), declared=True)
    assert bound.bindings([KeyRoute(ELSEWHERE, "K", variable=True)], declared=True) == [
        KeyBinding("K", "http://127.0.0.1:8801", True)
    ]
