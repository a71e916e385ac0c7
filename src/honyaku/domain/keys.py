"""What an API key's name may look like, what of a key may ever be shown, and what to say
when one is missing. No I/O: where keys are kept is ``honyaku.llm.keys``.

A key goes by a name, e.g. ``DEEPSEEK_API_KEY``: a model profile saves the name, never the key.
The same name is looked up as an environment variable before the key store, so a name is
one an environment variable can have.
"""

from __future__ import annotations

import re

from honyaku.errors import ConfigError

KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
"""Letters, digits and ``_``, not starting with a digit: an environment variable's name."""
SHOWN_CHARS = 4
"""The most of a key ever shown: its last characters, to tell two keys apart."""


def check_key_name(name: str) -> str:
    """``name``, or a one-line refusal that says what a name looks like."""
    if not KEY_NAME.fullmatch(name):
        raise ConfigError(
            "a key's name is letters, digits and '_', like DEEPSEEK_API_KEY, not {name!r}",
            name=name[:100],
        )
    return name


def key_tail(key: str) -> str:
    """``…a1b2``: the key's last characters, at most ``SHOWN_CHARS`` and at most a quarter
    of it, so that a short key shows less or nothing."""
    shown = min(SHOWN_CHARS, len(key) // 4)
    return "…" + (key[-shown:] if shown else "")


def missing_key(name: str) -> ConfigError:
    """The one line said when the key called ``name`` is nowhere: where it was looked for,
    and how to give it (on the machine that looked: a worker has its own)."""
    return ConfigError(
        "no key {name} in the environment or the key store: set it with "
        "`honyaku keys set {name}` or `export {name}=…`",
        name=name,
    )


def check_key_text(key: str) -> str:
    """The key as typed or pasted, stripped; refused, in one line that never shows it, if
    nothing is left or it is not one word (a key has no spaces nor line breaks)."""
    key = key.strip()
    if not key:
        raise ConfigError("the key is empty")
    if any(c.isspace() or not c.isprintable() for c in key):
        raise ConfigError("a key is one word: no spaces, line breaks or control characters")
    return key
