"""What an API key's name may look like, what a key itself looks like, what of a key may ever
be shown, and what to say when one is missing. No I/O: where keys are kept is
``honyaku.llm.keys``; where each may go, ``honyaku.domain.key_addresses``.

A key goes by a name, e.g. ``DEEPSEEK_API_KEY``: a model profile saves the name, never the key.
The same name is looked up as an environment variable before the key store, so a name is
one an environment variable can have.

A key is never a name. A key pasted where its name goes would be stored and shown as a name:
a name that looks like a key (a well-known provider's prefix, ``sk-``, ``AIza``, ``ghp_``…, or a
long random run of letters and digits) is refused in one line that never repeats it and says
where the key goes instead. A key is printable ASCII, what an HTTP header can carry: any other
character is refused where the key is given, before a request could fail on it.
"""

from __future__ import annotations

import re

from honyaku.errors import ConfigError

KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
"""Letters, digits and ``_``, not starting with a digit: an environment variable's name."""
SHOWN_CHARS = 4
"""The most of a key ever shown: its last characters, to tell two keys apart."""
KEY_PREFIXES = (
    "sk-",
    "sk_",
    "pk-",
    "rk-",
    "AIza",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xai-",
    "hf_",
    "gsk_",
    "xoxb-",
    "xoxp-",
    "r8_",
    "pplx-",
    "nvapi-",
)
"""How keys of well-known providers begin, as they are written (``sk-ant-…`` and ``sk-proj-…``
among the ``sk-``): a variable's name in capitals (``HF_TOKEN``) is no key."""
RANDOM_RUN = re.compile(r"(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{16,}")
"""Sixteen letters and digits or more without a break, both mixed: a key's random part (an AWS
key id, a Mistral key, 32 hexadecimal digits); a name's words are shorter and apart."""


def looks_like_key(text: str) -> bool:
    """Whether ``text`` looks like a key rather than a name: a well-known provider's prefix,
    or a long random run of letters and digits."""
    return text.startswith(KEY_PREFIXES) or any(
        RANDOM_RUN.fullmatch(part) for part in re.split(r"[^A-Za-z0-9]+", text)
    )


def check_key_name(name: str) -> str:
    """``name``, or a one-line refusal that says what a name looks like (and never repeats
    one that looks like a key)."""
    if looks_like_key(name):
        raise ConfigError(
            "that looks like a key, not a key's name: a key's name is like DEEPSEEK_API_KEY, "
            "and the key itself goes into the key store (the key field of the models page, or "
            "honyaku keys set NAME in a terminal)"
        )
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
    nothing is left, it is not one word (a key has no spaces nor line breaks), or it holds a
    character an HTTP header cannot carry."""
    key = key.strip()
    if not key:
        raise ConfigError("the key is empty")
    if any(c.isspace() or not c.isprintable() for c in key):
        raise ConfigError("a key is one word: no spaces, line breaks or control characters")
    if not key.isascii():
        raise ConfigError(
            "a key is printable ASCII (letters, digits and punctuation, what an HTTP header "
            "carries), and this one holds other characters: copy it again from where it was given"
        )
    return key


def check_found_key(key: str, source: str) -> str:
    """A key read from ``source`` (``$DEEPSEEK_API_KEY``, or its name in the key store),
    refused in one line that names where it was and never shows it, unless an HTTP header
    can carry it as it is."""
    if not key.isascii() or not key.isprintable() or any(c.isspace() for c in key):
        raise ConfigError(
            "the key in {source} is not one word of printable ASCII (letters, digits and "
            "punctuation, what an HTTP header carries): set it again",
            source=source,
        )
    return key
