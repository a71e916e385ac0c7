"""Short ids: 8 lowercase hex characters, unique within their book."""

from __future__ import annotations

import re
import secrets
from collections.abc import Container

ID_PATTERN = re.compile(r"^[0-9a-f]{8}$")


def new_id(taken: Container[str] = ()) -> str:
    """A fresh random id that is not in ``taken``."""
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate


def is_id(value: object) -> bool:
    return isinstance(value, str) and ID_PATTERN.match(value) is not None
