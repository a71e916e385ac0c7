"""The key store: the OS keyring through ``keyring``'s API where one is usable, else a file only
its owner can read; and the one order in which a request's key is found, where it may go."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from honyaku.domain.key_addresses import KeyBinding, usual_key
from honyaku.errors import ConfigError, NotFoundError
from honyaku.llm.keys import KEY_FILE, KEYRING, KeyFile, KeyStore, config_folder, find_key
from honyaku.llm.models import PROVIDER_KINDS

from ..conftest import MemoryKeyring

KEY = "sk-stored-4f1c9e2ab7d3"
OTHER = "sk-other-0a9b8c7d6e5f"


def test_without_a_keyring_a_key_goes_to_a_file_in_the_config_folder_its_owner_alone_reads(
    key_store: Path,
):
    # Given no usable keyring (keyring's fail backend, as on CI)
    store = KeyStore.of_this_user()

    # When a key is set
    stored = store.set("DEEPSEEK_API_KEY", f"  {KEY}\n")

    # Then it is in the key file of the config folder, 0600, in a folder only its owner enters
    assert key_store == config_folder() / KEY_FILE
    assert stored.where == str(key_store)
    assert stat.S_IMODE(key_store.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_store.parent.stat().st_mode) == 0o700
    assert store.get("DEEPSEEK_API_KEY") == KEY
    assert [p.name for p in key_store.parent.iterdir()] == [KEY_FILE]  # no temporary left
    # And it shows only its last characters
    assert stored.tail == "…b7d3"
    [listed] = store.all()
    assert (listed.name, listed.where, listed.tail) == ("DEEPSEEK_API_KEY", str(key_store), "…b7d3")


def test_a_key_set_again_replaces_the_old_one_and_a_key_removed_is_gone(key_store: Path):
    store = KeyStore.of_this_user()
    store.set("DEEPSEEK_API_KEY", OTHER)
    store.set("DEEPSEEK_API_KEY", KEY)
    store.set("OPENROUTER_API_KEY", OTHER)

    assert store.get("DEEPSEEK_API_KEY") == KEY
    assert store.remove("DEEPSEEK_API_KEY") == [str(key_store)]
    assert store.get("DEEPSEEK_API_KEY") is None
    assert [k.name for k in store.all()] == ["OPENROUTER_API_KEY"]
    assert stat.S_IMODE(key_store.stat().st_mode) == 0o600
    with pytest.raises(NotFoundError, match="no key called DEEPSEEK_API_KEY"):
        store.remove("DEEPSEEK_API_KEY")


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_file_others_can_read_is_refused_in_one_line(key_store: Path, mode: int):
    # Given a key file whose mode was loosened
    KeyStore.of_this_user().set("DEEPSEEK_API_KEY", KEY)
    key_store.chmod(mode)

    # When a key is read from it, Then it is refused, saying why and what to do, not the key
    with pytest.raises(ConfigError) as refused:
        KeyStore.of_this_user().get("DEEPSEEK_API_KEY")
    said = str(refused.value)
    assert f"can be read by others (mode {mode:o})" in said
    assert "chmod 600" in said
    assert KEY not in said
    assert "\n" not in said
    # And nothing is written over it either
    with pytest.raises(ConfigError):
        KeyStore.of_this_user().set("OTHER_KEY", OTHER)


def test_a_key_file_honyaku_did_not_write_is_refused_without_showing_it(key_store: Path):
    key_store.parent.mkdir(mode=0o700)
    key_store.write_text(f"DEEPSEEK_API_KEY={KEY}\n")
    key_store.chmod(0o600)

    with pytest.raises(ConfigError, match="is not what honyaku writes") as refused:
        KeyFile(key_store).names()
    assert KEY not in str(refused.value)


def test_with_a_keyring_a_key_goes_to_it_through_keyrings_api_and_never_to_the_file(
    key_store: Path, memory_keyring: MemoryKeyring
):
    # Given a usable keyring
    store = KeyStore.of_this_user()

    # When a key is set
    stored = store.set("DEEPSEEK_API_KEY", KEY)

    # Then it is in the keyring under honyaku, listed there, and no file was written
    assert stored.where == KEYRING
    assert memory_keyring.get_password("honyaku", "DEEPSEEK_API_KEY") == KEY
    assert not key_store.exists()
    assert [(k.name, k.where, k.tail) for k in store.all()] == [
        ("DEEPSEEK_API_KEY", KEYRING, "…b7d3")
    ]
    # And removed, it is gone from the keyring and from its list
    assert store.remove("DEEPSEEK_API_KEY") == [KEYRING]
    assert memory_keyring.get_password("honyaku", "DEEPSEEK_API_KEY") is None
    assert store.all() == []


def test_a_key_kept_in_the_file_before_a_keyring_came_is_still_found_and_moves_when_set(
    key_store: Path, memory_keyring: MemoryKeyring
):
    # Given a key kept in the file while there was no keyring
    KeyStore([KeyFile(key_store)]).set("DEEPSEEK_API_KEY", OTHER)

    # Then with a keyring it is still found, and listed where it is
    store = KeyStore.of_this_user()
    assert store.get("DEEPSEEK_API_KEY") == OTHER
    assert [k.where for k in store.all()] == [str(key_store)]

    # When it is set again, it goes to the keyring and leaves the file
    store.set("DEEPSEEK_API_KEY", KEY)
    assert store.get("DEEPSEEK_API_KEY") == KEY
    assert KeyFile(key_store).names() == []
    assert [k.where for k in store.all()] == [KEYRING]


DEEPSEEK = "https://api.deepseek.com/v1"
OPENAI = "https://api.openai.com/v1"
USUAL = ("OPENAI_API_KEY",)


def test_a_named_environment_variable_wins_and_alone(monkeypatch: pytest.MonkeyPatch):
    KeyStore.of_this_user().set("DEEPSEEK_API_KEY", KEY)
    monkeypatch.setenv("MY_VAR", OTHER)

    found = find_key(DEEPSEEK, variable="MY_VAR", name="DEEPSEEK_API_KEY", usual=USUAL)
    assert found is not None
    assert (found.key, found.source) == (OTHER, "$MY_VAR")
    # A named variable that is not set finds nothing: no other key goes in its place
    monkeypatch.delenv("MY_VAR")
    assert find_key(DEEPSEEK, variable="MY_VAR", name="DEEPSEEK_API_KEY", usual=USUAL) is None


def test_a_keys_name_is_looked_up_in_the_environment_then_in_the_key_store(
    monkeypatch: pytest.MonkeyPatch,
):
    KeyStore.of_this_user().set("DEEPSEEK_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-never-sent-to-deepseek")

    found = find_key(DEEPSEEK, name="DEEPSEEK_API_KEY", usual=USUAL)
    assert found is not None
    assert (found.key, found.source) == (KEY, "DEEPSEEK_API_KEY in the key store")

    monkeypatch.setenv("DEEPSEEK_API_KEY", OTHER)
    found = find_key(DEEPSEEK, name="DEEPSEEK_API_KEY", usual=USUAL)
    assert found is not None
    assert (found.key, found.source) == (OTHER, "$DEEPSEEK_API_KEY")


def test_a_keys_name_found_nowhere_is_no_key_not_the_providers_usual_one(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)

    assert find_key(OPENAI, name="DEEPSEEK_API_KEY", usual=USUAL) is None
    found = find_key(OPENAI, usual=USUAL)
    assert found is not None
    assert found.source == "$OPENAI_API_KEY"


def test_a_usual_variable_goes_to_its_providers_server_only(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

    assert find_key("http://127.0.0.1:8801/v1", usual=USUAL) is None
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8801/v1")
    assert find_key("http://127.0.0.1:8801/v1", usual=USUAL) is not None


def test_a_profiles_key_is_found_only_for_the_servers_it_is_bound_to(
    monkeypatch: pytest.MonkeyPatch,
):
    KeyStore.of_this_user().set("DEEPSEEK_API_KEY", KEY)
    monkeypatch.setenv("DEEPSEEK_API_KEY", OTHER)
    monkeypatch.setenv("GITHUB_TOKEN", OTHER)
    bound = [KeyBinding("DEEPSEEK_API_KEY", "https://api.deepseek.com:443", False)]

    # Bound by a profile of the workbench: the key store's key, never the variable
    found = find_key(DEEPSEEK, name="DEEPSEEK_API_KEY", bound=bound)
    assert found is not None
    assert found.source == "DEEPSEEK_API_KEY in the key store"
    with pytest.raises(ConfigError, match=r"goes only to https://api\.deepseek\.com"):
        find_key("http://127.0.0.1:8801/v1", name="DEEPSEEK_API_KEY", bound=bound)
    with pytest.raises(ConfigError, match="read only for the servers a terminal named it for"):
        find_key(DEEPSEEK, variable="GITHUB_TOKEN", bound=bound)
    assert find_key(DEEPSEEK, name="GITHUB_TOKEN", bound=bound) is None
    # Named at a terminal for that server, the variable is read there
    named = [KeyBinding("DEEPSEEK_API_KEY", "https://api.deepseek.com:443", True)]
    found = find_key(DEEPSEEK, name="DEEPSEEK_API_KEY", bound=named)
    assert found is not None
    assert found.source == "$DEEPSEEK_API_KEY"


def test_a_found_key_that_a_header_cannot_carry_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("MY_VAR", "sk-秘密ABCDEFGHIJ")
    with pytest.raises(ConfigError, match=r"the key in \$MY_VAR is not one word") as refused:
        find_key(DEEPSEEK, variable="MY_VAR")
    assert "ABCDEFGHIJ" not in str(refused.value)


def test_a_found_key_never_shows_in_its_repr():
    KeyStore.of_this_user().set("DEEPSEEK_API_KEY", KEY)
    found = find_key(DEEPSEEK, name="DEEPSEEK_API_KEY")
    assert found is not None
    assert KEY not in repr(found)


def test_the_config_folder_is_honyaku_config_dir_else_the_users(monkeypatch: pytest.MonkeyPatch):
    assert config_folder() == Path(os.environ["HONYAKU_CONFIG_DIR"])
    monkeypatch.delenv("HONYAKU_CONFIG_DIR")
    assert config_folder().name == "honyaku"


def test_each_provider_kind_takes_its_own_server_and_usual_variables_from_its_one_row():
    for kind in PROVIDER_KINDS.values():
        row = usual_key(kind.name)
        if row is None:
            assert kind.key_variables == (), f"{kind.name} has usual variables but no row"
            continue
        assert (kind.default_url, kind.key_variables) == (row.address, row.variables)
