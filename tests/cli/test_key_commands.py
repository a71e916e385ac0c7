"""``honyaku keys``: a key set from a terminal or standard input, listed by its last characters,
removed; kept in the keyring where one is usable, else in a file its owner alone reads; and a
profile that names it reaching its model with it, the key's text nowhere else."""

from __future__ import annotations

import contextlib
import logging
import os
import pty
import select
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from honyaku.cli.console import EXIT_USER_ERROR
from honyaku.store import Database
from honyaku.testing import FakeLLMServer

from ..conftest import MemoryKeyring, every_value
from .conftest import RASHOMON, honyaku, imported

KEY = "sk-kept-5e0d1c2b3a49f8e7"
TAIL = "…f8e7"


def test_a_key_from_standard_input_is_kept_listed_by_its_tail_and_removed(key_store: Path):
    # Given no keyring (as on CI)
    # When a key is piped to honyaku keys set, with the spaces and line end a paste brings
    kept = honyaku("keys", "set", "DEEPSEEK_API_KEY", typed=f"  {KEY}  \n")

    # Then it is kept in the key file, readable by its owner alone, and said so by its tail
    assert f"Kept DEEPSEEK_API_KEY ({TAIL}) in {key_store}" in kept.stdout
    assert stat.S_IMODE(key_store.stat().st_mode) == 0o600
    listed = honyaku("keys", "list").stdout
    assert "DEEPSEEK_API_KEY" in listed
    assert str(key_store) in listed.replace("\n", "")
    assert TAIL in listed
    assert KEY not in kept.stdout + listed
    assert KEY[:-4] not in kept.stdout + listed  # not even its start

    # When it is removed, Then it is gone
    removed = honyaku("keys", "remove", "DEEPSEEK_API_KEY")
    assert f"Removed key DEEPSEEK_API_KEY from {key_store}" in removed.stdout
    assert "No keys kept yet" in honyaku("keys", "list").stdout


def test_with_a_keyring_the_commands_keep_keys_in_it_through_keyrings_api(
    key_store: Path, memory_keyring: MemoryKeyring
):
    kept = honyaku("keys", "set", "OPENROUTER_API_KEY", typed=KEY + "\n")
    listed = honyaku("keys", "list").stdout

    assert "in keyring" in kept.stdout
    assert memory_keyring.get_password("honyaku", "OPENROUTER_API_KEY") == KEY
    assert not key_store.exists()
    assert "OPENROUTER_API_KEY" in listed
    assert "keyring" in listed
    assert TAIL in listed
    assert KEY not in listed

    honyaku("keys", "remove", "OPENROUTER_API_KEY")
    assert memory_keyring.get_password("honyaku", "OPENROUTER_API_KEY") is None
    assert "No keys kept yet; new ones go to keyring" in honyaku("keys", "list").stdout


def test_a_key_file_others_can_read_is_refused_in_one_line(key_store: Path):
    honyaku("keys", "set", "DEEPSEEK_API_KEY", typed=KEY)
    key_store.chmod(0o644)

    refused = honyaku("keys", "list", check=False)

    assert refused.returncode == EXIT_USER_ERROR
    assert refused.stderr.count("\n") == 1
    assert "can be read by others (mode 644)" in refused.stderr
    assert KEY not in refused.stdout + refused.stderr


@pytest.mark.parametrize(
    ("name", "typed", "said"),
    [
        ("DEEPSEEK-KEY", KEY, "a key's name is letters, digits and '_'"),
        ("DEEPSEEK_API_KEY", "\n", "the key is empty"),
        ("DEEPSEEK_API_KEY", "sk-one sk-two\n", "a key is one word"),
    ],
)
def test_a_bad_name_or_key_is_one_line_and_nothing_is_kept(key_store, name, typed, said):
    refused = honyaku("keys", "set", name, typed=typed, check=False)

    assert refused.returncode == EXIT_USER_ERROR
    assert said in refused.stderr
    assert refused.stderr.count("\n") == 1
    assert not key_store.exists()


def test_removing_a_key_never_kept_says_so(key_store):
    refused = honyaku("keys", "remove", "NEVER_KEPT", check=False)

    assert refused.returncode == EXIT_USER_ERROR
    assert "no key called NEVER_KEPT" in refused.stderr


def test_on_a_terminal_the_key_is_asked_for_and_never_shown(key_store: Path):
    # Given honyaku keys set on a terminal of its own (a new session: no other terminal)
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "honyaku", "keys", "set", "DEEPSEEK_API_KEY"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        start_new_session=True,
        close_fds=True,
    )
    os.close(follower)
    screen = _read_until(leader, "(not shown): ")

    # When the key is typed
    os.write(leader, f"{KEY}\r".encode())
    screen += _read_until(leader, "Kept DEEPSEEK_API_KEY")
    os.close(leader)

    # Then it was not echoed, and it is kept
    assert process.wait(timeout=30) == 0
    assert "Key DEEPSEEK_API_KEY (not shown):" in screen
    assert KEY not in screen
    assert TAIL in screen
    assert stat.S_IMODE(key_store.stat().st_mode) == 0o600
    assert KEY in key_store.read_text()


def _read_until(leader: int, text: str, timeout_s: float = 30) -> str:
    screen = ""
    deadline = time.monotonic() + timeout_s
    while text not in screen:
        assert time.monotonic() < deadline, f"{text!r} never appeared; screen:\n{screen}"
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            with contextlib.suppress(OSError):
                screen += os.read(leader, 65536).decode(errors="replace")
    return screen


def test_keys_help_says_where_keys_are_kept_and_how_a_profile_names_one():
    shown = honyaku("keys", "--help").stdout
    flat = " ".join(shown.split())

    for said in ("keyring", "keys.json", "HONYAKU_CONFIG_DIR", "--key", "set", "list", "remove"):
        assert said in flat
    assert "standard input" in " ".join(honyaku("keys", "set", "--help").stdout.split())
    assert "--key KEY_NAME" in honyaku("models", "add", "--help").stdout


@pytest.mark.backends("sqlite", "postgresql")
def test_a_profile_naming_a_kept_key_reaches_its_model_with_it_and_the_key_shows_nowhere(
    home: Path,
    tmp_path: Path,
    key_store: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
):
    caplog.set_level(logging.DEBUG)
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    outputs = []
    # Given a model that takes one key only, and that key kept in the key store alone
    with FakeLLMServer(api_key=KEY) as model:
        outputs.append(honyaku("keys", "set", "DEEPSEEK_API_KEY", typed=KEY))
        book = imported(RASHOMON)
        added = honyaku(
            "models", "add", "deepseek", "--model", "fake-translator", "--base-url", model.url,
            "--protocol", "native", "--key", "DEEPSEEK_API_KEY",
        )  # fmt: skip
        outputs.append(added)

        # When a book is translated with that profile
        outputs.append(honyaku("translate", book, "--model", "deepseek"))

    # Then every request carried exactly that key (the server refuses any other)
    assert model.requests
    assert "key from DEEPSEEK_API_KEY in the key store" in outputs[-1].stdout
    # And the profile shows the key's name, never the key
    outputs += [honyaku("models", "list"), honyaku("models", "show", "deepseek")]
    assert "DEEPSEEK_API_KEY" in outputs[-1].stdout
    outputs += [honyaku("show", book, "--actions"), honyaku("books"), honyaku("keys", "list")]
    exports = tmp_path / "exports"
    exports.mkdir()
    for fmt in ("json", "txt", "md", "epub"):
        outputs.append(honyaku("export", book, "--format", fmt, "-o", exports / f"book.{fmt}"))

    # And the key's text is in no output, no log, no export, no file of the home, no row
    printed = "".join(done.stdout + done.stderr for done in outputs)
    assert KEY not in printed
    assert KEY not in caplog.text
    for path in (*exports.iterdir(), *home.rglob("*")):
        assert KEY.encode() not in _contents(path), path
    database = Database.open(home)
    try:
        stored = every_value(database)
    finally:
        database.close()
    assert "fake-translator" in stored  # the search does reach what the job wrote
    assert "DEEPSEEK_API_KEY" in stored
    assert KEY not in stored


def _contents(path: Path) -> bytes:
    """A file's bytes; an archive's, each of its members' too."""
    if not path.is_file():
        return b""
    data = path.read_bytes()
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            data += b"".join(archive.read(member) for member in archive.namelist())
    return data


def test_a_profiles_key_missing_everywhere_stops_the_job_in_one_line_saying_how_to_set_it(
    fake_model: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    book = imported(RASHOMON)
    honyaku(
        "models", "add", "deepseek", "--model", "fake-translator", "--base-url",
        fake_model.url, "--key", "DEEPSEEK_API_KEY",
    )  # fmt: skip

    refused = honyaku("translate", book, "--model", "deepseek", check=False)

    assert refused.returncode == EXIT_USER_ERROR
    assert refused.stderr.count("\n") == 1
    assert "no key DEEPSEEK_API_KEY in the environment or the key store" in refused.stderr
    assert "honyaku keys set DEEPSEEK_API_KEY" in refused.stderr
    assert "export DEEPSEEK_API_KEY=" in refused.stderr
    assert fake_model.requests == []


def test_an_environment_variable_of_the_keys_name_wins_and_an_explicit_one_over_it(
    monkeypatch: pytest.MonkeyPatch,
):
    # Given a key kept, and the same name set in the environment to another key
    with FakeLLMServer(api_key="sk-from-the-environment") as model:
        book = imported(RASHOMON)
        honyaku("keys", "set", "DEEPSEEK_API_KEY", typed=KEY)
        monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-from-the-environment")
        honyaku(
            "models", "add", "deepseek", "--model", "fake-translator", "--base-url",
            model.url, "--protocol", "native", "--key", "DEEPSEEK_API_KEY",
        )  # fmt: skip

        # Then the environment's is sent
        done = honyaku("translate", book, "--model", "deepseek", "--chapters", "1")
        assert "key from $DEEPSEEK_API_KEY" in done.stdout

        # And a variable named with --api-key-env wins over both
        monkeypatch.setenv("EXPLICIT_KEY", "sk-explicit")
        model.api_key = "sk-explicit"
        explicit = honyaku(
            "translate", book, "--model", "deepseek", "--api-key-env", "EXPLICIT_KEY",
            "--retranslate",
        )  # fmt: skip
        assert "key from $EXPLICIT_KEY" in explicit.stdout


PASTED = "sk-proj-Pasted1nto2theName3field4Q"


def test_a_key_pasted_as_a_name_is_refused_at_every_terminal_entry_and_kept_nowhere(
    home: Path, key_store: Path, fake_model: FakeLLMServer
):
    book = imported(RASHOMON)
    add = ("models", "add", "pasted", "--model", "m", "--base-url", fake_model.url)

    # When the key itself is typed where a key's name or a variable's name goes
    refused = [
        honyaku(*add, "--key", PASTED, check=False),
        honyaku(*add, "--api-key-env", PASTED, check=False),
        honyaku(*add, "--endpoint", f",{PASTED}", check=False),
        honyaku("keys", "set", PASTED, typed=PASTED, check=False),
        honyaku("keys", "remove", PASTED, check=False),
        honyaku("translate", book, "--model", "m", "--base-url", fake_model.url,
                "--api-key-env", PASTED, check=False),
    ]  # fmt: skip

    # Then each is one line that says where the key goes, and never repeats it
    for done in refused:
        assert done.returncode != 0
        assert "the key itself goes into the key store" in done.stderr
        assert done.stderr.count("\n") == 1
        assert PASTED not in done.stdout + done.stderr
    # And it is in no file of the home (the database's write-ahead log too), nor kept
    assert fake_model.requests == []
    assert not key_store.exists()
    for path in home.rglob("*"):
        assert PASTED.encode() not in _contents(path), path


def test_a_key_an_http_header_cannot_carry_is_refused_as_typed_and_as_read(
    key_store: Path, fake_model: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
):
    typed = honyaku("keys", "set", "DEEPSEEK_API_KEY", typed="sk-秘密ABCDEFGHIJ\n", check=False)
    monkeypatch.setenv("ODD_KEY", "sk-clé-ABCDEFGHIJ")
    book = imported(RASHOMON)
    read = honyaku(
        "translate", book, "--model", "m", "--base-url", fake_model.url,
        "--api-key-env", "ODD_KEY", check=False,
    )  # fmt: skip

    assert typed.returncode == read.returncode == EXIT_USER_ERROR
    assert typed.stderr.startswith("error: a key is printable ASCII")
    assert "the key in $ODD_KEY is not one word of printable ASCII" in read.stderr
    for done in (typed, read):
        assert done.stderr.count("\n") == 1
        assert "ABCDEFGHIJ" not in done.stdout + done.stderr
    assert not key_store.exists()
    assert fake_model.requests == []


def test_a_providers_usual_variable_goes_to_its_own_server_and_elsewhere_only_when_named(
    monkeypatch: pytest.MonkeyPatch,
):
    usual = "sk-usual-for-openai-only-8d7c6b5a"
    monkeypatch.setenv("OPENAI_API_KEY", usual)
    book = imported(RASHOMON)
    with FakeLLMServer() as elsewhere:
        flags = ("--model", "m", "--base-url", elsewhere.url, "--chapters", "1")
        unnamed = honyaku("translate", book, *flags)
        heard_unnamed = [h.get("authorization") for h in elsewhere.headers]
        named = honyaku(
            "translate", book, *flags, "--api-key-env", "OPENAI_API_KEY", "--retranslate"
        )

    assert "(no key: $OPENAI_API_KEY goes only to https://api.openai.com/v1; --api-key-env" in (
        " ".join(unnamed.stdout.split())
    )
    assert not any(usual in (header or "") for header in heard_unnamed)
    assert "key from $OPENAI_API_KEY" in named.stdout
    assert f"Bearer {usual}" in {h.get("authorization") for h in elsewhere.headers}
